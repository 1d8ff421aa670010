import type { EventPayload } from '../world.ts'

/** Who wrote what triggered the workflow: a comment's or review's author, else the sender. */
export interface EventAuthor {
  login: string
  isBot: boolean
  /** What they wrote or did, for the log. */
  what: 'comment' | 'review' | 'event'
}

export function eventAuthorOf(payload: EventPayload | undefined): EventAuthor | undefined {
  const [user, what] = payload?.comment
    ? [payload.comment.user, 'comment' as const]
    : payload?.review
      ? [payload.review.user, 'review' as const]
      : [payload?.sender, 'event' as const]
  const login = user?.login
  if (typeof login !== 'string' || login === '') return undefined
  return { login, isBot: user?.type === 'Bot' || login.endsWith('[bot]'), what }
}

const SHA = /^[0-9a-f]{40}$/

/**
 * The head the event delivered: a pull request event's head, else the commit a check ran on
 * (`workflow_run`, `check_suite`, `check_run`: the head of the pull request it names, which a CI
 * fix works on), so that no GitHub request is needed to learn it.
 */
export function eventHeadSha(payload: EventPayload | undefined): string | undefined {
  const sha =
    payload?.pull_request?.head?.sha ??
    payload?.workflow_run?.head_sha ??
    payload?.check_suite?.head_sha ??
    payload?.check_run?.head_sha
  return typeof sha === 'string' && SHA.test(sha) ? sha : undefined
}

/** The pull request or issue an event names: the one reading of a step's thread. */
export interface EventThread {
  readonly number: number
  /** Whether the thread is a pull request (an issue's is not). */
  readonly pullRequest: boolean
}

/**
 * The thread an event names, the same for every event that names one: its own pull request
 * (`pull_request`, `pull_request_target`, `pull_request_review`, `pull_request_review_comment`),
 * its issue (`issues`, `issue_comment`, a pull request's when the issue is one), else the first
 * pull request of a check's head (`workflow_run`, `check_suite`, `check_run`: a CI fix's, which
 * `cancel_only` and `pr_credit_budget` find by it). A check's pull request of another repository
 * (GitHub lists those of a fork's upstream too) is not this project's thread.
 */
export function eventThread(
  payload: EventPayload | undefined,
  repository?: string,
): EventThread | undefined {
  const own = payload?.pull_request?.number
  if (isNumber(own)) return { number: own, pullRequest: true }
  const issue = payload?.issue?.number
  if (isNumber(issue)) return { number: issue, pullRequest: Boolean(payload?.issue?.pull_request) }
  const listed =
    payload?.workflow_run?.pull_requests ??
    payload?.check_suite?.pull_requests ??
    payload?.check_run?.pull_requests
  if (!Array.isArray(listed)) return undefined
  const ofProject = listed.find(
    (pull) => isNumber(pull?.number) && ofRepository(pull?.base?.repo?.url, repository),
  )
  return ofProject?.number === undefined
    ? undefined
    : { number: ofProject.number, pullRequest: true }
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

/** Whether a listed pull request's base (its API address, when given) is this repository. */
function ofRepository(url: string | undefined, repository: string | undefined): boolean {
  if (typeof url !== 'string' || !repository) return true
  return url.toLowerCase().endsWith(`/repos/${repository.toLowerCase()}`)
}
