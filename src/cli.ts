/**
 * The command line's door to the one engine: `cloud-agent-run`. It reads its world once (the
 * arguments, the environment, the working directory), hands the main step the inputs the
 * flags give, with action.yml's defaults, and answers for it with an exit code, the outputs
 * as JSON and the summary. The engine is the Action's own: only the door differs.
 */
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { answerJson, EXIT, exitCodeOf, refusalJson } from './cli/answer.ts'
import {
  flagOf,
  githubOnlyGiven,
  parseCommandLine,
  usage,
  UsageError,
  type CommandLine,
  type DeclaredInput,
} from './cli/flags.ts'
import { readKey, readText } from './cli/key.ts'
import { MergeRequestJob } from './cli/merge-request.ts'
import { plainSummary } from './cli/outputs.ts'
import { runReconcile } from './cli/reconcile.ts'
import { CommandStepIo } from './cli/step-io.ts'
import { commandWorld } from './cli/world.ts'
import type { InputSource } from './inputs.ts'
import { run as runMainStep } from './main.ts'
import { run as runPostStep } from './post.ts'
import { readSavedRun } from './state.ts'
import { errorMessage } from './text/plain.ts'

export { EXIT }

/** The command's flags and version: action.yml's inputs, package.json's version. */
export interface CommandManifest {
  readonly inputs: Readonly<Record<string, DeclaredInput>>
  readonly version: string
}

/** What the command takes of Node's process for its signals and its exit. */
export type CommandProcess = Pick<NodeJS.Process, 'on' | 'off' | 'listenerCount' | 'exit'>

/** Where the door writes and what it reads: the process's, or a test's. */
export interface CommandIo {
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  /** The signals that cancel the command, and its exit: the process's, or a test's. */
  readonly process: CommandProcess
  /** The log and the messages for a person. A closed stream drops what is written. */
  readonly stderr: (text: string) => void
  /** The JSON, or the summary as text. A closed stream drops what is written. */
  readonly stdout: (text: string) => void
  /** All of standard input, for `--prompt-file -`. */
  readonly readStdin: () => Promise<string>
}

/**
 * Runs the command; resolves with its exit code. `action` names its flags: action.yml (whose
 * inputs are the flags, in a checkout) or the bundle's manifest built from it (`inputs.json`).
 * With `--json`, stdout carries one JSON object on every exit.
 */
export async function runCli(args: readonly string[], action: URL, io: CommandIo): Promise<number> {
  const { inputs: declared, version } = await readDeclaredInputs(action)
  // One subcommand per file: `cloud-agent-run reconcile` (cli/reconcile.ts).
  if (args[0] === 'reconcile') return runReconcile(args.slice(1), declared, io)
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
  let ready: Preflight
  try {
    ready = await preflight(command, io)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    return refuse(io, command.json, error.message)
  }
  return await runStep(command, declared, io, ready)
}

/** A refusal before any request: one line on stderr, the JSON on stdout when asked; exit 2. */
function refuse(io: CommandIo, json: boolean, message: string): number {
  io.stderr(`cloud-agent-run: ${message}\n`)
  if (json) io.stdout(`${JSON.stringify(refusalJson(message), null, 2)}\n`)
  return EXIT.badInput
}

/** What the checks before any request read: the key, the tasks and the prompt from files. */
interface Preflight {
  readonly key: string
  readonly tasks?: string
  readonly prompt?: string
}

/**
 * Everything that can fail before a request fails here, with UsageError: the key (from
 * WARP_API_KEY, else the file WARP_API_KEY_FILE names), a GitHub-only flag outside GitHub,
 * the files to read (`--tasks-file`, `--prompt-file -` from stdin), and a `--summary` that
 * could not be written once the run is paid for.
 */
async function preflight(command: CommandLine, io: CommandIo): Promise<Preflight> {
  const key = readKey(io.env, io.cwd)
  const githubOnly = githubOnlyGiven(command.inputs)
  if (githubOnly.length > 0 && io.env.GITHUB_ACTIONS !== 'true') {
    const names = githubOnly.map(flagOf).join(', ')
    const one = githubOnly.length === 1
    throw new UsageError(
      `${names} only ${one ? 'means' : 'mean'} something in a GitHub Actions workflow (${one ? 'it works' : 'they work'} on GitHub); outside one, leave ${one ? 'it' : 'them'} out.`,
    )
  }
  if (command.summaryFile !== undefined) checkWritable(resolve(io.cwd, command.summaryFile))
  const tasks =
    command.tasksFile === undefined
      ? undefined
      : readText(io.cwd, command.tasksFile, '--tasks-file')
  const fromStdin = command.inputs.get('prompt_file') === '-'
  const prompt = fromStdin ? await io.readStdin() : undefined
  if (fromStdin && !prompt?.trim()) {
    throw new UsageError('--prompt-file - read an empty prompt from standard input.')
  }
  return { key, ...(tasks !== undefined ? { tasks } : {}), ...(prompt ? { prompt } : {}) }
}

/** A file the command writes once the run is paid for: its folder must take it now. */
function checkWritable(path: string): void {
  try {
    accessSync(dirname(path), constants.W_OK)
  } catch {
    throw new UsageError(
      `--summary ${path}: its folder does not exist or cannot be written; nothing was started.`,
    )
  }
}

async function runStep(
  command: CommandLine,
  declared: Readonly<Record<string, DeclaredInput>>,
  io: CommandIo,
  ready: Preflight,
): Promise<number> {
  const world = commandWorld(io.env, io.cwd, command.project)
  const secrets = new Set<string>([ready.key])
  const inputs: InputSource = {
    get: (name) => inputValue(name, command, declared, io.env, ready),
    mask: (secret) => secrets.add(secret),
    world,
    nameOf: (input, value) => (value === undefined ? flagOf(input) : `${flagOf(input)} ${value}`),
  }
  const mergeRequest = MergeRequestJob.open(io.env, {
    key: command.inputs.get('name'),
    steer: command.inputs.get('previous_run') === 'steer',
    say: io.stderr,
  })
  if (mergeRequest?.steering) inputs.steering = mergeRequest.steering
  if (io.env.GITLAB_TOKEN) secrets.add(io.env.GITLAB_TOKEN.trim())
  mergeRequest?.started()
  let exitAsked: (code: number) => void = () => undefined
  const stopped = new Promise<'stopped'>((settle) => (exitAsked = () => settle('stopped')))
  const port = new CommandStepIo(io.stderr, secrets, io.process, (code) => exitAsked(code), {
    onOutput: (name, value) => {
      if (name === 'run_id' && value) mergeRequest?.runSeen(value)
    },
  })
  const signals = watchSignals(io, port)
  // The engine asks to end the process past a signal's cancel budget (a create still out):
  // the door stops waiting for the step, and cleans up after it all the same.
  const ended = await Promise.race([runMainStep(port, inputs), stopped])
  signals.cleaningUp()
  await ownRuns(port, inputs)
  const end = ended === 'stopped' ? { hadRun: true } : ended
  const afterwards = writeSummary(command, io, port.summary)
  signals.stop()
  const answer = { ...end, outputs: port.outputs, failure: port.failure, afterwards }
  const code = exitCodeOf({ ...answer, ...(signals.received ? { signal: signals.received } : {}) })
  if (afterwards) io.stderr(`error: ${afterwards}\n`)
  io.stdout(
    command.json
      ? `${JSON.stringify(answerJson({ ...answer, signal: signals.received }, code), null, 2)}\n`
      : plainSummary(port.summary),
  )
  // A create still unanswered keeps a socket open for up to its deadline: end now, its run
  // cancelled (the stdio of a CI's pipes and files is written synchronously on Linux and macOS).
  // After the outputs: a slow GitLab never holds them, nor the exit past a signal's grace.
  await mergeRequest?.finish(port.summary, port.outputs, signals.received !== undefined)
  if (ended === 'stopped') io.process.exit(code)
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

/** Writes `--summary`'s file; says what went wrong (a full disk) instead of throwing. */
function writeSummary(command: CommandLine, io: CommandIo, summary: string): string | undefined {
  if (command.summaryFile === undefined) return undefined
  const path = resolve(io.cwd, command.summaryFile)
  try {
    writeFileSync(path, summary)
    return undefined
  } catch (error) {
    return `--summary ${path} could not be written (${errorMessage(error)}); the run's outcome is in the outputs.`
  }
}

/** A flag's value, else action.yml's default; the key from the environment only. */
function inputValue(
  name: string,
  command: CommandLine,
  declared: Readonly<Record<string, DeclaredInput>>,
  env: NodeJS.ProcessEnv,
  ready: Preflight,
): string {
  if (name === 'api_key') return ready.key
  if (name === 'tasks' && ready.tasks !== undefined) return ready.tasks.trim()
  // `--prompt-file -`: the prompt came from standard input.
  if (name === 'prompt' && ready.prompt !== undefined) return ready.prompt.trim()
  if (name === 'prompt_file' && ready.prompt !== undefined) return ''
  const given = command.inputs.get(name)
  if (given !== undefined) return given.trim()
  if (name === 'github_token') return env.GITHUB_TOKEN ?? ''
  const fallback = declared[name]?.default
  return typeof fallback === 'string' ? fallback : ''
}

/** action.yml's inputs. The YAML parser loads only here: a step of the Action never pays for it. */
async function readDeclaredInputs(action: URL): Promise<CommandManifest> {
  // The bundle's manifest, written by the build from action.yml and package.json: JSON, so a
  // start of the command does not pay for a YAML parser (about 40 ms of its cold start).
  if (action.pathname.endsWith('.json')) {
    return JSON.parse(readFileSync(action, 'utf8')) as CommandManifest
  }
  const { parse } = await import('yaml')
  const yml = parse(readFileSync(action, 'utf8')) as { inputs?: Record<string, DeclaredInput> }
  return { inputs: yml.inputs ?? {}, version: packageVersion(action) }
}

/** The package's version, from the package.json beside action.yml (in a checkout). */
function packageVersion(actionYml: URL): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('package.json', actionYml), 'utf8')) as {
      version?: unknown
    }
    return typeof manifest.version === 'string' ? manifest.version : 'unknown'
  } catch {
    return 'unknown'
  }
}

/**
 * SIGINT and SIGTERM. While the engine listens, it cancels every run it started and ends the
 * step; the door remembers which came, for the exit code. Before it listens no run exists yet,
 * and the command ends at once, its JSON printed. Once the step ended, the door is cleaning up
 * after it: a signal then is remembered, and the cleanup goes on to its end.
 */
function watchSignals(
  io: CommandIo,
  port: CommandStepIo,
): { received?: 'SIGINT' | 'SIGTERM'; cleaningUp(): void; stop(): void } {
  let cleaningUp = false
  const state: { received?: 'SIGINT' | 'SIGTERM'; cleaningUp(): void; stop(): void } = {
    cleaningUp: () => (cleaningUp = true),
    stop: () => undefined,
  }
  const host = io.process
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = () => {
      state.received ??= name
      if (cleaningUp) {
        port.info(`Received ${name}: still cancelling what the command started; then it exits.`)
        return
      }
      if (host.listenerCount(name) > 1) return
      // The engine is not listening: nothing has been created.
      const answer = { outputs: port.outputs, failure: undefined, hadRun: false, signal: name }
      io.stdout(`${JSON.stringify(answerJson(answer, EXIT[name]), null, 2)}\n`)
      host.exit(EXIT[name])
    }
    host.on(name, handler)
    return [name, handler] as const
  })
  state.stop = () => {
    for (const [name, handler] of handlers) host.off(name, handler)
  }
  return state
}

/** The command's io over the process its entry hands in: the one place the command reads it. */
export function commandIo(
  host: CommandProcess & Pick<NodeJS.Process, 'env' | 'cwd' | 'stdin' | 'stdout' | 'stderr'>,
): CommandIo {
  return {
    env: host.env,
    cwd: host.cwd(),
    process: host,
    stderr: closableWriter(host.stderr),
    stdout: closableWriter(host.stdout),
    readStdin: async () => {
      let text = ''
      for await (const chunk of host.stdin) text += String(chunk)
      return text
    },
  }
}

/**
 * Writes to a stream that a reader may close early (`| head`): an EPIPE ends the writing, never
 * the command, which goes on to cancel or finish its runs and exit with its own code.
 */
function closableWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let open = true
  stream.on('error', () => {
    open = false
  })
  return (text) => {
    if (open && !stream.destroyed) stream.write(text)
  }
}
