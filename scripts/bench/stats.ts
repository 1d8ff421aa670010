/** Small statistics for benchmark samples. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? NaN)
    : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2
}

/** The q-quantile (0..1) by linear interpolation. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  const a = sorted[lo] ?? NaN
  const b = sorted[hi] ?? NaN
  return a + (b - a) * (pos - lo)
}

export interface Summary {
  n: number
  median: number
  p25: number
  p75: number
  min: number
  max: number
}

export function summarize(values: readonly number[]): Summary {
  return {
    n: values.length,
    median: round(median(values)),
    p25: round(quantile(values, 0.25)),
    p75: round(quantile(values, 0.75)),
    min: round(Math.min(...values)),
    max: round(Math.max(...values)),
  }
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}
