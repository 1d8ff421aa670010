import { readFileSync } from 'node:fs'

/** The pull request or issue whose conversation this workflow run belongs to. */
export interface Thread {
  owner: string
  repo: string
  issueNumber: number
}

export type ThreadLookup = { kind: 'found'; thread: Thread } | { kind: 'none'; reason: string }

const THREAD_EVENTS = ['pull_request', 'pull_request_target', 'issues', 'issue_comment'] as const

interface EventPayload {
  pull_request?: { number?: number }
  issue?: { number?: number }
}

/** Finds the triggering thread from the runner's event, or says why there is none. */
export function threadFromEvent(env: NodeJS.ProcessEnv): ThreadLookup {
  const event = env.GITHUB_EVENT_NAME ?? ''
  if (!(THREAD_EVENTS as readonly string[]).includes(event)) {
    return {
      kind: 'none',
      reason: `the ${event || 'unknown'} event has no pull request or issue to comment on (only ${THREAD_EVENTS.join(', ')} do)`,
    }
  }
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/')
  let payload: EventPayload
  try {
    payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH ?? '', 'utf8')) as EventPayload
  } catch {
    return { kind: 'none', reason: 'the event payload (GITHUB_EVENT_PATH) cannot be read' }
  }
  const issueNumber = payload.pull_request?.number ?? payload.issue?.number
  if (!owner || !repo || typeof issueNumber !== 'number') {
    return { kind: 'none', reason: `the ${event} event names no pull request or issue` }
  }
  return { kind: 'found', thread: { owner, repo, issueNumber } }
}
