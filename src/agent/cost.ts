import { formatCredits, formatUsd, roundTo } from '../text/format.ts'

/**
 * What a run cost, from its `request_usage`: credits, and what the service billed in US dollars
 * (estimated for runs older than its billing records). An account is billed in one of them; each
 * figure may be missing, and they grow while the run works.
 */
export interface RunCost {
  /** compute + inference + platform, in credits; undefined when the service gave none. */
  readonly credits: number | undefined
  /** The `*_cost_usd` parts: what the run was billed in US dollars; undefined when none was given. */
  readonly usd: number | undefined
}

const CREDIT_PARTS = ['compute_cost', 'inference_cost', 'platform_cost'] as const
const USD_PARTS = CREDIT_PARTS.map((part) => `${part}_usd`)

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
  return { credits: sumOf(usage, CREDIT_PARTS), usd: sumOf(usage, USD_PARTS) }
}

/**
 * The sum of the parts that are usable numbers; undefined when none is. Summed in place: a set's
 * headline adds up a thousand runs at every poll.
 */
function sumOf(usage: Record<string, unknown>, parts: readonly string[]): number | undefined {
  let sum: number | undefined
  for (const part of parts) {
    const value = usage[part]
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) sum = (sum ?? 0) + value
  }
  return sum === undefined ? undefined : roundTo(sum, 6)
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
 * Pure: what a run used since `before` (each figure never below zero); undefined where unknown.
 * Without `before` (a new run), all it used.
 */
export function costSince(now: RunCost, before: RunCost | undefined): RunCost {
  const minus = (a: number | undefined, b: number | undefined) =>
    a === undefined ? undefined : Math.max(0, a - (b ?? 0))
  return { credits: minus(now.credits, before?.credits), usd: minus(now.usd, before?.usd) }
}
