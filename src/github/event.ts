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

/** The pull request's head as the event delivered it (pull_request events only). */
export function eventHeadSha(payload: EventPayload | undefined): string | undefined {
  const sha = payload?.pull_request?.head?.sha
  return typeof sha === 'string' && SHA.test(sha) ? sha : undefined
}

/**
 * The pull request a run this step continues made (`continue_from: pull_request`): the event's
 * own, else the first of a workflow_run's or check_suite's (a failed check on its head).
 */
export function eventMadeChange(payload: EventPayload | undefined): number | undefined {
  const own = eventPullRequest(payload)
  if (own !== undefined) return own
  const listed = payload?.workflow_run?.pull_requests ?? payload?.check_suite?.pull_requests
  const first = Array.isArray(listed) ? listed[0]?.number : undefined
  return typeof first === 'number' && Number.isSafeInteger(first) && first > 0 ? first : undefined
}

/** The pull request the event is about: its number, when the thread is a pull request. */
export function eventPullRequest(payload: EventPayload | undefined): number | undefined {
  if (typeof payload?.pull_request?.number === 'number') return payload.pull_request.number
  if (payload?.issue?.pull_request && typeof payload.issue.number === 'number') {
    return payload.issue.number
  }
  return undefined
}
