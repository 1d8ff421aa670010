/**
 * Money in the unit an account is billed in (v1.5, "Dollars"): credits, or US dollars, which the
 * service reports as each run's `*_cost_usd`. A budget is written in one of them and counted
 * in it; a run reports either, both or neither. Pure.
 */
import type { RunCost } from '../agent/cost.ts'
import { formatCredits, formatUsd } from '../text/format.ts'

export type Unit = 'credits' | 'usd'

/** An amount in a unit: a budget, a cap, what runs used. */
export interface Amount {
  readonly value: number
  readonly unit: Unit
}

/**
 * The amount `text` names: `$5`, `5 USD` or `5.50 usd` in dollars; `50`, `50 credits` or
 * `1 credit` in credits. Undefined for anything else (separators, other currencies, zero is the
 * caller's to judge).
 */
export function parseAmount(text: string): Amount | undefined {
  const trimmed = text.trim()
  const dollars = /^\$\s?(\d+(?:\.\d+)?)$/.exec(trimmed) ?? /^(\d+(?:\.\d+)?)\s?usd$/i.exec(trimmed)
  if (dollars) return { value: Number(dollars[1]), unit: 'usd' }
  const credits = /^(\d+(?:\.\d+)?)(?:\s?credits?)?$/i.exec(trimmed)
  if (credits) return { value: Number(credits[1]), unit: 'credits' }
  return undefined
}

/** `50 credits`, `$5.00`: an amount as every surface writes it. */
export function formatAmount(amount: Amount): string {
  return amount.unit === 'usd' ? formatUsd(amount.value) : formatCredits(amount.value)
}

/** `50 credits`, `$5`: an amount as its input is written, so that a person can copy it back. */
export function amountInput(amount: Amount): string {
  return amount.unit === 'usd' ? `$${amount.value}` : `${amount.value} credits`
}

/** What a cost comes to in `unit`; undefined when the service reported no figure in it. */
export function costIn(cost: RunCost, unit: Unit): number | undefined {
  return unit === 'usd' ? cost.usd : cost.credits
}

/**
 * A run that spent and reports no figure in `unit`: a dollar budget cannot count it, and must
 * never count it as free (an account billed in credits reports no dollars).
 */
export function isUnpriced(cost: RunCost, unit: Unit): boolean {
  return costIn(cost, unit) === undefined && (costIn(cost, otherUnit(unit)) ?? 0) > 0
}

export function otherUnit(unit: Unit): Unit {
  return unit === 'usd' ? 'credits' : 'usd'
}

/** The unit's name in a sentence: `credits`, `US dollars`. */
export function unitName(unit: Unit): string {
  return unit === 'usd' ? 'US dollars' : 'credits'
}
