/**
 * Reads what GitHub says of a campaign's pull requests (v1.5, "Tracking"): per pull request its
 * state, and for an open one its head's checks and its reviews; three requests at most each, a
 * few pull requests at a time, all within one deadline. A pull request GitHub does not answer
 * for is "state unknown", with why; a rate limit stops the reading and says so.
 */
import {
  checksOf,
  pullStateOf,
  reviewOf,
  type PullAddress,
  type PullStatus,
  type PullUnknown,
} from '../model/pull-status.ts'
import { eachAtMost } from '../at-most.ts'
import { GITHUB_CALL_DEADLINE_MS } from '../timing.ts'
import { withDeadline, reasonOf, type Octokit } from './octokit.ts'

/** Pull requests read at once. */
const PARALLEL = 8

/** What reading them asks of GitHub's client. */
export type PullReader = Pick<Octokit, 'rest'>

/** Each pull request's status (or why it is unknown), by its URL. */
export async function readPullStatuses(
  octokit: PullReader,
  pulls: readonly PullAddress[],
  deadline: number,
  options: { now?: () => number; stateOnly?: boolean } = {},
): Promise<Map<string, PullStatus | PullUnknown>> {
  const { now = Date.now, stateOnly = false } = options
  const statuses = new Map<string, PullStatus | PullUnknown>()
  let stopped: string | undefined
  await eachAtMost(PARALLEL, pulls, async (pull) => {
    const left = deadline - now()
    if (stopped || left <= 0) {
      statuses.set(pull.url, { unknown: stopped ?? 'the report ran out of time to read it' })
      return
    }
    try {
      statuses.set(
        pull.url,
        await readOne(octokit, pull, Math.min(left, GITHUB_CALL_DEADLINE_MS), stateOnly),
      )
    } catch (error) {
      const why = whyUnknown(error)
      if (isRateLimit(error)) stopped ??= why
      statuses.set(pull.url, { unknown: why })
    }
  })
  return statuses
}

async function readOne(
  octokit: PullReader,
  pull: PullAddress,
  ms: number,
  stateOnly: boolean,
): Promise<PullStatus> {
  const at = { owner: pull.owner, repo: pull.repo }
  const { data } = await octokit.rest.pulls.get({
    ...at,
    pull_number: pull.number,
    ...withDeadline(ms),
  })
  const state = pullStateOf(data)
  const dates = {
    createdAt: data.created_at,
    mergedAt: data.merged_at ?? '',
    closedAt: data.closed_at ?? '',
  }
  // A merged or closed pull request's checks and review are history: not worth two requests.
  if (state === 'merged' || state === 'closed' || stateOnly) {
    return { state, checks: undefined, review: undefined, ...dates }
  }
  const [checks, reviews] = await Promise.all([
    octokit.rest.checks.listForRef({
      ...at,
      ref: data.head.sha,
      filter: 'latest',
      per_page: 100,
      ...withDeadline(ms),
    }),
    octokit.rest.pulls.listReviews({
      ...at,
      pull_number: pull.number,
      per_page: 100,
      ...withDeadline(ms),
    }),
  ])
  return {
    state,
    checks: checksOf(checks.data.check_runs),
    review: reviewOf(reviews.data),
    ...dates,
  }
}

/** GitHub's rate limit, primary (none left) or secondary (a `retry-after`, or its message). */
function isRateLimit(error: unknown): boolean {
  const { status, message, response } = error as {
    status?: number
    message?: string
    response?: { headers?: Record<string, string | undefined> }
  }
  if (status === 429) return true
  const headers = response?.headers ?? {}
  return (
    status === 403 &&
    (headers['x-ratelimit-remaining'] === '0' ||
      headers['retry-after'] !== undefined ||
      /rate limit/i.test(message ?? ''))
  )
}

/** Why a pull request's state is unknown, in words for its table cell. */
function whyUnknown(error: unknown): string {
  if (isRateLimit(error)) return "GitHub's rate limit was reached"
  const status = (error as { status?: number }).status
  if (status === 404 || status === 401 || status === 403) {
    return 'github_token cannot read it'
  }
  return `GitHub did not answer (${reasonOf(error)})`
}
