/** The command's entry (`cloud-agent-run`, as dist/cli.js is): hands the process to its door. */
import { commandIo, runCli } from '../index.ts'

process.exitCode = await runCli(
  process.argv.slice(2),
  new URL('../../action.yml', import.meta.url),
  commandIo(process),
)
