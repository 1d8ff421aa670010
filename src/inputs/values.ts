/** The values every reader of inputs parses the same way: booleans, durations, credits, maps. */
import { InputError } from '../input-error.ts'

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

export function readCredits(input: string, value: string): number | undefined {
  if (!value) return undefined
  const credits = /^\d+(?:\.\d+)?$/.test(value) ? Number(value) : NaN
  if (!Number.isFinite(credits) || credits <= 0) {
    throw new InputError(
      input,
      `must be a number of credits greater than zero, such as 500 or 12.5 (no separators); got "${value}".`,
    )
  }
  return credits
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
