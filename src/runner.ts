import * as core from '@actions/core'
import { randomUUID } from 'node:crypto'
import { appendFileSync, readFileSync } from 'node:fs'
import { appendFile } from 'node:fs/promises'
import { WORKFLOW_WORDS } from './door-words.ts'
import { EOL, tmpdir } from 'node:os'
import type { InputSource, StepIo } from './step-io.ts'
import type { EventPayload, World } from './world.ts'

/**
 * What the Action's door takes of Node's process: its variables, its directory, its signals
 * and its exit. Only an entry (src/entries/, dist/main.js …) reads `process`, and hands it here.
 */
export type RunnerProcess = Pick<NodeJS.Process, 'env' | 'cwd' | 'on' | 'off' | 'exit'>

/** The world and the port of one of the Action's steps, read once from the process handed in. */
export function runnerDoor(host: RunnerProcess): { io: StepIo; inputs: InputSource } {
  const io = runnerIo(host)
  return { io, inputs: runnerInputs(readRunnerWorld(host.env, host.cwd()), io, host.env) }
}

/**
 * The GitHub Actions runner's world, read once by each of the Action's steps
 * (main, post, reconcile), as `@actions/github`'s Context reads it, and handed
 * down: with the runner's port below, the one place that reads the runner's
 * variables and its event file, writes its file commands, or listens for signals.
 * `cwd` is where the inputs' paths start when the runner gives no workspace.
 */
export function readRunnerWorld(env: NodeJS.ProcessEnv, cwd: string): World {
  return {
    forge: 'github',
    project: env.GITHUB_REPOSITORY || undefined,
    repository: env.GITHUB_REPOSITORY,
    serverUrl: env.GITHUB_SERVER_URL,
    apiUrl: env.GITHUB_API_URL,
    workflow: env.GITHUB_WORKFLOW,
    runId: env.GITHUB_RUN_ID,
    runAttempt: env.GITHUB_RUN_ATTEMPT,
    job: env.GITHUB_JOB,
    action: env.GITHUB_ACTION,
    sha: env.GITHUB_SHA,
    eventName: env.GITHUB_EVENT_NAME,
    event: readEventPayload(env.GITHUB_EVENT_PATH),
    workspace: env.GITHUB_WORKSPACE || cwd,
    runnerTemp: env.RUNNER_TEMP || tmpdir(),
  }
}

/** The event's payload, or undefined when there is none to read. */
function readEventPayload(path: string | undefined): EventPayload | undefined {
  if (!path) return undefined
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'))
    return typeof parsed === 'object' && parsed !== null ? (parsed as EventPayload) : undefined
  } catch {
    return undefined
  }
}

/**
 * What the runner sends when a workflow is cancelled: SIGINT then SIGTERM on
 * Linux and macOS; Ctrl-C and Ctrl-Break (SIGINT, SIGBREAK) on Windows.
 */
const TERMINATION_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGBREAK'] as const

/**
 * Listens to `host` for termination; the handler must end the process itself. Returns the
 * unsubscribe.
 */
export function onTerminationSignal(
  host: Pick<RunnerProcess, 'on' | 'off'>,
  handler: (signal: NodeJS.Signals) => void,
): () => void {
  for (const signal of TERMINATION_SIGNALS) host.on(signal, handler)
  return () => {
    for (const signal of TERMINATION_SIGNALS) host.off(signal, handler)
  }
}

/**
 * The runner's inputs (`INPUT_*` of the process handed in, trimmed, as @actions/core reads
 * them), for a step in `world`; a secret is masked through `io`.
 */
function runnerInputs(world: World, io: StepIo, env: NodeJS.ProcessEnv): InputSource {
  const get = (name: string) => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim()
  return { get, mask: (secret) => io.setSecret(secret), world }
}

/**
 * The runner's port: workflow commands on stdout (@actions/core's); the file commands
 * (GITHUB_OUTPUT, GITHUB_STATE, GITHUB_STEP_SUMMARY) and STATE_* for the post step, at the
 * paths the process handed in names; its exit code and signals.
 */
function runnerIo(host: Pick<RunnerProcess, 'env' | 'on' | 'off' | 'exit'>): StepIo {
  const { env } = host
  return {
    debug: (message) => core.debug(message),
    info: (message) => core.info(message),
    warning: (message) => core.warning(message),
    error: (message) => core.error(message),
    notice: (message, properties) => core.notice(message, properties),
    setOutput: (name, value) => {
      const file = env.GITHUB_OUTPUT
      if (file) keyValueCommand(file, name, value)
      else core.setOutput(name, value)
    },
    setFailed: (message) => core.setFailed(message),
    appendSummary: (markdown) => appendSummary(env.GITHUB_STEP_SUMMARY, markdown),
    saveState: (name, value) => {
      const file = env.GITHUB_STATE
      if (file) keyValueCommand(file, name, value)
      else core.saveState(name, value)
    },
    getState: (name) => env[`STATE_${name}`] ?? '',
    setSecret: (secret) => core.setSecret(secret),
    onTerminationSignal: (handler) => onTerminationSignal(host, handler),
    exit: (code) => host.exit(code),
    words: WORKFLOW_WORDS,
  }
}

/**
 * A file command (`name<<delimiter`, the value, the delimiter), as the runner reads it, appended
 * to `file`, which the runner made for the step. The delimiter is new for each value.
 */
function keyValueCommand(file: string, name: string, value: string): void {
  const delimiter = `ghadelimiter_${randomUUID()}`
  appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`, 'utf8')
}

/** Markdown appended to the job summary, at the path the runner gave the step. */
async function appendSummary(file: string | undefined, markdown: string): Promise<void> {
  if (!file) throw new Error('the runner gave the step no job summary file (GITHUB_STEP_SUMMARY)')
  await appendFile(file, `${markdown}${EOL}`, 'utf8')
}
