/**
 * What stops a run over budget while it works: `max_credits`, or what a budget had left when
 * the step was admitted (v1.5: a budget caps the runs it admits, so it is overrun by at most
 * what one poll interval lets a run spend, never by a whole run). A cap is in the unit its input
 * was written in, credits or US dollars, and counts the runs' figures in that unit. Pure.
 */
import { formatAmount, type Amount, type Unit } from './money.ts'

export interface SpendCap {
  /** What the step's runs may use together, in the unit of the input that set it. */
  readonly amount: Amount
  /** The input whose limit it is. */
  readonly input: 'max_credits' | 'daily_credit_budget' | 'pr_credit_budget'
  /** A budget's limit, where the cap is what it had left. */
  readonly limit?: Amount
}

/**
 * The caps that bind: the tightest in each unit (the first on a tie). A cap in dollars and one
 * in credits cannot be compared, so both stand.
 */
export function bindingCaps(...caps: readonly (SpendCap | undefined)[]): SpendCap[] {
  const tightest = new Map<Unit, SpendCap>()
  for (const cap of caps) {
    if (!cap) continue
    const held = tightest.get(cap.amount.unit)
    if (!held || cap.amount.value < held.amount.value) tightest.set(cap.amount.unit, cap)
  }
  return [...tightest.values()]
}

/** The cap `max_credits` sets, if any. */
export function maxCreditsCap(maxCredits: Amount | undefined): SpendCap | undefined {
  return maxCredits === undefined ? undefined : { amount: maxCredits, input: 'max_credits' }
}

/** The cap, short, for a label: `the cap of 5 credits`, `the $1.20 pr_credit_budget had left`. */
export function capLabel(cap: SpendCap): string {
  if (cap.input === 'max_credits') return `the cap of ${formatAmount(cap.amount)}`
  return `the ${formatAmount(cap.amount)} ${cap.input} had left`
}

/** The cap in words: `the max_credits cap of 5 credits`, `the 12 credits pr_credit_budget had left (of 100 credits)`. */
export function capWords(cap: SpendCap): string {
  if (cap.input === 'max_credits') return `the max_credits cap of ${formatAmount(cap.amount)}`
  const of = cap.limit === undefined ? '' : ` (of ${formatAmount(cap.limit)})`
  return `the ${formatAmount(cap.amount)} ${cap.input} had left when the step started${of}`
}
