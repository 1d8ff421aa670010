import type { getOctokit } from '@actions/github'
import { safeForLog } from '../text/log.ts'
import { GITHUB_CALL_DEADLINE_MS } from '../timing.ts'
import { errorMessage } from '../text/plain.ts'

export type Octokit = ReturnType<typeof getOctokit>

/** Who writes comments with GITHUB_TOKEN; GET /user is closed to that token. */
export const ACTIONS_BOT = 'github-actions[bot]'

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
  return safeForLog(errorMessage(error), 500)
}
