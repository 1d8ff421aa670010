/** The values every reader of inputs parses the same way: booleans, durations, amounts, maps. */
import { InputError } from '../input-error.ts'
import { isCampaignName } from '../model/campaign.ts'
import { parseAmount, type Amount } from '../model/money.ts'

/** YAML 1.2 core schema booleans, as the contract promises. */
export function parseBoolean(input: string, value: string): boolean {
  if (['true', 'True', 'TRUE'].includes(value)) return true
  if (['false', 'False', 'FALSE'].includes(value)) return false
  throw new InputError(input, `must be true or false; got "${value}".`)
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const

/** `500ms`, `30s`, `10m`, `2h`; a bare number is seconds. */
export function parseDuration(input: string, value: string): number {
  const match = DURATION.exec(value)
  if (!match) {
    throw new InputError(
      input,
      `must be a duration such as 500ms, 30s, 10m or 2h (a bare number means seconds); got "${value}".`,
    )
  }
  const unit = (match[2] ?? 's') as keyof typeof UNIT_MS
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit])
  if (!Number.isSafeInteger(ms)) throw new InputError(input, `is too long; got "${value}".`)
  return ms
}

export function parsePositiveDuration(input: string, value: string): number {
  const ms = parseDuration(input, value)
  if (ms <= 0) throw new InputError(input, `must be longer than zero; got "${value}".`)
  return ms
}

/**
 * `campaign`: '' when not given, else a name of at most 64 letters, digits, dots, dashes and
 * underscores (the report and the command group by it, and it is part of every key).
 */
export function readCampaign(source: { get(name: string): string }): string {
  const campaign = source.get('campaign')
  if (campaign && !isCampaignName(campaign)) {
    throw new InputError(
      'campaign',
      `must be a name of at most 64 letters, digits, dots, dashes and underscores; got "${campaign.slice(0, 100)}".`,
    )
  }
  return campaign
}

/**
 * A spending limit in the unit it is written in: `$5` or `5 USD` counts US dollars, a bare
 * number or `50 credits` counts credits (v1.5). Undefined when empty.
 */
export function readAmount(input: string, value: string): Amount | undefined {
  if (!value) return undefined
  const amount = parseAmount(value)
  if (!amount || !Number.isFinite(amount.value) || amount.value <= 0) {
    throw new InputError(
      input,
      `must be an amount greater than zero: credits, such as 500, 12.5 or 50 credits, or US dollars, such as $5 or 5 USD (no separators); got "${value}".`,
    )
  }
  return amount
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
