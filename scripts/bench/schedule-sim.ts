/**
 * The poll schedule on a fake clock: the wait loop of src/run/wait.ts sleeps
 * `nextPollDelayMs(elapsed, interval)` and then polls, so poll k happens at
 * p_k = p_{k-1} + nextPollDelayMs(p_{k-1}) with p_0 = 0 the start of the wait (the create
 * answer is the reading at 0). Request time is left out here; the real-time check adds it.
 *
 * A state change at time t in (p_{k-1}, p_k] is detected by poll k, so it is
 * p_k - t late; the worst case in each gap is a change just after p_{k-1}, late by the
 * whole gap. The promise for a change at t is max(interval, 5% of t), and never over 30 s.
 */
import { ProgressReadSchedule } from '../../src/agent/progress.ts'
import { PROGRESS_READ_INTERVAL_MS } from '../../src/timing.ts'
import { nextPollDelayMs } from '../../src/run/schedule.ts'

export interface ScheduleFigures {
  runMinutes: number
  /** Polls until (and including) the one that sees the end of the run. */
  polls: number
  pollsFirstMinute: number
  /** The largest delay between a change and the poll that sees it, over every moment of the run. */
  worstDelayMs: number
  /** The change time at which that worst delay occurs (ms after the wait began; a limit from above). */
  worstDelayAtMs: number
  /** max over t of delay(t) / max(interval, 5% of t): at most 1 when the promise holds. */
  worstDelayOverPromise: number
  /** max over t of delay(t) - max(interval, 5% of t), in ms: at most 0 when the promise holds. */
  worstExcessMs: number
  /**
   * max over t ≥ interval / 5% (where the 5% growth governs) of delay(t) / t, or undefined for
   * runs that end before then.
   */
  worstShareOfElapsed: number | undefined
  /** Changes detected more than 30 s late. */
  over30s: number
}

/** Poll times (ms after the wait began) up to and including the first at or after `untilMs`. */
export function pollTimes(untilMs: number, intervalMs: number): number[] {
  const polls: number[] = []
  let now = 0
  while (polls.length === 0 || now < untilMs) {
    const delay = nextPollDelayMs(now, intervalMs)
    if (!(delay > 0)) throw new Error(`non-positive delay ${delay} at ${now} ms`)
    now += delay
    polls.push(now)
  }
  return polls
}

export function simulateSchedule(runMinutes: number, intervalMs: number): ScheduleFigures {
  const runMs = runMinutes * 60_000
  const polls = pollTimes(runMs, intervalMs)
  let worstDelayMs = 0
  let worstDelayAtMs = 0
  let worstDelayOverPromise = 0
  let worstExcessMs = -Infinity
  let worstShareOfElapsed: number | undefined
  let over30s = 0
  const growthFrom = intervalMs / 0.05
  let previous = 0
  for (const poll of polls) {
    // Every change in (previous, min(poll, runMs)] is seen at `poll`; the supremum of the delay is
    // at t -> previous (from above), where the promise is smallest, so that is the worst case.
    const t = previous
    const delay = poll - t
    if (t < runMs) {
      if (delay > worstDelayMs) {
        worstDelayMs = delay
        worstDelayAtMs = t
      }
      const promise = Math.max(intervalMs, 0.05 * t)
      worstDelayOverPromise = Math.max(worstDelayOverPromise, delay / promise)
      worstExcessMs = Math.max(worstExcessMs, delay - promise)
      if (t >= growthFrom) worstShareOfElapsed = Math.max(worstShareOfElapsed ?? 0, delay / t)
      if (delay > 30_000) over30s += 1
    }
    previous = poll
  }
  return {
    runMinutes,
    polls: polls.length,
    pollsFirstMinute: polls.filter((p) => p <= 60_000).length,
    worstDelayMs,
    worstDelayAtMs,
    worstDelayOverPromise,
    worstExcessMs,
    worstShareOfElapsed,
    over30s,
  }
}

export interface AgentWorkRequestFigures {
  runMinutes: number
  polls: number
  /** Conversation reads for show_progress while waiting. */
  progressReads: number
  /** The bound those reads keep: one at the start, and one per 30 s since. */
  progressBound: number
  /** Requests after the run: one conversation read for the answer. */
  afterRun: number
}

/**
 * What the agent's work costs in requests, on the same fake clock: with show_progress, a
 * conversation read at each poll where ProgressReadSchedule allows one (state changes at
 * `changeAtMs`, the first being QUEUED → INPROGRESS, else once per 30 s); after the run, one read for the answer (and, per
 * downloaded file, one getArtifact, not counted here as it depends on download_artifacts).
 */
export function simulateAgentWorkRequests(
  runMinutes: number,
  intervalMs: number,
  changeAtMs: readonly number[],
): AgentWorkRequestFigures {
  const runMs = runMinutes * 60_000
  const polls = pollTimes(runMs, intervalMs)
  const reads = new ProgressReadSchedule(0)
  let progressReads = 0
  let previous = 0
  for (const poll of polls) {
    // The poll that sees the end reads the answer instead (counted in afterRun).
    if (poll >= runMs) break
    // Nothing is read while the run is QUEUED (before the first change): it has no conversation.
    if (poll < (changeAtMs[0] ?? 0)) {
      previous = poll
      continue
    }
    const stateChanged = changeAtMs.some((t) => t > previous && t <= poll)
    if (reads.isDue(poll, stateChanged)) {
      reads.recordRead(poll)
      progressReads += 1
    }
    previous = poll
  }
  return {
    runMinutes,
    polls: polls.length,
    progressReads,
    progressBound: 1 + Math.floor(runMs / PROGRESS_READ_INTERVAL_MS),
    afterRun: 1,
  }
}
