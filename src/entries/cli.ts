/** The command's entry (`cloud-agent-run`, as dist/cli.js is): hands the process to its door. */
import { commandIo, keepYoungGenerationSmall, runCli } from '../index.ts'

// After the first turn, which sends the main step's create: node:v8 loads then (src/heap.ts).
setImmediate(keepYoungGenerationSmall)
process.exitCode = await runCli(
  process.argv.slice(2),
  new URL('../../action.yml', import.meta.url),
  commandIo(process),
)
