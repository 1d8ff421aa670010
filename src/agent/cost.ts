import { formatCredits, formatUsd, roundTo } from '../text/format.ts'

/**
 * What a run cost, from its `request_usage`: credits (the billed unit) and
 * their value in US dollars, which the service converts at the team's credit
 * price and calls approximate. Each figure may be missing, and they grow
 * while the run works.
 */
export interface RunCost {
  /** compute + inference + platform, in credits; undefined when the service gave none. */
  readonly credits: number | undefined
  /** The same in US dollars, approximate; undefined when the service gave none. */
  readonly usd: number | undefined
}

const CREDIT_PARTS = ['compute_cost', 'inference_cost', 'platform_cost'] as const

/**
 * What a run has spent, in credits (0 when the service says nothing): the one reading of spend
 * that the credit budgets and the ledger (`report`) both add up, so they agree on the same runs.
 */
export function creditsSpent(run: { readonly request_usage?: unknown }): number {
  return costOf(run.request_usage).credits ?? 0
}

export function costOf(requestUsage: unknown): RunCost {
  if (typeof requestUsage !== 'object' || requestUsage === null) {
    return { credits: undefined, usd: undefined }
  }
  const usage = requestUsage as Record<string, unknown>
  return {
    credits: sumOf(CREDIT_PARTS.map((part) => usage[part])),
    usd: sumOf(CREDIT_PARTS.map((part) => usage[`${part}_usd`])),
  }
}

/** The sum of the parts that are usable numbers; undefined when none is. */
function sumOf(values: unknown[]): number | undefined {
  const numbers = values.filter(
    (value): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0,
  )
  if (numbers.length === 0) return undefined
  return roundTo(
    numbers.reduce((sum, value) => sum + value, 0),
    6,
  )
}

/** The summary's cost row: credits, then dollars; undefined when the service reported neither. */
export function describeCost(cost: RunCost): string | undefined {
  const parts = [
    cost.credits === undefined ? undefined : formatCredits(cost.credits),
    cost.usd === undefined ? undefined : formatUsd(cost.usd),
  ].filter((part) => part !== undefined)
  return parts.length > 0 ? parts.join(', ') : undefined
}

/**
 * The `max_credits` soft cap: past it (strictly more credits than the cap),
 * the run is to be cancelled. A run that reports no credits is not over it.
 */
export function isOverBudget(cost: RunCost, maxCredits: number | undefined): boolean {
  return maxCredits !== undefined && cost.credits !== undefined && cost.credits > maxCredits
}

export function describeOverBudget(cost: RunCost, maxCredits: number): string {
  return `The run used ${formatCredits(cost.credits ?? 0)}, more than the max_credits cap of ${formatCredits(maxCredits)}`
}

/**
 * Pure: what a run used since `before` (each figure never below zero); undefined where unknown.
 * Without `before` (a new run), all it used.
 */
export function costSince(now: RunCost, before: RunCost | undefined): RunCost {
  const minus = (a: number | undefined, b: number | undefined) =>
    a === undefined ? undefined : Math.max(0, a - (b ?? 0))
  return { credits: minus(now.credits, before?.credits), usd: minus(now.usd, before?.usd) }
}
