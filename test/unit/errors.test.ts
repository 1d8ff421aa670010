import type { IncomingHttpHeaders } from 'node:http'
import { describe, expect, it } from 'vitest'
import {
  AgentApiError,
  ApiAbortedError,
  ApiConnectionError,
  ApiResponseFormatError,
  ApiStatusError,
  SessionGoneError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  errorForStatus,
  type RequestLabel,
} from '../../src/api/errors.ts'
import {
  DEFAULT_BACKOFF,
  isRetryable,
  retryAfterMs,
  retryDelayMs,
  type RetryMode,
} from '../../src/api/retry.ts'

const CREATE: RequestLabel = { method: 'POST', path: '/agent/run' }
const GET: RequestLabel = { method: 'GET', path: '/agent/runs/run-1' }

const problem = (fields: Record<string, unknown>): string => JSON.stringify(fields)

const statusError = (
  status: number,
  headers: IncomingHttpHeaders = {},
  body = '',
): ApiStatusError => errorForStatus(GET, status, headers, body)

const connectionError = (requestSent: boolean): ApiConnectionError =>
  new ApiConnectionError(
    CREATE,
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' }),
    requestSent,
  )

describe('errorForStatus', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [405, MethodNotAllowedError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, InternalServerError],
    [504, InternalServerError],
  ])('maps %i to %O', (status, ErrorClass) => {
    const error = statusError(status)
    expect(error.constructor).toBe(ErrorClass)
    expect(error).toBeInstanceOf(ApiStatusError)
    expect(error).toBeInstanceOf(AgentApiError)
    expect(error.status).toBe(status)
    expect(error.name).toBe(ErrorClass.name)
  })

  it.each([418, 402])('maps %i to a plain ApiStatusError', (status) => {
    const error = statusError(status)
    expect(error.constructor).toBe(ApiStatusError)
    expect(error.status).toBe(status)
  })

  it('maps 410 to SessionGoneError, which says a new run must carry the conversation on', () => {
    const error = statusError(410)
    expect(error).toBeInstanceOf(SessionGoneError)
    expect(error.name).toBe('SessionGoneError')
    expect(error.message).toMatch(/session is gone: start a new run with .*conversation_id/)
  })

  it('reads the code from the last segment of the problem type, with detail and trace_id', () => {
    const error = errorForStatus(
      CREATE,
      402,
      { 'content-type': 'application/problem+json' },
      problem({
        type: 'https://docs.example.com/errors/insufficient_credits',
        title: 'Payment required',
        status: 402,
        detail: 'The team has 0 credits left.',
        trace_id: 'trace-7f3a',
      }),
    )
    expect(error.code).toBe('insufficient_credits')
    expect(error.detail).toBe('The team has 0 credits left.')
    expect(error.traceId).toBe('trace-7f3a')
    expect(error.message).toContain('POST /agent/run')
    expect(error.message).toContain('402')
    expect(error.message).toContain('The team has 0 credits left.')
    expect(error.message).toContain('trace-7f3a')
    expect(error.message).toMatch(/out of credits/i)
  })

  it.each([
    [
      403,
      'not_authorized',
      'Key may not create runs',
      /403 not_authorized: Key may not create runs\. .*permissions.*trace-403/,
    ],
    [
      402,
      'insufficient_credits',
      'Balance is 0',
      /402 insufficient_credits: Balance is 0\. The account has run out of credits.*trace-402/,
    ],
    [
      403,
      'budget_exceeded',
      'Monthly budget reached',
      /403 budget_exceeded: Monthly budget reached\. The team has reached its spending budget.*trace-403/,
    ],
    [
      422,
      'invalid_request',
      'Unknown environment env_x',
      /422 invalid_request: Unknown environment env_x\..*trace-422/,
    ],
  ])(
    '%i %s on the create: one line, with the detail, what to do, and the trace_id',
    (status, code, detail, message) => {
      const error = errorForStatus(
        CREATE,
        status,
        { 'content-type': 'application/problem+json' },
        problem({
          type: `https://errors.example.test/${code}`,
          title: code,
          status,
          detail,
          trace_id: `trace-${status}`,
        }),
      )
      expect(error.message).toMatch(message)
      expect(error.message).not.toContain('\n')
    },
  )

  it('tolerates a trailing slash in the problem type, and no code for about:blank', () => {
    expect(
      statusError(403, {}, problem({ type: 'https://x.test/errors/not_authorized/' })).code,
    ).toBe('not_authorized')
    expect(
      statusError(400, {}, problem({ type: 'about:blank', detail: 'bad' })).code,
    ).toBeUndefined()
  })

  it('falls back to the problem error field when there is no detail', () => {
    const error = statusError(
      400,
      {},
      problem({ type: 'https://x.test/errors/invalid_request', error: 'prompt is too long' }),
    )
    expect(error.code).toBe('invalid_request')
    expect(error.message).toContain('prompt is too long')
  })

  it('tells the user to check the api_key input on a 401', () => {
    const error = statusError(
      401,
      {},
      problem({ type: 'https://x.test/errors/authentication_required', detail: 'Invalid token' }),
    )
    expect(error).toBeInstanceOf(AuthenticationError)
    expect(error.message).toContain('api_key')
    expect(error.message).toContain('Invalid token')
    expect(statusError(401).message).toContain('api_key')
  })

  it('gives a short single-line excerpt of an HTML page instead of the page', () => {
    const page =
      '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title>\n<style>body{color:red}</style></head>\n<body>\n' +
      '<p>The upstream server is unavailable.</p>\n'.repeat(400) +
      '</body></html>\n'
    const error = statusError(502, { 'content-type': 'text/html' }, page)
    expect(error).toBeInstanceOf(InternalServerError)
    expect(error.code).toBeUndefined()
    expect(error.message).toContain('502 Bad Gateway')
    expect(error.message).not.toMatch(/[\r\n]/)
    expect(error.message).not.toMatch(/<\/?[a-z!]/i)
    expect(error.message.length).toBeLessThan(400)
  })

  it('does not take a JSON array or a scalar body for a problem document', () => {
    expect(statusError(400, {}, '["a"]').code).toBeUndefined()
    expect(statusError(400, {}, '"just text"').message).toContain('just text')
  })
})

describe('isRetryable', () => {
  const both = { idempotent: true, 'at-most-once': true }
  const idempotentOnly = { idempotent: true, 'at-most-once': false }
  const never = { idempotent: false, 'at-most-once': false }

  it.each<[string, () => unknown, Record<RetryMode, boolean>]>([
    ['429', () => statusError(429), both],
    ['408', () => statusError(408), idempotentOnly],
    ['409', () => statusError(409), idempotentOnly],
    ['500', () => statusError(500), idempotentOnly],
    ['502', () => statusError(502), idempotentOnly],
    ['503 without Retry-After', () => statusError(503), idempotentOnly],
    ['503 with Retry-After', () => statusError(503, { 'retry-after': '2' }), both],
    ['503 with retry-after-ms', () => statusError(503, { 'retry-after-ms': '1500' }), both],
    [
      '503 with a blank retry-after-ms',
      () => statusError(503, { 'retry-after-ms': '' }),
      idempotentOnly,
    ],
    ['400', () => statusError(400), never],
    ['401', () => statusError(401), never],
    ['403', () => statusError(403), never],
    ['404', () => statusError(404), never],
    ['422', () => statusError(422), never],
    ['a connection error before the request was sent', () => connectionError(false), both],
    ['a connection error after the request was sent', () => connectionError(true), idempotentOnly],
    ['a timeout', () => new ApiTimeoutError(CREATE, 60_000), idempotentOnly],
    [
      'an unusable success body',
      () => new ApiResponseFormatError(GET, 200, 'an HTML page'),
      idempotentOnly,
    ],
    ['an aborted request', () => new ApiAbortedError(CREATE), never],
    [
      'x-should-retry: true on a 400 (never repeats what may act twice)',
      () => statusError(400, { 'x-should-retry': 'true' }),
      idempotentOnly,
    ],
    [
      'x-should-retry: true on a 500 (never repeats what may act twice)',
      () => statusError(500, { 'x-should-retry': 'true' }),
      idempotentOnly,
    ],
    [
      'x-should-retry: true on a 429 (a refusal, retried in both modes)',
      () => statusError(429, { 'x-should-retry': 'true' }),
      both,
    ],
    [
      'x-should-retry: false on a 429',
      () => statusError(429, { 'x-should-retry': 'false' }),
      never,
    ],
    [
      'x-should-retry: false on a 503 with Retry-After',
      () => statusError(503, { 'x-should-retry': 'false', 'retry-after': '1' }),
      never,
    ],
    [
      'x-should-retry with another value',
      () => statusError(500, { 'x-should-retry': 'maybe' }),
      idempotentOnly,
    ],
    ['a plain Error', () => new Error('ECONNRESET'), never],
    ['a string', () => 'boom', never],
  ])('%s', (_what, makeError, expected) => {
    const error = makeError()
    expect({
      idempotent: isRetryable(error, 'idempotent'),
      'at-most-once': isRetryable(error, 'at-most-once'),
    }).toEqual(expected)
  })
})

describe('retryAfterMs', () => {
  const now = Date.parse('2025-03-01T12:00:00Z')

  it.each<[IncomingHttpHeaders, number | undefined]>([
    [{ 'retry-after': '3' }, 3_000],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after': '1.5' }, 1_500],
    [{ 'retry-after': ' 7 ' }, 7_000],
    [{ 'retry-after': 'Sat, 01 Mar 2025 12:00:10 GMT' }, 10_000],
    [{ 'retry-after': 'Sat, 01 Mar 2025 11:59:00 GMT' }, 0],
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    [{ 'retry-after-ms': 'abc', 'retry-after': '9' }, 9_000],
    [{ 'retry-after': 'soon' }, undefined],
    [{ 'retry-after': 'in a minute' }, undefined],
    [{ 'retry-after': '' }, undefined],
    [{ 'retry-after-ms': 'abc' }, undefined],
    [{ 'retry-after-ms': '' }, undefined],
    [{ 'retry-after-ms': '   ' }, undefined],
    [{ 'retry-after': 'abc 12' }, undefined],
    [{ 'retry-after': 'Jan 1' }, undefined],
    [{}, undefined],
  ])('reads %j as %s', (headers, expected) => {
    expect(retryAfterMs(headers, now)).toBe(expected)
  })

  it('measures an HTTP date from the injected now', () => {
    const headers = { 'retry-after': 'Sat, 01 Mar 2025 12:01:00 GMT' }
    expect(retryAfterMs(headers, now)).toBe(60_000)
    expect(retryAfterMs(headers, now + 45_000)).toBe(15_000)
  })
})

describe('retryDelayMs', () => {
  const now = Date.parse('2025-03-01T12:00:00Z')
  const noJitter = (): number => 0
  const fullJitter = (): number => 0.999_999

  it('grows exponentially from 500 ms and is capped at 8 s', () => {
    const delays = [1, 2, 3, 4, 5, 6, 10].map((attempt) =>
      retryDelayMs(statusError(500), attempt, noJitter, now),
    )
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000])
    expect(DEFAULT_BACKOFF.maxDelayMs).toBe(8_000)
  })

  it('takes jitter off within [75%, 100%] of the backoff, from the injected random', () => {
    for (const attempt of [1, 2, 3, 4, 5, 8]) {
      const full = Math.min(500 * 2 ** (attempt - 1), 8_000)
      for (const r of [0, 0.1, 0.5, 0.9, 0.999_999]) {
        const delay = retryDelayMs(connectionError(false), attempt, () => r, now)
        expect(delay).toBeGreaterThanOrEqual(Math.floor(full * 0.75))
        expect(delay).toBeLessThanOrEqual(full)
      }
    }
    expect(retryDelayMs(statusError(503), 4, () => 0.5, now)).toBe(3_500)
    expect(retryDelayMs(statusError(503), 4, fullJitter, now)).toBe(3_000)
  })

  it('follows the server hint, adding up to a quarter so that clients do not return in lockstep', () => {
    expect(retryDelayMs(statusError(429, { 'retry-after': '2' }), 1, noJitter, now)).toBe(2_000)
    expect(retryDelayMs(statusError(429, { 'retry-after': '2' }), 1, fullJitter, now)).toBe(2_500)
    expect(retryDelayMs(statusError(429, { 'retry-after-ms': '1500' }), 5, noJitter, now)).toBe(
      1_500,
    )
    const dated = statusError(503, { 'retry-after': 'Sat, 01 Mar 2025 12:00:30 GMT' })
    expect(retryDelayMs(dated, 1, noJitter, now)).toBe(30_000)
  })

  it('caps a server hint at 60 s', () => {
    expect(retryDelayMs(statusError(429, { 'retry-after': '120' }), 1, noJitter, now)).toBe(60_000)
    expect(retryDelayMs(statusError(429, { 'retry-after': '3600' }), 1, noJitter, now)).toBe(60_000)
    const dated = statusError(503, { 'retry-after': 'Sat, 01 Mar 2025 13:00:00 GMT' })
    expect(retryDelayMs(dated, 1, noJitter, now)).toBe(60_000)
  })
})
