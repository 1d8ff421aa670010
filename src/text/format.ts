/**
 * How numbers read in the log, the summary and the comment: durations, credits
 * and money. One place, so that the same figure reads the same everywhere.
 */

/**
 * A duration as a person reads it: `450ms`, `42s`, `3m 5s`, `2h 7m`. Whole
 * seconds from half a second up; below that, milliseconds, so that a short
 * timeout does not read as `0s`.
 */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms < 500) return `${Math.round(ms)}ms`
  const seconds = Math.round(ms / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`
}

/** For an output: a plain decimal number a later step can compare (no separators, no unit). */
export function formatNumberOutput(value: number | undefined): string {
  return value === undefined ? '' : String(roundTo(value, 6))
}

/** `1,234.5 credits` */
export function formatCredits(credits: number): string {
  const digits = credits !== 0 && Math.abs(credits) < 1 ? 4 : 2
  return `${credits.toLocaleString('en-US', { maximumFractionDigits: digits })} credits`
}

/** `≈ $1,234.57 (approximate)`; small amounts keep enough digits to not read as zero. */
export function formatUsd(usd: number): string {
  const digits = usd !== 0 && usd < 0.01 ? 4 : 2
  const amount = usd.toLocaleString('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: digits,
  })
  return `≈ ${amount} (approximate)`
}

export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}
