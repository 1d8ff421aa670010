import type { GitHubClient } from './client.ts'
import { safeForLog } from '../text/log.ts'
import { GITHUB_CALL_DEADLINE_MS, GITHUB_LIMITS } from '../timing.ts'
import { errorMessage } from '../text/plain.ts'

export type Octokit = GitHubClient

/** Who writes comments with GITHUB_TOKEN; GET /user is closed to that token. */
export const ACTIONS_BOT = 'github-actions[bot]'

/** Loads the GitHub client only now: most steps never need it. */
export async function loadOctokit(token: string, apiUrl: string | undefined): Promise<Octokit> {
  const { createOctokit } = await import('./client.ts')
  return createOctokit(token, apiUrl || 'https://api.github.com')
}

/** Request options that give one GitHub call its deadline. */
export function withDeadline(deadlineMs = GITHUB_CALL_DEADLINE_MS): {
  request: { signal: AbortSignal }
} {
  // AbortSignal.timeout takes whole, non-negative milliseconds: a share of a deadline is neither.
  return { request: { signal: AbortSignal.timeout(Math.max(0, Math.floor(deadlineMs))) } }
}

/** One call's deadline, shared by its attempts (and pages). */
export type Deadline = ReturnType<typeof withDeadline>

/**
 * Whether a failed call may succeed if made again: GitHub answered 5xx, or the connection
 * broke (octokit calls that a 500 without an answer). A deadline that passed is not: GitHub
 * is not answering, and asking again would hold the step.
 */
export function isTransient(error: unknown): boolean {
  const { status, name, cause } = error as { status?: number; name?: string; cause?: unknown }
  const causeName = (cause as { name?: string } | undefined)?.name
  if ([name, causeName].some((n) => n === 'TimeoutError' || n === 'AbortError')) return false
  return typeof status === 'number' && status >= 500 && status <= 599
}

/** A call that failed with a transient error on every attempt it had time for. */
export class TransientFailure extends Error {
  readonly status: number | undefined
  readonly last: unknown
  readonly attempts: number
  constructor(last: unknown, attempts: number) {
    super(errorMessage(last))
    this.name = 'TransientFailure'
    this.last = last
    this.attempts = attempts
    this.status = (last as { status?: number }).status
  }

  /** Whether GitHub answered at all (a 5xx), or the connection broke. */
  get answered(): boolean {
    return (this.last as { response?: unknown }).response !== undefined
  }
}

export interface RetryOptions<T> {
  /**
   * For a write whose answer may be lost after it took effect: asked after each transient
   * failure, it finds what the write made (a result) or says it made nothing (undefined).
   * A write whose effect cannot be told is never sent again: that would make it twice.
   */
  tookEffect?: (deadline: Deadline) => Promise<T | undefined>
  pausesMs?: readonly number[]
  deadlineMs?: number
}

/**
 * Makes a GitHub call, and again after a transient failure, with pauses. Every attempt
 * shares one deadline. Rethrows anything else at once; after the last attempt, a
 * TransientFailure that says how many were made.
 */
export async function withRetries<T>(
  call: (deadline: Deadline) => Promise<T>,
  options: RetryOptions<T> = {},
): Promise<T> {
  const { pausesMs = GITHUB_LIMITS.transientPausesMs, deadlineMs = GITHUB_CALL_DEADLINE_MS } =
    options
  const deadline = withDeadline(deadlineMs)
  const endsAt = Date.now() + deadlineMs
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(deadline)
    } catch (error) {
      if (!isTransient(error)) throw error
      if (options.tookEffect) {
        const made = await options.tookEffect(deadline).catch(() => {
          throw new TransientFailure(error, attempt)
        })
        if (made !== undefined) return made
      }
      const pause = pausesMs[attempt - 1]
      if (pause === undefined || Date.now() + pause >= endsAt) {
        throw new TransientFailure(error, attempt)
      }
      await new Promise((resolve) => setTimeout(resolve, pause))
    }
  }
}

/**
 * Why a write failed, named: GitHub failing on every attempt, or a 403 (a token without
 * the permission, which `permission` names). Empty for anything else; the reason says it.
 */
export function failureHint(error: unknown, permission: string): string {
  if (error instanceof TransientFailure) {
    const times = error.attempts === 1 ? 'once' : `on each of ${error.attempts} attempts`
    return error.answered
      ? ` GitHub failed (HTTP ${error.status}) ${times}.`
      : ` The connection to GitHub failed ${times}.`
  }
  return (error as { status?: number }).status === 403 ? ` ${permission}` : ''
}

/** The login the token writes as. */
export async function tokenIdentity(octokit: Octokit, deadline = withDeadline()): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated(deadline)
    return data.login
  } catch (error) {
    if ((error as { status?: number }).status === 403) return ACTIONS_BOT
    throw error
  }
}

/** Why a GitHub call failed, safe for the log. */
export function reasonOf(error: unknown): string {
  return safeForLog(errorMessage(error), 500)
}
