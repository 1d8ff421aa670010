/** The command's entry (`cloud-agent-run`, as dist/cli.js is): hands the process to its door. */
import { commandIo, keepYoungGenerationSmall, runCli } from '../index.ts'

keepYoungGenerationSmall()
process.exitCode = await runCli(
  process.argv.slice(2),
  new URL('../../action.yml', import.meta.url),
  commandIo(process),
)
