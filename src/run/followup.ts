import type { AgentRunsClient } from '../api/client.ts'
import { mayHaveActed } from '../api/retry.ts'
import type { RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import { isTerminal } from '../model/states.ts'
import { safeForLog } from '../text/log.ts'
import { errorMessage } from '../text/plain.ts'
import { MIN_REQUEST_MS } from '../timing.ts'
import type { RunTracker } from './tracker.ts'

export interface NewPassWatch {
  /** The run as it was before the follow-up. */
  before: RunItem
  now: () => number
  /** How long readings in the old state count as stale. */
  graceMs: number
  /** Called once, when the readings stop being stale: a new pass, or the grace ran out. */
  onSettled?: (how: 'new-pass' | 'grace-over') => void
}

/**
 * Pure logic: whether a reading of a run after a follow-up predates the
 * follow-up's effect. The new pass is recognised by the state leaving its old
 * value, never by `updated_at` (a service may touch it on receiving the
 * message, or omit it). Should the run never be seen leaving its old state
 * (a pass faster than the polls), the readings count after a bounded grace,
 * so the step does not wait out its timeout.
 */
export function watchForNewPass(watch: NewPassWatch): (seen: RunItem) => boolean {
  const since = watch.now()
  let settled = false
  return (seen) => {
    if (settled) return false
    if (seen.state !== watch.before.state) {
      settled = true
      watch.onSettled?.('new-pass')
      return false
    }
    if (watch.now() - since >= watch.graceMs) {
      settled = true
      watch.onSettled?.('grace-over')
      return false
    }
    return true
  }
}

export interface FollowUpDeps {
  client: Pick<AgentRunsClient, 'sendFollowup'>
  /** The run's tracker (see RunLifecycle): told of each follow-up and its answer. */
  tracker: RunTracker
  now: () => number
  log: Log
  /** After a follow-up, how long readings in the run's old state count as from before it. */
  graceMs: number
}

/**
 * A run's follow-ups, for its lifecycle: each sent once (a refusal leaves the run as it was; a
 * lost answer is taken as sent), and after it, readings in the run's old state are from before
 * it (stale) until the service shows the new pass (see watchForNewPass).
 */
export class FollowUps {
  readonly #deps: FollowUpDeps
  #isStale: ((run: RunItem) => boolean) | undefined

  constructor(deps: FollowUpDeps) {
    this.#deps = deps
  }

  /** Whether a reading of the run predates the last follow-up's effect. */
  isStale(run: RunItem): boolean {
    return this.#isStale?.(run) ?? false
  }

  /**
   * Sends `message` to the run as a follow-up. Until the service shows its effect, readings in
   * the run's old state are stale. Returns why the service refused it (the run is left as it
   * was, and nothing is owed on it); undefined once it was sent, or may have been.
   */
  async followUp(run: RunItem, message: string, deadline: number): Promise<string | undefined> {
    const refusal = await this.send(run, message, deadline)
    return refusal === undefined ? undefined : errorMessage(refusal)
  }

  /** As followUp, with the error that refused it. */
  async send(run: RunItem, message: string, deadline: number): Promise<unknown> {
    const { client, tracker, log, now } = this.#deps
    const runId = run.run_id
    tracker.followingUp(runId)
    try {
      // It gets a fair try however close the deadline is.
      await client.sendFollowup(runId, message, {
        deadline: Math.max(deadline, now() + MIN_REQUEST_MS),
      })
      log.info(`Sent the follow-up to run ${safeForLog(runId)}.`)
    } catch (error) {
      const reason = errorMessage(error)
      if (!mayHaveActed(error)) {
        tracker.followupRefused()
        return error
      }
      log.warning(
        `The answer to the follow-up to run ${safeForLog(runId)} was lost (${safeForLog(reason)}). It may have reached the run and restarted it, so the step awaits the run.`,
      )
    }
    tracker.track(runId)
    // Only a terminal reading is ever taken as an outcome: a run still going when it was sent
    // the follow-up (a steered one) has no old outcome whose readings could pass for the new.
    if (!isTerminal(run.state)) {
      this.#isStale = undefined
      return undefined
    }
    this.#isStale = watchForNewPass({
      before: run,
      now,
      graceMs: this.#deps.graceMs,
      onSettled: (how) => {
        tracker.newPassSeen()
        if (how === 'grace-over') {
          log.warning(
            `Run ${safeForLog(runId)} was never seen leaving ${safeForLog(run.state, 200)} after the follow-up; taking ${safeForLog(run.state, 200)} as its outcome.`,
          )
        }
      },
    })
    return undefined
  }
}
