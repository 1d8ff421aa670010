/**
 * What stops a run over budget while it works: `max_credits`, or what a credit budget had left
 * when the step was admitted (v1.5: a budget caps the runs it admits, so it is overrun by at
 * most what one poll interval lets a run spend, never by a whole run). Pure.
 */
import { formatCredits } from '../text/format.ts'

export interface SpendCap {
  /** The credits the step's runs may use together. */
  readonly credits: number
  /** The input whose limit it is. */
  readonly input: 'max_credits' | 'daily_credit_budget' | 'pr_credit_budget'
  /** A budget's limit, where the cap is what it had left. */
  readonly limit?: number
}

/** The tighter of two caps (the first on a tie); undefined when neither is set. */
export function tighterCap(a: SpendCap | undefined, b: SpendCap | undefined): SpendCap | undefined {
  if (!a) return b
  if (!b) return a
  return b.credits < a.credits ? b : a
}

/** The cap `max_credits` sets, if any. */
export function maxCreditsCap(maxCredits: number | undefined): SpendCap | undefined {
  return maxCredits === undefined ? undefined : { credits: maxCredits, input: 'max_credits' }
}

/** The cap, short, for a label: `the cap of 5 credits`, `the 12 credits pr_credit_budget had left`. */
export function capLabel(cap: SpendCap): string {
  if (cap.input === 'max_credits') return `the cap of ${formatCredits(cap.credits)}`
  return `the ${formatCredits(cap.credits)} ${cap.input} had left`
}

/** The cap in words: `the max_credits cap of 5 credits`, `the 12 credits pr_credit_budget had left (of 100 credits)`. */
export function capWords(cap: SpendCap): string {
  if (cap.input === 'max_credits') return `the max_credits cap of ${formatCredits(cap.credits)}`
  const of = cap.limit === undefined ? '' : ` (of ${formatCredits(cap.limit)})`
  return `the ${formatCredits(cap.credits)} ${cap.input} had left when the step started${of}`
}
