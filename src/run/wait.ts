import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import { ApiStatusError, NotFoundError } from '../api/errors.ts'
import { isRefusal, isRetryable, retryAfterMs } from '../api/retry.ts'
import type { RunItem } from '../api/types.ts'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import type { Log } from '../log.ts'
import { nextPollDelayMs } from './schedule.ts'
import { POLL_FAILURE_BUDGET } from '../timing.ts'
import { isTerminal, meaningOf } from '../model/states.ts'
import type { WatchVerdict } from './watch.ts'
import { errorMessage } from '../text/plain.ts'

export interface WaitOptions {
  runId: string
  timeoutMs: number
  pollIntervalMs: number
  /** The last state already seen (e.g. from the create response), so it is not logged twice. */
  lastSeen?: RunItem
  /** A reading that predates what the step waits for (a terminal state from before a follow-up). */
  isStale?: (run: RunItem) => boolean
  /** Polls in a row that may fail (after the client's own retries) before the wait gives up. */
  failureBudget?: number
  /**
   * For a run just created: how long a 404 is read-after-write lag (the service
   * has not caught up with its own create), to be waited out, not "not found".
   */
  notFoundGraceMs?: number
}

export interface WaitDeps {
  /** Given the wait's deadline, on the `now` clock, so no poll or retry outlasts the timeout. */
  client: Pick<AgentRunsClient, 'getRun'>
  now: () => number
  sleep: Sleep
  signal: AbortSignal
  log: Log
  onRunSeen?: (run: RunItem) => void
  /** Looks at each reading of a run still on its way (see RunWatcher), and may end the wait. */
  watch?: {
    /** `deadline` (on the `now` clock) bounds every read it makes, as it bounds the polls. */
    afterPoll(
      run: RunItem,
      stateChanged: boolean,
      signal: AbortSignal,
      deadline: number,
    ): Promise<WatchVerdict>
    msUntilHeartbeat(): number
  }
}

export type WaitOutcome =
  | { kind: 'terminal'; run: RunItem; elapsedMs: number }
  | { kind: 'timed-out'; run: RunItem | undefined; elapsedMs: number }
  | { kind: 'interrupted'; run: RunItem | undefined; elapsedMs: number }
  /** The watcher ended the wait: past max_credits, or BLOCKED with on_blocked fail or pass. */
  | {
      kind: 'stopped'
      run: RunItem
      verdict: Exclude<WatchVerdict, { kind: 'continue' }>
      elapsedMs: number
    }

export class LostContactError extends Error {
  override name = 'LostContactError'
}

/** Polls a run until it is terminal, the timeout passes, or the signal aborts. */
export async function waitForRun(options: WaitOptions, deps: WaitDeps): Promise<WaitOutcome> {
  const { runId, timeoutMs, pollIntervalMs } = options
  const budget = options.failureBudget ?? POLL_FAILURE_BUDGET
  const startedAt = deps.now()
  const elapsed = () => deps.now() - startedAt
  let run = options.lastSeen
  let lastState = run?.state
  let lastLink = run?.session_link
  let failuresInARow = 0
  const deadline = startedAt + timeoutMs
  const notFoundGraceMs = options.notFoundGraceMs ?? 0
  let lagNoted = false
  /** The wait the service asked for (Retry-After) before the next poll, if longer than usual. */
  let askedDelayMs = 0

  while (true) {
    if (deps.signal.aborted) return { kind: 'interrupted', run, elapsedMs: elapsed() }
    if (run && isTerminal(run.state) && !options.isStale?.(run)) {
      return { kind: 'terminal', run, elapsedMs: elapsed() }
    }

    const remaining = timeoutMs - elapsed()
    if (remaining <= 0) return { kind: 'timed-out', run, elapsedMs: elapsed() }
    const delay = Math.max(nextPollDelayMs(elapsed(), pollIntervalMs), askedDelayMs)
    askedDelayMs = 0
    try {
      const untilHeartbeat = deps.watch?.msUntilHeartbeat() ?? Infinity
      await deps.sleep(Math.min(delay, remaining, untilHeartbeat), deps.signal)
    } catch {
      return { kind: 'interrupted', run, elapsedMs: elapsed() }
    }
    if (deps.signal.aborted) return { kind: 'interrupted', run, elapsedMs: elapsed() }

    try {
      run = await deps.client.getRun(runId, { signal: deps.signal, deadline })
      failuresInARow = 0
    } catch (error) {
      if (deps.signal.aborted) return { kind: 'interrupted', run, elapsedMs: elapsed() }
      // A poll cut short by the deadline is the timeout, not a failure of the service.
      if (elapsed() >= timeoutMs) return { kind: 'timed-out', run, elapsedMs: elapsed() }
      if (error instanceof NotFoundError && elapsed() < notFoundGraceMs) {
        if (!lagNoted) {
          deps.log.info(
            `Run ${safeForLog(runId)} is not visible yet (404 right after its create); polling on for up to ${formatDuration(notFoundGraceMs)}.`,
          )
          lagNoted = true
        }
        continue
      }
      // A refusal (429, 503 with Retry-After) is a live service asking for patience, not lost
      // contact: the next poll comes when it asked, or at the timeout, whichever is first.
      if (isRefusal(error) && error instanceof ApiStatusError) {
        askedDelayMs = retryAfterMs(error.headers, deps.now()) ?? pollIntervalMs
        deps.log.info(
          `The service refused the poll (${error.status}) and asked to wait ${formatDuration(askedDelayMs)}; polling again then, within the timeout.`,
        )
        continue
      }
      if (!isRetryable(error, 'idempotent')) throw error
      failuresInARow += 1
      const reason = safeForLog(errorMessage(error))
      if (failuresInARow >= budget) {
        throw new LostContactError(
          `Lost contact with the service: ${failuresInARow} polls in a row failed. Last error: ${reason}`,
          { cause: error },
        )
      }
      deps.log.warning(
        `Poll ${failuresInARow} of ${budget} allowed in a row failed: ${reason}. Waiting on.`,
      )
      continue
    }
    if (options.isStale?.(run)) continue
    const stateChanged = run.state !== lastState
    if (stateChanged) {
      logStateChange(run, elapsed(), deps.log, deps.watch !== undefined)
      deps.onRunSeen?.(run)
      lastState = run.state
      lastLink = run.session_link
    } else if (run.session_link !== lastLink) {
      // A session link that comes after the state changed is worth showing at once.
      deps.onRunSeen?.(run)
      lastLink = run.session_link
    }
    if (deps.watch && !isTerminal(run.state)) {
      const verdict = await deps.watch.afterPoll(run, stateChanged, deps.signal, deadline)
      if (verdict.kind !== 'continue') {
        return { kind: 'stopped', run, verdict, elapsedMs: elapsed() }
      }
    }
  }
}

/** `watched`: a watcher explains BLOCKED itself (what it waits for, how to answer, what next). */
function logStateChange(run: RunItem, elapsedMs: number, log: Log, watched: boolean): void {
  const when = `after ${formatDuration(elapsedMs)}`
  const id = safeForLog(run.run_id)
  const state = safeForLog(run.state, 200)
  switch (meaningOf(run.state)) {
    case 'blocked':
      if (watched) {
        log.info(`Run ${id} is BLOCKED (${when}): it waits for a person.`)
        return
      }
      log.warning(
        `Run ${id} is BLOCKED (${when}): it waits for a person to answer or approve in the session` +
          `${run.session_link ? ` (${safeForLog(run.session_link, 500)})` : ''}. Nothing will happen until someone does; this step waits until its timeout.`,
      )
      return
    case 'unknown':
      log.info(`Run ${id} is ${state} (${when}), a state this action does not know; waiting on.`)
      return
    case 'active':
    case 'succeeded':
    case 'failed':
      log.info(`Run ${id} is ${state} (${when}).`)
      return
  }
}
