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

/**
 * `1,234.5`: grouped in thousands, at most `maxDigits` decimals and at least `minDigits`,
 * as `toLocaleString('en-US')` writes it. Without Intl: its first use loads ICU's locale
 * data, ~15 ms of a step's CPU, for one figure in the summary.
 */
export function formatDecimal(value: number, maxDigits: number, minDigits = 0): string {
  if (!Number.isFinite(value)) return String(value)
  const { whole, fraction } = roundHalfExpand(Math.abs(value), maxDigits)
  const kept = fraction.replace(/0+$/, '').padEnd(minDigits, '0')
  const sign = value < 0 || Object.is(value, -0) ? '-' : ''
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${kept ? `.${kept}` : ''}`
}

/**
 * `abs` to `maxDigits` decimals, half away from zero, on its shortest decimal form (as Intl
 * rounds: 0.015 is 0.02, though its binary value is a hair under), not on its binary value
 * (as `toFixed` does).
 */
function roundHalfExpand(abs: number, maxDigits: number): { whole: string; fraction: string } {
  const [mantissa = '0', exponent = '0'] = abs.toExponential().split('e')
  const digits = mantissa.replace('.', '')
  const wholeDigits = Number(exponent) + 1
  let point = Math.max(wholeDigits, 1)
  const padded = ('0'.repeat(point - wholeDigits) + digits).padEnd(point + maxDigits + 1, '0')
  let kept = padded.slice(0, point + maxDigits)
  if ((padded[point + maxDigits] ?? '0') >= '5') {
    const carried = (BigInt(kept) + 1n).toString().padStart(kept.length, '0')
    if (carried.length > kept.length) point += 1
    kept = carried
  }
  return { whole: kept.slice(0, point).replace(/^0+(?=\d)/, ''), fraction: kept.slice(point) }
}

/** `1,234.5 credits` */
/**
 * `1,234.5 credits`: two decimals at most, on every surface, so that figures side by side read
 * alike; an amount too small to show in two reads "less than 0.01", never as zero.
 */
export function formatCredits(credits: number): string {
  if (isBelowCent(credits)) return 'less than 0.01 credits'
  const amount = formatDecimal(credits, 2)
  return `${amount} ${amount === '1' ? 'credit' : 'credits'}`
}

/**
 * `$1,234.57`: cents, as every surface shows dollars (what the service billed, v1.5); a smaller
 * amount reads "less than $0.01".
 */
export function formatUsd(usd: number): string {
  if (isBelowCent(usd)) return 'less than $0.01'
  const amount = formatDecimal(usd, 2, 2)
  return amount.startsWith('-') ? `-$${amount.slice(1)}` : `$${amount}`
}

/** A positive amount that two decimals would show as zero. */
function isBelowCent(amount: number): boolean {
  return amount > 0 && amount < 0.005
}

export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}
