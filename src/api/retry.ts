import type { IncomingHttpHeaders } from 'node:http'
import {
  AgentApiError,
  ApiConnectionError,
  ApiResponseFormatError,
  ApiStatusError,
  ApiTimeoutError,
  ApiTlsError,
} from './errors.ts'
import { REQUEST_RETRIES } from '../timing.ts'

/**
 * How a request may be repeated.
 * - `idempotent`: repeating it cannot do harm (reads, cancel).
 * - `at-most-once`: repeating it could act twice (create, follow-up), so it is
 *   repeated only when the failure proves the service did not act on it.
 */
export type RetryMode = 'idempotent' | 'at-most-once'

export interface BackoffPolicy {
  initialDelayMs: number
  maxDelayMs: number
  /** The longest server hint the client obeys; longer hints are capped to it. */
  maxHintMs: number
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  initialDelayMs: REQUEST_RETRIES.initialDelayMs,
  maxDelayMs: REQUEST_RETRIES.maxDelayMs,
  maxHintMs: REQUEST_RETRIES.maxHintMs,
}

/** Whether a failed attempt may be tried again under `mode`. */
export function isRetryable(error: unknown, mode: RetryMode): boolean {
  if (!(error instanceof AgentApiError)) return false
  const hint = shouldRetryHeader(error)
  if (hint === false) return false
  // The header may stop a retry, never start one that could act twice: a service that says
  // "retry" after a 500 may have made the run all the same.
  if (hint === true && mode === 'idempotent') return true
  if (error instanceof ApiStatusError) {
    const { status } = error
    if (isRefusal(error)) return true
    if (mode === 'at-most-once') return false
    return status === 408 || status === 409 || status >= 500
  }
  if (error instanceof ApiTlsError) return false
  if (error instanceof ApiTimeoutError) return mode === 'idempotent'
  if (error instanceof ApiConnectionError) return mode === 'idempotent' || !error.requestSent
  if (error instanceof ApiResponseFormatError) return mode === 'idempotent'
  return false
}

/** A rate-limit refusal: the service did nothing and said when to come back (or 429). */
export function isRefusal(error: unknown): boolean {
  if (!(error instanceof ApiStatusError)) return false
  return error.status === 429 || (error.status === 503 && retryAfterMs(error.headers) !== undefined)
}

/**
 * Whether a failed request may nonetheless have been carried out: the
 * connection broke after sending, the service failed midway (5xx), or it
 * answered success in a body that could not be read.
 */
export function mayHaveActed(error: unknown): boolean {
  if (error instanceof ApiStatusError) {
    return error.status >= 500 && !isRefusal(error)
  }
  if (error instanceof ApiConnectionError) return error.requestSent
  if (error instanceof ApiResponseFormatError) return error.status >= 200 && error.status < 300
  return error instanceof AgentApiError
}

/** The wait before retry number `attempt` (1-based): the server's hint, else capped backoff. */
export function retryDelayMs(
  error: unknown,
  attempt: number,
  random: () => number,
  now: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
): number {
  const hinted = error instanceof ApiStatusError ? retryAfterMs(error.headers, now) : undefined
  // Clients told the same Retry-After would come back in lockstep; spread them by up to a quarter.
  if (hinted !== undefined)
    return Math.round(Math.min(hinted, policy.maxHintMs) * (1 + 0.25 * random()))
  const exponential = Math.min(policy.initialDelayMs * 2 ** (attempt - 1), policy.maxDelayMs)
  // Full-size waits in lockstep make many clients retry together; take off up to a quarter.
  return Math.round(exponential * (1 - 0.25 * random()))
}

/**
 * The server's retry hint, in milliseconds: `retry-after-ms`, then
 * `Retry-After` as seconds or as an HTTP date.
 */
export function retryAfterMs(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const milliseconds = single(headers['retry-after-ms'])?.trim()
  if (milliseconds && /^\d+(\.\d+)?$/.test(milliseconds)) return Math.round(Number(milliseconds))
  const retryAfter = single(headers['retry-after'])?.trim()
  if (!retryAfter) return undefined
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000)
  // Only the HTTP-date form (RFC 9110 IMF-fixdate); Date.parse alone would accept junk.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(retryAfter)) {
    return undefined
  }
  const date = Date.parse(retryAfter)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

function shouldRetryHeader(error: AgentApiError): boolean | undefined {
  if (!(error instanceof ApiStatusError)) return undefined
  const value = single(error.headers['x-should-retry'])?.trim().toLowerCase()
  if (value === 'true') return true
  if (value === 'false') return false
  return undefined
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
