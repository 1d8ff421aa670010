/**
 * What a forge says of a pull request a campaign's run opened (v1.5, "Tracking"): its state, its
 * head's checks and its review, each folded from the forge's lists by one rule. Pure.
 */

/** A pull request's state on its forge. */
export type PullState = 'draft' | 'open' | 'merged' | 'closed'
/** Its head's checks: any failed, any still going, all passed, or none at all. */
export type ChecksState = 'failing' | 'pending' | 'passing' | 'none'
/** Its reviews: the latest of each reviewer that approved or asked for changes. */
export type ReviewState = 'changes_requested' | 'approved' | 'none'

/** What the forge says of a pull request. */
export interface PullStatus {
  readonly state: PullState
  /** Read for an open (or draft) pull request only: a merged or closed one shows none. */
  readonly checks: ChecksState | undefined
  readonly review: ReviewState | undefined
  /** ISO 8601: when it was opened, merged, closed ('' for not yet). */
  readonly createdAt: string
  readonly mergedAt: string
  readonly closedAt: string
}

/** A pull request the forge was not asked about, or did not answer for, and why, in words. */
export interface PullUnknown {
  readonly unknown: string
}

/** A pull request of a GitHub repository, by its page's address. */
export interface PullAddress {
  readonly url: string
  readonly owner: string
  readonly repo: string
  readonly number: number
}

/**
 * The GitHub pull request at `url` (any host: GHES too): `/owner/repo/pull/7`. Undefined for a
 * GitLab merge request or anything else. Linear.
 */
export function pullAddressOf(url: string): PullAddress | undefined {
  let path: string
  try {
    path = new URL(url).pathname.replace(/\/+$/, '')
  } catch {
    return undefined
  }
  const match = /^\/([\w.-]+)\/([\w.-]+)\/pull\/([1-9]\d{0,8})$/.exec(path)
  if (!match?.[1] || !match[2] || !match[3]) return undefined
  return { url, owner: match[1], repo: match[2], number: Number(match[3]) }
}

/** The state of a pull request as GitHub answers it (`state`, `draft`, `merged_at`). */
export function pullStateOf(pull: {
  state?: string
  draft?: boolean
  merged_at?: string | null
}): PullState {
  if (pull.merged_at) return 'merged'
  if (pull.state === 'closed') return 'closed'
  return pull.draft ? 'draft' : 'open'
}

/** A conclusion that fails a check: what GitHub shows with a red cross. */
const FAILED = new Set(['failure', 'cancelled', 'timed_out', 'action_required', 'startup_failure'])

/** The head's checks from its check runs (the latest of each name): one failed fails them. */
export function checksOf(
  runs: readonly { status?: string | null; conclusion?: string | null }[],
): ChecksState {
  if (runs.length === 0) return 'none'
  if (runs.some((run) => FAILED.has(run.conclusion ?? ''))) return 'failing'
  if (runs.some((run) => run.status !== 'completed')) return 'pending'
  return 'passing'
}

/**
 * The review from a pull request's reviews, oldest first: each reviewer's latest that approved,
 * asked for changes or was dismissed counts (a comment changes nothing); one asking for changes
 * outweighs approvals.
 */
export function reviewOf(
  reviews: readonly { user?: { login?: string } | null; state?: string }[],
): ReviewState {
  const latest = new Map<string, string>()
  for (const review of reviews) {
    const who = review.user?.login ?? ''
    if (review.state === 'APPROVED' || review.state === 'CHANGES_REQUESTED') {
      latest.set(who, review.state)
    } else if (review.state === 'DISMISSED') {
      latest.delete(who)
    }
  }
  const states = [...latest.values()]
  if (states.includes('CHANGES_REQUESTED')) return 'changes_requested'
  return states.includes('APPROVED') ? 'approved' : 'none'
}
