import type { IncomingHttpHeaders } from 'node:http'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import type { ProblemDocument } from './types.ts'
import { clip, errorMessage } from '../text/plain.ts'

/** What a request was, for messages. Never holds the key or any header. */
export interface RequestLabel {
  method: string
  path: string
}

const describe = (request: RequestLabel): string => `${request.method} ${request.path}`

/** Base class of every error the API client throws. */
export class AgentApiError extends Error {
  override name = 'AgentApiError'
  readonly request: RequestLabel

  constructor(message: string, request: RequestLabel, options?: ErrorOptions) {
    super(message, options)
    this.request = request
  }
}

/**
 * The service could not be reached, or the connection broke before an answer
 * arrived. `requestSent` is false only when the failure proves the service never
 * saw the request (refused connection, unknown host): only then is a
 * non-idempotent request safe to repeat.
 */
export class ApiConnectionError extends AgentApiError {
  override name = 'ApiConnectionError'
  readonly requestSent: boolean
  readonly code: string | undefined

  constructor(request: RequestLabel, cause: unknown, requestSent: boolean) {
    const code = errorCode(cause)
    const reason = errorMessage(cause)
    super(
      `${describe(request)} failed: cannot reach the service (${reason}). Check base_url, and on ` +
        'a self-hosted runner its proxy (HTTPS_PROXY, NO_PROXY) and firewall.',
      request,
      { cause },
    )
    this.requestSent = requestSent
    this.code = code
  }
}

/** No complete answer within the request's timeout. The service may have acted. */
export class ApiTimeoutError extends ApiConnectionError {
  override name = 'ApiTimeoutError'
  readonly timeoutMs: number

  constructor(request: RequestLabel, timeoutMs: number, reason?: string) {
    const why = reason ?? `no answer within ${formatDuration(timeoutMs, 'exact')}`
    super(request, new Error(why), true)
    this.message = `${describe(request)} timed out: ${why}`
    this.timeoutMs = timeoutMs
  }
}

/**
 * The service's TLS certificate could not be verified, so nothing was sent: a
 * certificate problem on this side (often a proxy that inspects TLS), not a
 * lost answer. Repeating the request cannot help.
 */
export class ApiTlsError extends ApiConnectionError {
  override name = 'ApiTlsError'

  constructor(request: RequestLabel, cause: unknown) {
    super(request, cause, false)
    const reason = errorMessage(cause)
    this.message =
      `${describe(request)} failed: the service's TLS certificate cannot be verified (${this.code ?? 'TLS'}: ${safeForLog(reason, 200)}). ` +
      'Nothing reached the service. If a proxy inspects TLS (as on many self-hosted runners), give Node its CA certificate with the NODE_EXTRA_CA_CERTS environment variable; never turn verification off.'
  }
}

/** The request was cancelled by the caller (for instance, the workflow was cancelled). */
export class ApiAbortedError extends AgentApiError {
  override name = 'ApiAbortedError'

  constructor(request: RequestLabel) {
    super(`${describe(request)} was aborted`, request)
  }
}

/**
 * A successful status with a body the client cannot use: not JSON (a proxy's
 * HTML page), larger than the cap, or a redirect the client refuses to follow
 * so that the key never travels to another address.
 */
export class ApiResponseFormatError extends AgentApiError {
  override name = 'ApiResponseFormatError'
  readonly status: number

  constructor(request: RequestLabel, status: number, problem: string) {
    super(`${describe(request)} answered ${status} with ${safeForLog(problem, 300)}`, request)
    this.status = status
  }
}

/** A signed download URL answered with something other than its content. */
export class DownloadError extends AgentApiError {
  override name = 'DownloadError'
  readonly status: number

  constructor(request: RequestLabel, status: number) {
    const hint = status === 403 ? ' (the signed URL may have expired; ask for a new one)' : ''
    super(`${describe(request)} answered ${status}${hint}`, request)
    this.status = status
  }
}

/** The service answered with an error status. Subclasses name the common ones. */
export class ApiStatusError extends AgentApiError {
  override name = 'ApiStatusError'
  readonly status: number
  /** The machine-readable code: the last segment of the problem's `type`. */
  readonly code: string | undefined
  readonly detail: string | undefined
  readonly traceId: string | undefined
  readonly problem: ProblemDocument | undefined
  readonly headers: IncomingHttpHeaders

  constructor(
    request: RequestLabel,
    status: number,
    headers: IncomingHttpHeaders,
    problem: ProblemDocument | undefined,
    bodyExcerpt: string,
  ) {
    const code = textOrUndefined(problemCode(problem))
    const detail = textOrUndefined(problem?.detail ?? problem?.error ?? problem?.title)
    const traceId = textOrUndefined(problem?.trace_id)
    super(statusMessage(request, status, code, detail ?? bodyExcerpt, traceId), request)
    this.status = status
    this.code = code
    this.detail = detail
    this.traceId = traceId
    this.problem = problem
    this.headers = headers
  }
}

export class BadRequestError extends ApiStatusError {
  override name = 'BadRequestError'
}
export class AuthenticationError extends ApiStatusError {
  override name = 'AuthenticationError'
}
export class PermissionDeniedError extends ApiStatusError {
  override name = 'PermissionDeniedError'
}
export class NotFoundError extends ApiStatusError {
  override name = 'NotFoundError'
}
export class MethodNotAllowedError extends ApiStatusError {
  override name = 'MethodNotAllowedError'
}
export class ConflictError extends ApiStatusError {
  override name = 'ConflictError'
}
export class UnprocessableEntityError extends ApiStatusError {
  override name = 'UnprocessableEntityError'
}
/**
 * 410: the run's session can no longer be reached (for instance a failed run's,
 * once its debug window closed), so it takes no follow-up.
 */
export class SessionGoneError extends ApiStatusError {
  override name = 'SessionGoneError'

  constructor(...args: ConstructorParameters<typeof ApiStatusError>) {
    super(...args)
    this.message +=
      " The run's session is gone: start a new run with this run's conversation_id to carry the conversation on."
  }
}
export class RateLimitError extends ApiStatusError {
  override name = 'RateLimitError'
}
export class InternalServerError extends ApiStatusError {
  override name = 'InternalServerError'
}

const STATUS_CLASSES: Readonly<Record<number, typeof ApiStatusError>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  409: ConflictError,
  410: SessionGoneError,
  422: UnprocessableEntityError,
  429: RateLimitError,
}

/** The one place that turns an error status into a typed error. */
export function errorForStatus(
  request: RequestLabel,
  status: number,
  headers: IncomingHttpHeaders,
  body: string,
): ApiStatusError {
  const problem = parseProblem(body)
  const ErrorClass =
    STATUS_CLASSES[status] ?? (status >= 500 ? InternalServerError : ApiStatusError)
  return new ErrorClass(request, status, headers, problem, excerpt(body))
}

/** What to tell the user to do, by status or problem code. */
const HINTS: Readonly<Record<string, string>> = {
  '401': 'Check the api_key input: the key is missing, wrong, expired or revoked.',
  '403': 'The api_key is valid but may not do this; check its owner and permissions.',
  insufficient_credits: 'The account has run out of credits.',
  budget_exceeded: 'The team has reached its spending budget.',
  content_policy_violation: 'The prompt was refused by the content policy.',
}

function statusMessage(
  request: RequestLabel,
  status: number,
  code: string | undefined,
  detail: string,
  traceId: string | undefined,
): string {
  const parts = [`${describe(request)} → ${status}${code ? ` ${safeForLog(code, 100)}` : ''}`]
  const shown = safeForLog(detail, 1000)
  if (shown) parts[0] += `: ${shown}${/[.!?]$/.test(shown) ? '' : '.'}`
  const hint = (code && HINTS[code]) ?? HINTS[String(status)]
  if (hint) parts.push(hint)
  if (traceId) parts.push(`(trace_id ${safeForLog(traceId, 100)})`)
  return parts.join(' ')
}

function parseProblem(body: string): ProblemDocument | undefined {
  try {
    const parsed: unknown = JSON.parse(body)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as ProblemDocument)
      : undefined
  } catch {
    return undefined
  }
}

/** Problem fields are shown only as text: a service may send any type. */
function textOrUndefined(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

function problemCode(problem: ProblemDocument | undefined): string | undefined {
  const type = problem?.type
  if (typeof type !== 'string' || type === '' || type === 'about:blank') return undefined
  return type.split('/').filter(Boolean).pop()
}

/** A short, single-line taste of a body that is not a problem document (e.g. an HTML page). */
export function excerpt(body: string, max = 200): string {
  const flat = withoutTags(body).replace(/\s+/g, ' ').trim()
  if (flat === '') return ''
  return safeForLog(clip(flat, max))
}

/**
 * `text` with every `<…>` replaced by a space, as `/<[^>]*>/g` would, but in
 * linear time: that expression rescans to the end from every `<` that is never
 * closed, so a 400 KB error page of them took minutes.
 */
export function withoutTags(text: string): string {
  let out = ''
  let from = 0
  for (;;) {
    const open = text.indexOf('<', from)
    const close = open === -1 ? -1 : text.indexOf('>', open + 1)
    // No `>` after this `<` means none after any later one either: the rest is text.
    if (close === -1) return out + text.slice(from)
    out += `${text.slice(from, open)} `
    from = close + 1
  }
}

function errorCode(cause: unknown): string | undefined {
  if (typeof cause === 'object' && cause !== null && 'code' in cause) {
    const { code } = cause as { code: unknown }
    return typeof code === 'string' ? code : undefined
  }
  return undefined
}

/**
 * Whether a request failed because the service could not be reached or refused the key (401,
 * 403): what the command's exit 3 says, for one run and for a set whose every create failed so.
 */
export function isUnreachableOrRefused(error: unknown): boolean {
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) return true
  if (error instanceof ApiStatusError) return false
  return error instanceof ApiConnectionError
}
