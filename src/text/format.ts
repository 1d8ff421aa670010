/**
 * How numbers read in the log, the summary and the comment: durations, credits
 * and money. One place, so that the same figure reads the same everywhere.
 */

/**
 * A duration as a person reads it: `42s`, `3m 5s`, `2h 7m`. Rounded to the
 * second, for time that passed. `exact` is for a limit, which may be set in
 * milliseconds: one that is not whole seconds reads as such (`1500ms`), so a
 * short deadline never reads as `0s`.
 */
export function formatDuration(ms: number, precision: 'rounded' | 'exact' = 'rounded'): string {
  if (precision === 'exact' && ms % 1000 !== 0) return `${ms}ms`
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
