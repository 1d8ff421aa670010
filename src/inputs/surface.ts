import type { AgentConfig } from '../api/types.ts'
import { cut } from '../text/plain.ts'

/**
 * The inputs of the service's whole surface (contract v1.4): which agent works a run
 * (`harness`), where it runs (`worker_host`), and `continue_from`. Pure: run-target.ts and
 * main-step.ts read the values and hand them here, for one run and for each task.
 */

/** The agents a run may be worked by (`config.harness.type`); empty lets the service choose. */
export const HARNESSES = ['oz', 'claude', 'codex', 'gemini'] as const

/** What `continue_from` takes: empty, or `pull_request`. */
export const CONTINUE_FROM = ['pull_request'] as const
export type ContinueFrom = (typeof CONTINUE_FROM)[number]

/** A bad value: the input's name (as `harness` in a task's) and what is wrong. */
export interface SurfaceProblem {
  readonly input: string
  readonly message: string
}

/** A worker's host name: no spaces or control characters, at most 253 characters (a DNS name's). */
const WORKER_HOST = /^[^\s\p{Cc}]{1,253}$/u

/**
 * The `harness` and `worker_host` members of a run's config, or the problem with one; each
 * empty value is left out, so that the service chooses.
 */
export function surfaceConfig(
  values: { harness: string; workerHost: string },
  names: { harness: string; workerHost: string } = {
    harness: 'harness',
    workerHost: 'worker_host',
  },
): Pick<AgentConfig, 'harness' | 'worker_host'> | SurfaceProblem {
  const { harness, workerHost } = values
  if (harness && !(HARNESSES as readonly string[]).includes(harness)) {
    return {
      input: names.harness,
      message: `must be one of ${HARNESSES.join(', ')}, or empty to let the service choose; got ${JSON.stringify(cut(harness, 100))}.`,
    }
  }
  if (workerHost && !WORKER_HOST.test(workerHost)) {
    return {
      input: names.workerHost,
      message: `must name one worker host: up to 253 characters, no spaces or control characters; got ${JSON.stringify(cut(workerHost, 100))}.`,
    }
  }
  return {
    ...(harness ? { harness: { type: harness } } : {}),
    ...(workerHost ? { worker_host: workerHost } : {}),
  }
}

export function isProblem(value: object): value is SurfaceProblem {
  return 'input' in value && 'message' in value
}

/**
 * `continue_from`: undefined when empty; the problem with a value it does not take, or with an
 * input it cannot be combined with (`given` says which are given).
 */
export function readContinueFrom(
  value: string,
  given: { tasks: boolean; runId: boolean; continueRun: boolean; steer: boolean },
): ContinueFrom | SurfaceProblem | undefined {
  if (!value) return undefined
  if (!(CONTINUE_FROM as readonly string[]).includes(value)) {
    return {
      input: 'continue_from',
      message: `must be pull_request, or empty; got ${JSON.stringify(cut(value, 100))}.`,
    }
  }
  const clash = given.tasks
    ? 'tasks: a set starts one run per task'
    : given.runId
      ? 'run_id: run_id names the run to act on'
      : given.continueRun
        ? "continue_run: continue_run follows the run of this step's comment"
        : given.steer
          ? 'previous_run: steer: steer sends the work to the active run of its key'
          : undefined
  if (clash) {
    return {
      input: 'continue_from',
      message: `cannot be combined with ${clash}, while continue_from sends it to the run that made the pull request.`,
    }
  }
  return 'pull_request'
}
