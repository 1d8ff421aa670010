/**
 * The command line's door to the one engine: `cloud-agent-run`. It reads its world once (the
 * arguments, the environment, the working directory), hands the main step the inputs the
 * flags give, with action.yml's defaults, and answers for it with an exit code, the outputs
 * as JSON and the summary. The engine is the Action's own: only the door differs.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  ApiConnectionError,
  AuthenticationError,
  PermissionDeniedError,
  ApiStatusError,
} from './api/errors.ts'
import {
  flagOf,
  githubOnlyGiven,
  KEY_VARIABLE,
  parseCommandLine,
  usage,
  UsageError,
  type CommandLine,
  type DeclaredInput,
} from './cli/flags.ts'
import { outputsAsJson, plainSummary } from './cli/outputs.ts'
import { CommandStepIo } from './cli/step-io.ts'
import { commandWorld } from './cli/world.ts'
import { mergeRequestFrom, MergeRequestNote } from './gitlab/note.ts'
import { InputError, type InputSource } from './inputs.ts'
import { run as runMainStep } from './main.ts'
import { safeHttpUrl } from './text/markdown.ts'
import { errorMessage } from './text/plain.ts'

/** The command's exit codes (the contract's table). */
export const EXIT = {
  passed: 0,
  notPassed: 1,
  badInput: 2,
  unreachable: 3,
  SIGINT: 130,
  SIGTERM: 143,
} as const

/** Where the door writes and what it reads: the process's, or a test's. */
/** What the command takes of Node's process for its signals and its exit. */
export type CommandProcess = Pick<NodeJS.Process, 'on' | 'off' | 'listenerCount' | 'exit'>

export interface CommandIo {
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  /** The signals that cancel the command, and its exit: the process's, or a test's. */
  readonly process: CommandProcess
  /** The log and the messages for a person. */
  readonly stderr: (text: string) => void
  /** The JSON, or the summary as text. */
  readonly stdout: (text: string) => void
}

/**
 * Runs the command; resolves with its exit code. `actionYml` is the action's inputs file,
 * whose inputs are the flags.
 */
export async function runCli(
  args: readonly string[],
  actionYml: URL,
  io: CommandIo,
): Promise<number> {
  const declared = await readDeclaredInputs(actionYml)
  let command: CommandLine
  try {
    command = parseCommandLine(args, declared)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    io.stderr(`cloud-agent-run: ${error.message}\n`)
    return EXIT.badInput
  }
  if (command.help) {
    io.stdout(usage(declared))
    return EXIT.passed
  }
  if (command.version) {
    io.stdout(`cloud-agent-run ${packageVersion(actionYml)}\n`)
    return EXIT.passed
  }
  const onGitHub = io.env.GITHUB_ACTIONS === 'true'
  const refusal = badInput(command, io, onGitHub)
  if (refusal) {
    io.stderr(`cloud-agent-run: ${refusal}\n`)
    return EXIT.badInput
  }
  return await runStep(command, declared, io)
}

/** What is wrong with the command before any request, or undefined. */
function badInput(command: CommandLine, io: CommandIo, onGitHub: boolean): string | undefined {
  if (!io.env[KEY_VARIABLE]?.trim()) {
    return `${KEY_VARIABLE} is not set: export the Warp API key in it (a flag would show in the process list).`
  }
  const githubOnly = githubOnlyGiven(command.inputs)
  if (githubOnly.length > 0 && !onGitHub) {
    const names = githubOnly.map((name) => `--${name.replace(/_/g, '-')}`).join(', ')
    const one = githubOnly.length === 1
    return `${names} only ${one ? 'means' : 'mean'} something in a GitHub Actions workflow (${one ? 'it works' : 'they work'} on GitHub); outside one, leave ${one ? 'it' : 'them'} out.`
  }
  return undefined
}

async function runStep(
  command: CommandLine,
  declared: Readonly<Record<string, DeclaredInput>>,
  io: CommandIo,
): Promise<number> {
  let tasks: string | undefined
  if (command.tasksFile !== undefined) {
    try {
      tasks = readFileSync(resolve(io.cwd, command.tasksFile), 'utf8')
    } catch (error) {
      io.stderr(`cloud-agent-run: --tasks-file cannot be read: ${errorMessage(error)}\n`)
      return EXIT.badInput
    }
  }
  const world = commandWorld(io.env, io.cwd, command.project)
  const secrets = new Set<string>([io.env[KEY_VARIABLE]?.trim() ?? ''])
  const inputs: InputSource = {
    get: (name) => inputValue(name, command, declared, io.env, tasks),
    mask: (secret) => secrets.add(secret),
    world,
    nameOf: (input, value) => (value === undefined ? flagOf(input) : `${flagOf(input)} ${value}`),
  }
  const note = mergeRequestNote(command, io)
  if (io.env.GITLAB_TOKEN) secrets.add(io.env.GITLAB_TOKEN.trim())
  // Not awaited: GitLab never holds the run's start; the final note queues behind this one.
  void note?.upsert(`### ⏳ Cloud agent run: working\n\n${jobLink(io.env)}`)
  const port = new CommandStepIo(io.stderr, secrets, io.process)
  const signal = watchSignals(io.process)
  let end: Awaited<ReturnType<typeof runMainStep>>
  try {
    end = await runMainStep(port, inputs)
  } finally {
    signal.stop()
  }
  const { outputs, summary, failed } = port
  if (command.summaryFile !== undefined)
    writeFileSync(resolve(io.cwd, command.summaryFile), summary)
  await note?.upsert(`${summary.trim()}\n\n${jobLink(io.env)}`)
  io.stdout(
    command.json ? `${JSON.stringify(outputsAsJson(outputs), null, 2)}\n` : plainSummary(summary),
  )
  if (signal.received) return EXIT[signal.received]
  if (end.error instanceof InputError) return EXIT.badInput
  if (!end.hadRun && isUnreachable(end.error)) return EXIT.unreachable
  return failed ? EXIT.notPassed : EXIT.passed
}

/**
 * In a GitLab merge request pipeline with a token, the merge request's note for this key, kept
 * as the action keeps its pull-request comment; without a token, one line says so.
 */
function mergeRequestNote(command: CommandLine, io: CommandIo): MergeRequestNote | undefined {
  const found = mergeRequestFrom(io.env)
  if (!found) return undefined
  if (found.reason !== undefined) {
    io.stderr(`${found.reason}\n`)
    return undefined
  }
  const key = command.inputs.get('name') || io.env.CI_JOB_NAME || 'cloud-agent-run'
  const log = {
    info: (message: string) => io.stderr(`${message}\n`),
    warning: (message: string) => io.stderr(`warning: ${message}\n`),
  }
  return new MergeRequestNote(found.target, { key, log })
}

/** The CI job's page, when the CI names it (GitLab's `CI_JOB_URL`), as the note's last line. */
function jobLink(env: NodeJS.ProcessEnv): string {
  const url = safeHttpUrl(env.CI_JOB_URL)
  return url ? `[CI job](${url})` : ''
}

/** A flag's value, else action.yml's default; the key from the environment only. */
function inputValue(
  name: string,
  command: CommandLine,
  declared: Readonly<Record<string, DeclaredInput>>,
  env: NodeJS.ProcessEnv,
  tasks: string | undefined,
): string {
  if (name === 'api_key') return env[KEY_VARIABLE]?.trim() ?? ''
  if (name === 'tasks' && tasks !== undefined) return tasks.trim()
  const given = command.inputs.get(name)
  if (given !== undefined) return given.trim()
  if (name === 'github_token') return env.GITHUB_TOKEN ?? ''
  const fallback = declared[name]?.default
  return typeof fallback === 'string' ? fallback : ''
}

/** The service never answered, or refused the key: nothing was created. */
function isUnreachable(error: unknown): boolean {
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) return true
  if (error instanceof ApiStatusError) return false
  return error instanceof ApiConnectionError
}

/** action.yml's inputs. The YAML parser loads only here: a step of the Action never pays for it. */
async function readDeclaredInputs(actionYml: URL): Promise<Record<string, DeclaredInput>> {
  const { parse } = await import('yaml')
  const action = parse(readFileSync(actionYml, 'utf8')) as {
    inputs?: Record<string, DeclaredInput>
  }
  return action.inputs ?? {}
}

/** The package's version, from the package.json beside action.yml (in the package, and in a checkout). */
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
 * SIGINT and SIGTERM: the engine cancels every run it started and ends the step; the door only
 * remembers which came, for the exit code. Before the engine listens (nothing is created yet),
 * a signal ends the command at once.
 */
function watchSignals(host: CommandProcess): { received?: 'SIGINT' | 'SIGTERM'; stop(): void } {
  const state: { received?: 'SIGINT' | 'SIGTERM'; stop(): void } = { stop: () => undefined }
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = () => {
      state.received ??= name
      if (host.listenerCount(name) === 1) host.exit(EXIT[name])
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
  host: CommandProcess & Pick<NodeJS.Process, 'env' | 'cwd' | 'stdout' | 'stderr'>,
): CommandIo {
  return {
    env: host.env,
    cwd: host.cwd(),
    process: host,
    stderr: (text) => host.stderr.write(text),
    stdout: (text) => host.stdout.write(text),
  }
}
