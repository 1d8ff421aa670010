import type { getOctokit } from '@actions/github'
import { safeForLog } from '../text/log.ts'

export type Octokit = ReturnType<typeof getOctokit>

/** Who writes comments with GITHUB_TOKEN; GET /user is closed to that token. */
export const ACTIONS_BOT = 'github-actions[bot]'

/** The longest a single GitHub call may take before the action gives up on it. */
export const GITHUB_CALL_DEADLINE_MS = 8_000

/**
 * GitHub can never hold the step: each call has a deadline of seconds (see
 * octokit.ts), and the writes still queued when the run has ended get a bounded
 * time, so the step ends about 15 s after the run's end even when GitHub stops answering.
 */
export const GITHUB_LIMITS = {
  /** How long `settled()` waits for the comment writes still on their way. */
  settleMs: 15_000,
  /** The longest secondary-rate-limit hint obeyed before the one retry. */
  maxRetryAfterMs: 3_000,
} as const

/** Loads the GitHub client only now: most steps never need it. */
export async function loadOctokit(token: string, env: NodeJS.ProcessEnv): Promise<Octokit> {
  const { getOctokit } = await import('@actions/github')
  return getOctokit(token, { baseUrl: env.GITHUB_API_URL || 'https://api.github.com' })
}

/** Request options that give one GitHub call its deadline. */
export function withDeadline(deadlineMs = GITHUB_CALL_DEADLINE_MS): {
  request: { signal: AbortSignal }
} {
  return { request: { signal: AbortSignal.timeout(deadlineMs) } }
}

/** The login the token writes as. */
export async function tokenIdentity(octokit: Octokit): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated(withDeadline())
    return data.login
  } catch (error) {
    if ((error as { status?: number }).status === 403) return ACTIONS_BOT
    throw error
  }
}

/** Why a GitHub call failed, safe for the log. */
export function reasonOf(error: unknown): string {
  return safeForLog(error instanceof Error ? error.message : String(error), 500)
}
