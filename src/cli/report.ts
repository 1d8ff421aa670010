/**
 * `cloud-agent-run report`: the report action's step (src/report/main.ts) behind the command's
 * door, for any CI: its flags are report/action.yml's inputs; it answers as the command does,
 * with the exit table's code and, with `--json`, one JSON object (`credits`, `runs`, `report`).
 */
import { run as runReportStep } from '../report/main.ts'
import { answerJson, exitCodeOf } from './answer.ts'
import {
  inputLines,
  KEY_FILE_VARIABLE,
  KEY_VARIABLE,
  parseCommandLine,
  PROJECT_HELP,
  UsageError,
  type DeclaredInput,
} from './flags.ts'
import type { CommandIo } from './io.ts'
import { plainSummary } from './outputs.ts'
import { preflight, refuse, writeSummary } from './preflight.ts'
import { commandInputs } from './source.ts'
import { endOnSignal } from './signals.ts'
import { CommandStepIo } from './step-io.ts'
import type { InputSource } from '../step-io.ts'
import { commandWorld } from './world.ts'

export async function runReportCommand(
  args: readonly string[],
  declared: Readonly<Record<string, DeclaredInput>>,
  io: CommandIo,
): Promise<number> {
  return runReadingCommand(args, declared, io, {
    name: 'report',
    usage: () => reportUsage(declared),
    step: runReportStep,
  })
}

/** A subcommand that runs one of the report's steps: `report`, `campaign status|close`. */
export interface ReadingCommand {
  /** The subcommand, for its lines: `report`, `campaign close`. */
  readonly name: string
  readonly usage: () => string
  readonly step: (io: CommandStepIo, inputs: InputSource) => Promise<{ error?: unknown }>
  /** Refused before any request when GITHUB_TOKEN is not set: what it is needed for. */
  readonly needsGitHubToken?: string
}

/**
 * Runs a step of the report's behind the command's door: the flags parsed and checked, the key
 * read, a signal answered with its code, and the answer as the command gives it (the exit
 * table's code; with `--json`, one JSON object of the step's outputs).
 */
export async function runReadingCommand(
  args: readonly string[],
  declared: Readonly<Record<string, DeclaredInput>>,
  io: CommandIo,
  reading: ReadingCommand,
): Promise<number> {
  let command
  try {
    command = parseCommandLine(args, declared)
    // These list runs; they start none, so a tasks list has nothing to be for.
    if (command.tasksFile !== undefined) {
      throw new UsageError(
        `${reading.name} does not take --tasks-file: it starts no run; see cloud-agent-run ${reading.name} --help.`,
      )
    }
    if (command.inputs.has('github_token')) {
      throw new UsageError(
        `cloud-agent-run ${reading.name} reads the GitHub token from GITHUB_TOKEN: a flag would show in the shell's history and the process list.`,
      )
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return refuse(io, args.includes('--json'), error.message)
  }
  if (command.help || command.version) {
    io.stdout(reading.usage())
    return 0
  }
  let ready
  try {
    ready = await preflight(command, io, { githubOnly: false })
    if (reading.needsGitHubToken && !io.env.GITHUB_TOKEN?.trim()) {
      throw new UsageError(`GITHUB_TOKEN is not set: ${reading.needsGitHubToken}`)
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return refuse(io, command.json, error.message)
  }
  const world = commandWorld(io.env, io.cwd, command.project)
  const secrets = new Set<string>([ready.key])
  if (io.env.GITHUB_TOKEN?.trim()) secrets.add(io.env.GITHUB_TOKEN.trim())
  const inputs = commandInputs({ command, declared, ready, env: io.env }, world, secrets)
  // Listing has no run to clean up after: the engine never asks to end the process here.
  const port = new CommandStepIo(io.stderr, secrets, io.process, () => undefined)
  const signals = endOnSignal(io, {
    name: `cloud-agent-run ${reading.name}`,
    json: command.json,
    answer: (signal, exitCode) =>
      answerJson({ outputs: port.outputs, failure: undefined, hadRun: false, signal }, exitCode),
  })
  let end
  try {
    end = await reading.step(port, inputs)
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

/** `report --help`: the report's own page, its flags from report/action.yml's inputs. */
function reportUsage(declared: Readonly<Record<string, DeclaredInput>>): string {
  const lines = [
    'Usage: cloud-agent-run report [flags]',
    '',
    "What the runs did and cost in a period, from the service's own records: by day, merge or",
    'pull request, workflow and key, as a table and data. It starts no run and changes nothing.',
    `The key is read from ${KEY_VARIABLE}, else from the file ${KEY_FILE_VARIABLE} names.`,
    '',
    'Exit codes: 0 the report was made; 1 a file of it (--summary, --report-dir) could not be',
    'written; 2 bad input (nothing asked); 3 the service could not be reached or refused the',
    'key; 130/143 interrupted by SIGINT/SIGTERM.',
    '',
    'Own flags:',
    '  --json               one JSON object on stdout: credits, runs, report (the whole report),',
    '                       outcome, exit_code and error; the log on stderr',
    '  --summary FILE       write the report (Markdown, with its chart) to FILE',
    PROJECT_HELP,
    '  --help',
    '',
    'With --campaign, the pull requests its runs opened are read with the token in GITHUB_TOKEN',
    '(their state, checks and review); without one, each shows its link and "state unknown".',
    '',
    'Inputs (as in report/action.yml):',
    ...inputLines(withoutToken(declared)),
  ]
  return `${lines.join('\n')}\n`
}

/** The inputs less `github_token`, which the command reads from GITHUB_TOKEN only. */
export function withoutToken(
  declared: Readonly<Record<string, DeclaredInput>>,
): Record<string, DeclaredInput> {
  return Object.fromEntries(Object.entries(declared).filter(([name]) => name !== 'github_token'))
}
