/**
 * `cloud-agent-run report`: the report action's step (src/ledger/main.ts) behind the command's
 * door, for any CI: its flags are report/action.yml's inputs; it answers as the command does,
 * with the exit table's code and, with `--json`, one JSON object (`credits`, `runs`, `report`).
 */
import { run as runReportStep } from '../ledger/main.ts'
import { answerJson, exitCodeOf } from './answer.ts'
import { parseCommandLine, usage, UsageError, type DeclaredInput } from './flags.ts'
import type { CommandIo } from './io.ts'
import { plainSummary } from './outputs.ts'
import { preflight, refuse, writeSummary } from './preflight.ts'
import { commandInputs } from './source.ts'
import { endOnSignal } from './signals.ts'
import { CommandStepIo } from './step-io.ts'
import { commandWorld } from './world.ts'

export async function runReportCommand(
  args: readonly string[],
  declared: Readonly<Record<string, DeclaredInput>>,
  io: CommandIo,
): Promise<number> {
  let command
  try {
    command = parseCommandLine(args, declared)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return refuse(io, args.includes('--json'), error.message)
  }
  if (command.help || command.version) {
    io.stdout(usage(declared).replace('cloud-agent-run [flags]', 'cloud-agent-run report [flags]'))
    return 0
  }
  let ready
  try {
    ready = await preflight(command, io)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return refuse(io, command.json, error.message)
  }
  const world = commandWorld(io.env, io.cwd, command.project)
  const secrets = new Set<string>([ready.key])
  const inputs = commandInputs({ command, declared, ready, env: io.env }, world, secrets)
  // Listing has no run to clean up after: the engine never asks to end the process here.
  const port = new CommandStepIo(io.stderr, secrets, io.process, () => undefined)
  const signals = endOnSignal(io, {
    name: 'cloud-agent-run report',
    json: command.json,
    answer: (signal, exitCode) =>
      answerJson({ outputs: port.outputs, failure: undefined, hadRun: false, signal }, exitCode),
  })
  let end
  try {
    end = await runReportStep(port, inputs)
  } finally {
    signals.stop()
  }
  const afterwards = writeSummary(command, io, port.summary)
  if (afterwards) io.stderr(`error: ${afterwards}\n`)
  const answer = { ...end, hadRun: false, outputs: port.outputs, failure: port.failure, afterwards }
  const code = exitCodeOf(answer)
  io.stdout(
    command.json
      ? `${JSON.stringify(answerJson(answer, code), null, 2)}\n`
      : plainSummary(port.summary),
  )
  return code
}
