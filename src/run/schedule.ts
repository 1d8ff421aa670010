/**
 * The poll schedule. Early polls are quick, because short runs are common and a
 * state change should be seen at once; later polls space out in proportion to
 * the run's age, so that a long run costs few requests. A change is noticed
 * within max(pollInterval, 5% of the elapsed time), and never more than
 * `POLL_GROWTH.maxGrownDelayMs` late unless the user asked for a longer interval.
 */
import { MAX_TIMER_MS, POLL_GROWTH } from '../timing.ts'

export function nextPollDelayMs(elapsedMs: number, pollIntervalMs: number): number {
  const grown = Math.min(POLL_GROWTH.share * Math.max(0, elapsedMs), POLL_GROWTH.maxGrownDelayMs)
  return Math.min(Math.round(Math.max(pollIntervalMs, grown)), MAX_TIMER_MS)
}
