import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { EventPayload, World } from './world.ts'

/**
 * The GitHub Actions runner's world, read once by each of the Action's steps
 * (main, post, reconcile), as `@actions/github`'s Context reads it, and handed
 * down: with the signals below, the one place that reads the runner's
 * variables and its event file, or listens to the process.
 */
export function readRunnerWorld(env: NodeJS.ProcessEnv = process.env): World {
  return {
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
    workspace: env.GITHUB_WORKSPACE || process.cwd(),
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

/** Listens for termination; the handler must end the process itself. Returns the unsubscribe. */
export function onTerminationSignal(handler: (signal: NodeJS.Signals) => void): () => void {
  for (const signal of TERMINATION_SIGNALS) process.on(signal, handler)
  return () => {
    for (const signal of TERMINATION_SIGNALS) process.off(signal, handler)
  }
}
