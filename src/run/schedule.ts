/**
 * The poll schedule. Early polls are quick, because short runs are common and a
 * state change should be seen at once; later polls space out in proportion to
 * the run's age, so that a long run costs few requests. A change is noticed
 * within max(pollInterval, 5% of the elapsed time), and never more than
 * `MAX_GROWN_DELAY_MS` late unless the user asked for a longer interval.
 */
export const GROWTH_SHARE = 0.05
export const MAX_GROWN_DELAY_MS = 30_000

/** The longest delay a Node timer holds; a longer one would fire at once, in a busy loop. */
export const MAX_POLL_DELAY_MS = 2 ** 31 - 1

export function nextPollDelayMs(elapsedMs: number, pollIntervalMs: number): number {
  const grown = Math.min(GROWTH_SHARE * Math.max(0, elapsedMs), MAX_GROWN_DELAY_MS)
  return Math.min(Math.round(Math.max(pollIntervalMs, grown)), MAX_POLL_DELAY_MS)
}
