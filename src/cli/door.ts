/**
 * The command line's door to the one engine: `cloud-agent-run`. It reads its world once (the
 * arguments, the environment, the working directory), hands the main step the inputs the
 * flags give, with action.yml's defaults, and answers for it with an exit code, the outputs
 * as JSON and the summary. The engine is the Action's own: only the door differs.
 */
import { answerJson, EXIT, exitCodeOf } from './answer.ts'
import {
  parseCommandLine,
  usage,
  UsageError,
  type CommandLine,
  type DeclaredInput,
} from './flags.ts'
import type { CommandIo } from './io.ts'
import { readDeclaredInputs } from './manifest.ts'
import { runCleanup } from './cleanup.ts'
import { JobFiles, jobDirOf } from './job-files.ts'
import { MergeRequestJob } from './merge-request.ts'
import { plainSummary } from './outputs.ts'
import { preflight, refuse, writeSummary, type Preflight } from './preflight.ts'
import { runReconcile } from './reconcile.ts'
import { runCampaign } from './campaign.ts'
import { runReportCommand } from './report.ts'
import { commandInputs } from './source.ts'
import { commandSpeech } from './speech.ts'
import { CommandStepIo } from './step-io.ts'
import { commandWorld } from './world.ts'
import type { InputSource } from '../step-io.ts'
import { run as runMainStep } from '../step/main.ts'
import { run as runPostStep } from '../step/post.ts'
import { readSavedRun } from '../state.ts'

export { EXIT }
export { commandIo, type CommandIo, type CommandProcess } from './io.ts'

/**
 * Runs the command; resolves with its exit code. `action` names its flags: action.yml (whose
 * inputs are the flags, in a checkout) or the bundle's manifest built from it (`inputs.json`).
 * With `--json`, stdout carries one JSON object on every exit.
 */
export async function runCli(args: readonly string[], action: URL, io: CommandIo): Promise<number> {
  const manifest = await readDeclaredInputs(action)
  const { inputs: declared, version } = manifest
  // One subcommand per file: `reconcile` (cli/reconcile.ts), `report` (cli/report.ts),
  // `cleanup` (cli/cleanup.ts), `campaign` (cli/campaign.ts).
  if (args[0] === 'reconcile') return runReconcile(args.slice(1), declared, io)
  if (args[0] === 'report') return await runReportCommand(args.slice(1), manifest.report, io)
  if (args[0] === 'cleanup') return runCleanup(args.slice(1), io)
  if (args[0] === 'campaign') {
    return await runCampaign(args.slice(1), manifest.report, io, (start) =>
      runCli(start, action, io),
    )
  }
  // Known before the flags parse: a bad flag's refusal is JSON too when JSON was asked for.
  const asksJson = args.includes('--json')
  let command: CommandLine
  try {
    command = parseCommandLine(args, declared)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return refuse(io, asksJson, error.message)
  }
  if (command.help) {
    io.stdout(usage(declared))
    return EXIT.passed
  }
  if (command.version) {
    io.stdout(`cloud-agent-run ${version}\n`)
    return EXIT.passed
  }
  // From here a signal ends the command with its JSON and its code, also while the checks
  // before any request still read (`--prompt-file -` from standard input).
  const signals = watchSignals(io, command.json)
  try {
    let ready: Preflight
    try {
      ready = await preflight(command, io)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      return refuse(io, command.json, error.message)
    }
    return await runStep(command, declared, io, ready, signals)
  } finally {
    signals.stop()
  }
}

async function runStep(
  command: CommandLine,
  declared: Readonly<Record<string, DeclaredInput>>,
  io: CommandIo,
  ready: Preflight,
  signals: SignalWatch,
): Promise<number> {
  const world = commandWorld(io.env, io.cwd, command.project)
  const secrets = new Set<string>([ready.key])
  const inputs = commandInputs({ command, declared, ready, env: io.env }, world, secrets)
  const mergeRequest = MergeRequestJob.open(io.env, {
    key: command.inputs.get('name'),
    steer: command.inputs.get('previous_run') === 'steer',
    say: io.stderr,
  })
  if (mergeRequest?.steering) inputs.steering = mergeRequest.steering
  if (io.env.GITLAB_TOKEN) secrets.add(io.env.GITLAB_TOKEN.trim())
  mergeRequest?.started()
  const jobDir = jobDirOf(io.env, io.cwd)
  const jobFiles =
    jobDir === undefined
      ? undefined
      : new JobFiles(
          jobDir,
          {
            baseUrl: inputs.get('base_url'),
            name: inputs.get('name'),
            steer: inputs.get('previous_run') === 'steer',
          },
          io.stderr,
        )
  let exitAsked: (code: number) => void = () => undefined
  const stopped = new Promise<'stopped'>((settle) => (exitAsked = () => settle('stopped')))
  const port = new CommandStepIo(io.stderr, secrets, io.process, (code) => exitAsked(code), {
    onOutput: (name, value) => {
      if (name === 'run_id' && value) mergeRequest?.runSeen(value)
    },
    ...(jobFiles ? { onState: (state) => jobFiles.saveState(state) } : {}),
    speech: commandSpeech(declared),
  })
  signals.reportFrom(port)
  // The engine asks to end the process past a signal's cancel budget (a create still out):
  // the door stops waiting for the step, and cleans up after it all the same.
  const ended = await Promise.race([runMainStep(port, inputs), stopped])
  signals.cleaningUp()
  await ownRuns(port, inputs)
  const end = ended === 'stopped' ? { hadRun: true } : ended
  const afterwards = writeSummary(command, io, port.summary)
  jobFiles?.finish(port.outputs)
  signals.stop()
  const answer = { ...end, outputs: port.outputs, failure: port.failure, afterwards }
  const code = exitCodeOf({ ...answer, ...(signals.received ? { signal: signals.received } : {}) })
  if (afterwards) io.stderr(`error: ${afterwards}\n`)
  io.stdout(
    command.json
      ? `${JSON.stringify(answerJson({ ...answer, signal: signals.received }, code), null, 2)}\n`
      : plainSummary(port.summary),
  )
  // After the outputs: a slow GitLab never holds them, nor the exit past a signal's grace.
  await mergeRequest?.finish(port.summary, port.outputs, signals.received !== undefined)
  // A create still unanswered, or after a signal a GitLab call still out, keeps a socket open for
  // up to its deadline: end now, the runs cancelled (the stdio of a CI's pipes and files is
  // written synchronously on Linux and macOS).
  if (ended === 'stopped' || signals.received) io.process.exit(code)
  return code
}

/**
 * The door owns its runs: whatever the step left going (a run a signal's cancel did not reach,
 * the run of a create never answered, or whose answer was lost), it finds by its tag and
 * cancels before the command ends, as the post step does after an Action's main step.
 */
async function ownRuns(port: CommandStepIo, inputs: InputSource): Promise<void> {
  if (readSavedRun(port).runs.every((record) => record.settled)) return
  await runPostStep(port, inputs)
}

/** The door's watch over SIGINT and SIGTERM, from before its checks to its exit. */
interface SignalWatch {
  /** The signal that came, if one did: the exit code is its. */
  readonly received: 'SIGINT' | 'SIGTERM' | undefined
  /** The step's port: what a signal before the engine listens answers with (its outputs). */
  reportFrom(port: CommandStepIo): void
  /** The step ended: a signal now waits for the cleanup after it. */
  cleaningUp(): void
  stop(): void
}

/**
 * SIGINT and SIGTERM. While the engine listens, it cancels every run it started and ends the
 * step; the door remembers which came, for the exit code. Before it listens (the checks before
 * any request, `--prompt-file -` still reading) no run exists yet, and the command ends at once
 * with the exit table's code, and its JSON with `--json`. Once the step ended, the door is
 * cleaning up after it: a signal then is remembered, and the cleanup goes on to its end.
 */
function watchSignals(io: CommandIo, json: boolean): SignalWatch {
  let cleaningUp = false
  let port: CommandStepIo | undefined
  let received: 'SIGINT' | 'SIGTERM' | undefined
  const host = io.process
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = () => {
      received ??= name
      if (cleaningUp) {
        port?.info(`Received ${name}: still cancelling what the command started; then it exits.`)
        return
      }
      if (host.listenerCount(name) > 1) return
      // The engine is not listening: nothing has been created.
      io.stderr(`cloud-agent-run: received ${name} before any run was made; nothing to cancel.\n`)
      const answer = {
        outputs: port?.outputs ?? {},
        failure: undefined,
        hadRun: false,
        signal: name,
      }
      if (json) io.stdout(`${JSON.stringify(answerJson(answer, EXIT[name]), null, 2)}\n`)
      host.exit(EXIT[name])
    }
    host.on(name, handler)
    return [name, handler] as const
  })
  return {
    get received() {
      return received
    },
    reportFrom: (stepPort) => (port = stepPort),
    cleaningUp: () => (cleaningUp = true),
    stop: () => {
      for (const [name, handler] of handlers) host.off(name, handler)
    },
  }
}
