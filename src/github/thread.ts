import type { EventPayload } from '../world.ts'
import { eventThread } from './event.ts'

/** The pull request or issue whose conversation this workflow run belongs to. */
export interface Thread {
  owner: string
  repo: string
  issueNumber: number
}

export type ThreadLookup = { kind: 'found'; thread: Thread } | { kind: 'none'; reason: string }

const THREAD_EVENTS = [
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'issues',
  'issue_comment',
] as const

/** Pure: the triggering thread, from the event's name and payload, or why there is none. */
export function threadOf(
  eventName: string,
  payload: EventPayload | undefined,
  repository: { owner: string; repo: string } | undefined,
): ThreadLookup {
  if (!(THREAD_EVENTS as readonly string[]).includes(eventName)) {
    return {
      kind: 'none',
      reason: `the ${eventName || 'unknown'} event has no pull request or issue to comment on (only ${THREAD_EVENTS.join(', ')} do)`,
    }
  }
  if (!payload) {
    return { kind: 'none', reason: 'the event payload (GITHUB_EVENT_PATH) cannot be read' }
  }
  const issueNumber = eventThread(payload)?.number
  if (!repository || issueNumber === undefined) {
    return { kind: 'none', reason: `the ${eventName} event names no pull request or issue` }
  }
  return { kind: 'found', thread: { ...repository, issueNumber } }
}
