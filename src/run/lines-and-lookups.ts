import type { AgentRunsClient } from '../api/client.ts'
import { ApiStatusError } from '../api/errors.ts'
import type { CreateRunRequest, RunItem } from '../api/types.ts'
import type { Conversation } from '../agent/conversation.ts'
import type { InvalidOutput } from '../model/step.ts'
import type { WatchVerdict } from './watch.ts'
import { errorMessage } from '../text/plain.ts'
import type { Log } from '../log.ts'
import { meaningOf } from '../model/states.ts'
import { safeForLog } from '../text/log.ts'
import { SUPERSEDED_LOOKUP_TIMEOUT_MS } from '../timing.ts'
import { findSupersededRun, type RunTag } from './create.ts'

/** Parts of a run's life (lifecycle.ts) that need none of its state: its lines and lookups. */

/** Looks at each reading of a run still on its way (see RunWatcher), and may end its wait. */
export interface ReadingWatch {
  /** `deadline` (on the `now` clock) bounds every read it makes, as it bounds the polls. */
  afterPoll(
    run: RunItem,
    stateChanged: boolean,
    signal: AbortSignal,
    deadline: number,
  ): Promise<WatchVerdict>
  msUntilHeartbeat(): number
}

/** What one look at a run's document found: it validates, a correction is due, or none is left. */
export type DocumentCheck = { conversation?: Conversation } & (
  | { kind: 'valid'; document: unknown }
  /**
   * Ask the run for a corrected document with `message`, within `remainingMs`; `input` names the
   * schema it did not validate against, should the run refuse.
   */
  | { kind: 'correct'; message: string; remainingMs: number; input: InvalidOutput['input'] }
  | { kind: 'invalid'; invalidOutput: InvalidOutput }
)

/**
 * A create the service refused as a request it will not take (400, 404 or 422: nothing made)
 * that named a harness or a worker host: the one line says which the service refused, as the
 * inputs name them, then the service's own words and trace. Any other error (a 401's key, a
 * 402's credits) is left as it is, with its own hint.
 */
export function surfaceRefusal(error: unknown, request: CreateRunRequest): unknown {
  const { harness, worker_host: workerHost } = request.config ?? {}
  if (!(error instanceof ApiStatusError) || ![400, 404, 422].includes(error.status)) return error
  if (!harness?.type && !workerHost) return error
  const asked = [
    ...(harness?.type ? [`harness: ${harness.type}`] : []),
    ...(workerHost ? [`worker_host: ${workerHost}`] : []),
  ].join(', ')
  return new Error(
    `The service refused the run (${safeForLog(asked, 300)}): ${safeForLog(errorMessage(error), 1000)}`,
    { cause: error },
  )
}

/** A re-run job says which run of the earlier attempt this one replaces. */
export async function noteSupersededRun(
  tag: RunTag,
  deps: {
    client: Pick<AgentRunsClient, 'listRuns'>
    now: () => number
    signal: AbortSignal
    log: Log
  },
): Promise<void> {
  const { client, now, signal, log } = deps
  // One quick request, no retries, no Retry-After: it must not eat the wait.
  const deadline = now() + SUPERSEDED_LOOKUP_TIMEOUT_MS
  const quick: Pick<AgentRunsClient, 'listRuns'> = {
    listRuns: (query) =>
      client.listRuns(query, {
        timeoutMs: SUPERSEDED_LOOKUP_TIMEOUT_MS,
        maxRetries: 0,
        deadline,
        signal,
      }),
  }
  try {
    const earlier = await findSupersededRun(tag, { client: quick })
    if (earlier) {
      log.info(
        `This attempt supersedes run ${safeForLog(earlier.run_id)} of the previous attempt (${safeForLog(earlier.state, 200)}).`,
      )
    }
  } catch (error) {
    log.debug(`Could not look up the previous attempt's run: ${safeForLog(String(error))}`)
  }
}

/**
 * A run's new state, in one line. A watcher explains BLOCKED itself (what it waits for, how to
 * answer, what next); without one, BLOCKED is a warning.
 */
export function logStateChange(
  log: Log,
  subject: string,
  run: RunItem,
  { when, watched }: { when: string; watched: boolean },
): void {
  const state = safeForLog(run.state, 200)
  switch (meaningOf(run.state)) {
    case 'blocked':
      if (watched) return log.info(`${subject} is BLOCKED (${when}): it waits for a person.`)
      return log.warning(
        `${subject} is BLOCKED (${when}): it waits for a person to answer or approve in the session` +
          `${run.session_link ? ` (${safeForLog(run.session_link, 500)})` : ''}. Nothing will happen until someone does; this step waits until its timeout.`,
      )
    case 'unknown':
      return log.info(
        `${subject} is ${state} (${when}), a state this action does not know; waiting on.`,
      )
    case 'active':
    case 'succeeded':
    case 'failed':
      return log.info(`${subject} is ${state} (${when}).`)
  }
}
