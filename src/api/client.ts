import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { HttpClient } from '@actions/http-client'
import { redactSecret, safeForLog } from '../text/log.ts'
import { isRunId, MAX_ANSWER_BYTES, readRunItem } from './answers.ts'
import {
  AgentApiError,
  ApiAbortedError,
  ApiConnectionError,
  ApiResponseFormatError,
  ApiTimeoutError,
  ApiTlsError,
  BadRequestError,
  DownloadError,
  MethodNotAllowedError,
  NotFoundError,
  errorForStatus,
  excerpt,
  type RequestLabel,
} from './errors.ts'
import { isRefusal, isRetryable, retryDelayMs, type RetryMode } from './retry.ts'
import { MAX_TIMER_MS } from '../timing.ts'
import type {
  ArtifactResponse,
  ConversationResponse,
  CreateRunRequest,
  CreateRunResponse,
  FollowupRequest,
  ListRunsQuery,
  ListRunsResponse,
  RunItem,
} from './types.ts'

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

export interface ClientOptions {
  /** Ends in `/api/v1`; already validated by the inputs module. */
  baseUrl: string
  apiKey: string
  userAgent?: string
  /** Deadline of one attempt, from sending to the last byte of the body. */
  timeoutMs?: number
  /** Extra attempts after the first, for failures that are safe to repeat. */
  maxRetries?: number
  /** Bodies larger than this are refused, so that a runaway answer cannot exhaust memory. */
  maxBodyBytes?: number
  sleep?: Sleep
  random?: () => number
  now?: () => number
  /** Told about each retry, so the log explains a slow step. */
  onRetry?: (message: string) => void
}

export type QueryValue = string | number | boolean | readonly string[] | undefined

export interface RequestOptions {
  query?: Readonly<Record<string, QueryValue>>
  body?: unknown
  timeoutMs?: number
  maxRetries?: number
  /** Defaults to `idempotent` for GET and `at-most-once` for everything else. */
  retryMode?: RetryMode
  signal?: AbortSignal
  /** `return`: a redirect is answered to the caller, never followed. Default: it is an error. */
  redirect?: 'error' | 'return'
  /**
   * When the caller stops waiting (epoch ms, on the client's clock): no attempt
   * runs past it and no retry is begun that would end after it.
   */
  deadline?: number
}

/** A decoded answer with its raw status and headers. */
export interface ApiResponse<T> {
  status: number
  headers: IncomingHttpHeaders
  data: T
}

/**
 * `blocked`: the service refused (400) because the run waits for a person; it stays BLOCKED.
 * `refused`: it refused (400), and the run could not be read back to say why.
 */
export type CancelResult = 'cancelled' | 'already-finished' | 'blocked' | 'refused'

export interface DownloadOptions {
  /** Bodies larger than this are refused. Default 25 MiB. */
  maxBytes?: number
  /** Deadline from sending to the last byte. Default 60 s. */
  timeoutMs?: number
  signal?: AbortSignal
}

export interface Download {
  contentType: string | undefined
  body: Buffer
}

const DOWNLOAD_DEFAULTS = { maxBytes: 25 * 1024 * 1024, timeoutMs: 60_000 }

/** A page of runs, and when the service says it answered (its `Date` header, by its own clock). */
export interface ListedRuns extends ListRunsResponse {
  servedAt?: number
}

/** Shorter keys are no real keys; the runner's masking still hides them whole. */
const MIN_REDACTED_KEY_LENGTH = 8

/** Retries allowed for rate-limit refusals, however few `maxRetries` allows for failures. */
const REFUSAL_RETRIES = 8

const DEFAULTS = {
  timeoutMs: 30_000,
  maxRetries: 2,
  maxBodyBytes: MAX_ANSWER_BYTES,
}

/**
 * The only code that knows the API's paths, headers and status codes. Retries,
 * timeouts and error typing live here and nowhere else.
 */
export class AgentRunsClient {
  readonly #baseUrl: string
  readonly #apiKey: string
  readonly #origin: string
  /** Only a service on this machine may hand out download URLs on this machine. */
  readonly #serviceIsLoopback: boolean
  readonly #options: Required<Omit<ClientOptions, 'baseUrl' | 'apiKey' | 'onRetry'>> &
    Pick<ClientOptions, 'onRetry'>

  constructor(options: ClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/$/, '')
    this.#origin = new URL(this.#baseUrl).origin
    this.#serviceIsLoopback = isLoopback(new URL(this.#baseUrl).hostname)
    this.#apiKey = options.apiKey
    this.#options = {
      userAgent: options.userAgent ?? 'cloud-agent-run-action',
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
      sleep: options.sleep ?? abortableSleep,
      random: options.random ?? Math.random,
      now: options.now ?? Date.now,
      onRetry: options.onRetry,
    }
  }

  /**
   * Creates a run. Never repeated when the service may have acted on it; the
   * service's newer path is tried once when the spec's path does not exist.
   */
  async createRun(
    body: CreateRunRequest,
    options: RequestOptions = {},
  ): Promise<CreateRunResponse> {
    const send = async (path: string) => {
      const answer = await this.request<unknown>('POST', path, {
        ...options,
        body,
        retryMode: 'at-most-once',
      })
      return createdRunOf(answer, { method: 'POST', path })
    }
    try {
      return await send('/agent/run')
    } catch (error) {
      // 404 or 405 on the create path means no run was made, so the other path is safe.
      if (error instanceof NotFoundError || error instanceof MethodNotAllowedError) {
        return await send('/agent/runs')
      }
      throw error
    }
  }

  /**
   * The run as the service shows it now. An answer that is not this run (another
   * run's, not an object, a state that is not a string) is a garbled answer,
   * retried like one: it is never taken for the run's state.
   */
  async getRun(runId: string, options: RequestOptions = {}): Promise<RunItem> {
    const path = runPath(runId)
    const label: RequestLabel = { method: 'GET', path }
    return this.#withRetries(label, options, 'idempotent', async (attemptOptions) => {
      const { status, data } = await this.#send<unknown>(label, attemptOptions)
      const read = readRunItem(data, runId)
      if ('problem' in read) throw new ApiResponseFormatError(label, status, read.problem)
      return read.run
    })
  }

  async listRuns(query: ListRunsQuery = {}, options: RequestOptions = {}): Promise<ListedRuns> {
    const { metadata, ...plain } = query
    const flatQuery: Record<string, QueryValue> = { ...plain }
    for (const [key, value] of Object.entries(metadata ?? {})) flatQuery[`metadata[${key}]`] = value
    const { data, headers } = await this.request<ListRunsResponse>('GET', '/agent/runs', {
      ...options,
      query: flatQuery,
    })
    const servedAt = Date.parse(headers.date ?? '')
    // Entries that are not runs are dropped: a lookup must never act on a garbled one.
    const runs = Array.isArray(data?.runs) ? (data.runs as unknown[]) : []
    return {
      ...data,
      runs: runs.flatMap((entry) => {
        const read = readRunItem(entry)
        return 'run' in read ? [read.run] : []
      }),
      ...(Number.isNaN(servedAt) ? {} : { servedAt }),
    }
  }

  /**
   * Every run matching `query`, following the cursor across pages. Stops when
   * the service hands back a cursor it already gave, which would loop forever.
   */
  async *iterateRuns(
    query: ListRunsQuery = {},
    options: RequestOptions & { maxPages?: number } = {},
  ): AsyncGenerator<RunItem> {
    let cursor = query.cursor
    const seen = new Set<string>(cursor === undefined ? [] : [cursor])
    for (let page = 0; page < (options.maxPages ?? 50); page += 1) {
      const { runs, page_info } = await this.listRuns({ ...query, cursor }, options)
      yield* runs
      const next = page_info?.next_cursor
      if (!page_info?.has_next_page || !next || seen.has(next)) return
      seen.add(next)
      cursor = next
    }
  }

  /**
   * Sends a follow-up message to steer a run. Never repeated when it may have
   * arrived. A run whose session is gone answers 410: a SessionGoneError.
   */
  async sendFollowup(
    runId: string,
    message: string,
    options: RequestOptions & { mode?: string } = {},
  ): Promise<void> {
    const { mode, ...rest } = options
    const body: FollowupRequest = mode === undefined ? { message } : { message, mode }
    await this.request<unknown>('POST', `${runPath(runId)}/followups`, {
      ...rest,
      body,
      retryMode: 'at-most-once',
    })
  }

  /**
   * Asks the service to cancel a run. The service refuses (400) a run that has
   * ended and a BLOCKED one alike, so the run is read back to tell them apart.
   * A run still being prepared (409) is retried like any transient failure.
   */
  async cancelRun(runId: string, options: RequestOptions = {}): Promise<CancelResult> {
    try {
      await this.request<unknown>('POST', `${runPath(runId)}/cancel`, {
        ...options,
        retryMode: 'idempotent',
      })
      return 'cancelled'
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error
    }
    try {
      const run = await this.getRun(runId, { signal: options.signal, maxRetries: 1 })
      return run.state === 'BLOCKED' ? 'blocked' : 'already-finished'
    } catch {
      return 'refused'
    }
  }

  /**
   * The run's conversation: what the agent said and did, step by step. Throws
   * NotFoundError while there is none yet and UnprocessableEntityError when the
   * service cannot show this run's format; neither is a failure of the run.
   */
  async getConversation(
    runId: string,
    options: RequestOptions = {},
  ): Promise<ConversationResponse> {
    const { data } = await this.request<ConversationResponse>(
      'GET',
      `${runPath(runId)}/conversation`,
      options,
    )
    return { ...data, steps: Array.isArray(data?.steps) ? data.steps : [] }
  }

  /**
   * Where the run's raw transcript can be downloaded: the service answers with a
   * redirect, whose target is read, not followed, so the key stays with base_url.
   * Fetch it with downloadSignedUrl.
   */
  async getTranscriptUrl(runId: string, options: RequestOptions = {}): Promise<string> {
    const path = `${runPath(runId)}/transcript`
    const response = await this.request<unknown>('GET', path, { ...options, redirect: 'return' })
    const location = response.headers.location
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new ApiResponseFormatError(
        { method: 'GET', path },
        response.status,
        'no redirect to the transcript',
      )
    }
    return new URL(location, this.#baseUrl).toString()
  }

  /** One artifact: FILE and SCREENSHOT carry a signed download URL; a PLAN its Markdown inline. */
  async getArtifact(artifactUid: string, options: RequestOptions = {}): Promise<ArtifactResponse> {
    if (artifactUid.trim() === '') throw new Error('An artifact UID is required')
    const path = `/agent/artifacts/${encodeURIComponent(artifactUid)}`
    return (await this.request<ArtifactResponse>('GET', path, options)).data
  }

  /**
   * Downloads a signed URL the service handed out (an artifact or transcript).
   * It lives on another host, so the key is never sent; https only, and never
   * this machine unless base_url is on it too (a remote service must not aim the
   * runner at its own loopback); capped in size and time. The runner's proxy
   * settings apply.
   */
  async downloadSignedUrl(url: string, options: DownloadOptions = {}): Promise<Download> {
    const target = parseDownloadUrl(url, this.#serviceIsLoopback)
    // The query holds the signature: the label shows neither it nor anything else secret.
    const label: RequestLabel = { method: 'GET', path: `${target.origin}${target.pathname}` }
    const maxBytes = options.maxBytes ?? DOWNLOAD_DEFAULTS.maxBytes
    const timeoutMs = options.timeoutMs ?? DOWNLOAD_DEFAULTS.timeoutMs
    const http = new HttpClient(this.#options.userAgent, [], {
      allowRedirects: false,
      allowRetries: false,
      keepAlive: false,
      socketTimeout: timeoutMs,
    })
    const raw = await withDeadline(
      label,
      timeoutMs,
      options.signal,
      async (track) => {
        const response = await http.request('GET', target.toString(), null, {})
        track(response.message)
        const status = response.message.statusCode ?? 0
        if (status < 200 || status >= 300) {
          response.message.destroy()
          throw new DownloadError(label, status)
        }
        return {
          message: response.message,
          body: await readCappedBuffer(response.message, maxBytes, label),
        }
      },
      () => http.dispose(),
    )
    return { contentType: raw.message.headers['content-type'], body: raw.body }
  }

  /**
   * Sends a request to any endpoint under the base URL, with the client's
   * retries, timeout and error typing, and returns the raw status and headers.
   */
  async request<T>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const retryMode = options.retryMode ?? (method === 'GET' ? 'idempotent' : 'at-most-once')
    const label: RequestLabel = { method, path }
    return this.#withRetries(label, options, retryMode, (attemptOptions) =>
      this.#send<T>(label, attemptOptions),
    )
  }

  /** Runs `attempt` until it succeeds, may not be repeated, or the retries or the deadline run out. */
  async #withRetries<T>(
    label: RequestLabel,
    options: RequestOptions,
    retryMode: RetryMode,
    attempt: (options: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const maxRetries = options.maxRetries ?? this.#options.maxRetries
    // A refusal (429, 503 with Retry-After) proves nothing was done, so it earns more patience.
    const maxRefusals = maxRetries === 0 ? 0 : Math.max(maxRetries, REFUSAL_RETRIES)
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs
    const { deadline } = options
    let failures = 0
    let refusals = 0
    for (let number = 1; ; number += 1) {
      const left = deadline === undefined ? Infinity : deadline - this.#options.now()
      if (left <= 0) throw new ApiTimeoutError(label, 0, 'the caller stopped waiting')
      try {
        return await attempt({ ...options, timeoutMs: Math.max(1, Math.min(timeoutMs, left)) })
      } catch (error) {
        const refused = isRefusal(error)
        const used = refused ? ++refusals : ++failures
        const allowed = refused ? maxRefusals : maxRetries
        if (used > allowed || !isRetryable(error, retryMode) || options.signal?.aborted) {
          throw error
        }
        const delay = retryDelayMs(error, number, this.#options.random, this.#options.now())
        // A retry that would start after the deadline is no retry: the caller gets the failure now.
        if (deadline !== undefined && this.#options.now() + delay >= deadline) throw error
        this.#options.onRetry?.(
          `${safeForLog(errorSummary(error))}; retry ${used} of ${allowed} in ${(delay / 1000).toFixed(1)}s`,
        )
        await this.#options.sleep(delay, options.signal).catch(() => {
          throw new ApiAbortedError(label)
        })
      }
    }
  }

  async #send<T>(label: RequestLabel, options: RequestOptions): Promise<ApiResponse<T>> {
    const url = this.#url(label.path, options.query)
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: 'application/json',
    }
    const body = options.body === undefined ? null : JSON.stringify(options.body)
    if (body !== null) headers['content-type'] = 'application/json'

    // Redirects are refused, not followed: that is what keeps the key on base_url's host.
    const http = new HttpClient(this.#options.userAgent, [], {
      allowRedirects: false,
      allowRetries: false,
      keepAlive: false,
      socketTimeout: timeoutMs,
    })
    const raw: { message: IncomingMessage; text: string } = await withDeadline(
      label,
      timeoutMs,
      options.signal,
      async (track) => {
        const response = await http.request(label.method, url, body, headers)
        track(response.message)
        return {
          message: response.message,
          text: await readCapped(response.message, this.#options.maxBodyBytes, label),
        }
      },
      () => http.dispose(),
    )
    const status = raw.message.statusCode ?? 0
    const responseHeaders = raw.message.headers
    // Before any excerpt, escaping or parsing: a service that echoes the key must not show it.
    // A success body is redacted only for a key long enough not to occur by chance in IDs and
    // text (a one-letter test key would corrupt every answer); an error body always is.
    const isError = status < 200 || status >= 300
    if (isError || this.#apiKey.length >= MIN_REDACTED_KEY_LENGTH) {
      raw.text = redactSecret(raw.text, this.#apiKey)
    }
    if (status >= 300 && status < 400 && options.redirect === 'return') {
      return { status, headers: responseHeaders, data: undefined as T }
    }
    if (status >= 300 && status < 400) {
      throw new ApiResponseFormatError(
        label,
        status,
        `a redirect to ${redirectTarget(responseHeaders.location, url)}, which is not followed so the key stays with base_url`,
      )
    }
    if (status < 200 || status >= 300)
      throw errorForStatus(label, status, responseHeaders, raw.text)
    return { status, headers: responseHeaders, data: parseJson<T>(raw.text, label, status) }
  }

  #url(path: string, query: RequestOptions['query']): string {
    const url = new URL(this.#baseUrl + path)
    // A path is appended to base_url, never resolved against it: no other origin is reachable.
    if (url.origin !== this.#origin) throw new Error(`Refusing to send the key to ${url.origin}`)
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, item)
      else url.searchParams.set(key, String(value))
    }
    return url.toString()
  }
}

/**
 * The create's answer, when it names the run by something that looks like an
 * ID; else a garbled answer (the run may exist: the caller looks it up). A
 * state of the wrong type is not believed either: the polls will tell.
 */
function createdRunOf(answer: ApiResponse<unknown>, label: RequestLabel): CreateRunResponse {
  const data = answer.data as Partial<Record<keyof CreateRunResponse, unknown>> | null
  const runId = typeof data === 'object' && data !== null ? data.run_id : undefined
  if (!isRunId(runId)) {
    throw new ApiResponseFormatError(label, answer.status, 'an answer without a usable run_id')
  }
  const state = data?.state
  return {
    ...(data as object),
    run_id: runId,
    state: typeof state === 'string' && state.trim() !== '' ? state : 'UNKNOWN',
  }
}

/** A run's path. An ID that could leave its segment (`..`, `/`) is refused: it never reaches a URL. */
function runPath(runId: string): string {
  if (!isRunId(runId)) throw new Error(`${JSON.stringify(safeForLog(runId, 100))} is not a run ID`)
  return `/agent/runs/${encodeURIComponent(runId)}`
}

function parseJson<T>(text: string, label: RequestLabel, status: number): T {
  if (text.trim() === '') return undefined as T
  try {
    return JSON.parse(text) as T
  } catch {
    throw new ApiResponseFormatError(
      label,
      status,
      `a body that is not JSON (${text.trim() === '' ? 'empty' : `"${excerpt(text, 60)}"`})`,
    )
  }
}

/** Runs `work` under a deadline and an abort signal; `onGiveUp` tears the connection down. */
async function withDeadline<T>(
  label: RequestLabel,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  work: (track: (message: IncomingMessage) => void) => Promise<T>,
  onGiveUp: () => void,
): Promise<T> {
  if (signal?.aborted) throw new ApiAbortedError(label)
  let message: IncomingMessage | undefined
  const giveUp = () => {
    message?.destroy()
    onGiveUp()
  }
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      giveUp()
      reject(new ApiTimeoutError(label, timeoutMs))
    }, clampTimerMs(timeoutMs))
    const onAbort = () => {
      giveUp()
      reject(new ApiAbortedError(label))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    work((m) => (message = m))
      .then(resolve, (error: unknown) => reject(toConnectionError(label, error)))
      .finally(() => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
      })
  })
}

/** Codes that prove the request never reached the service. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
])

/**
 * Codes of a TLS certificate that Node cannot verify. Nothing reached the
 * service: the handshake failed before the request was sent.
 */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])

function toConnectionError(label: RequestLabel, error: unknown): AgentApiError {
  if (error instanceof AgentApiError) return error
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string' && CERTIFICATE_CODES.has(code)) return new ApiTlsError(label, error)
  if (error instanceof Error && /^Request timeout/.test(error.message)) {
    return new ApiConnectionError(label, new Error('the connection went idle'), true)
  }
  return new ApiConnectionError(
    label,
    error,
    !(typeof code === 'string' && NOT_SENT_CODES.has(code)),
  )
}

async function readCapped(
  message: IncomingMessage,
  maxBytes: number,
  label: RequestLabel,
): Promise<string> {
  return (await readCappedBuffer(message, maxBytes, label)).toString('utf8')
}

async function readCappedBuffer(
  message: IncomingMessage,
  maxBytes: number,
  label: RequestLabel,
): Promise<Buffer> {
  const status = message.statusCode ?? 0
  const declared = Number(message.headers['content-length'])
  const tooLarge = () =>
    new ApiResponseFormatError(
      label,
      status,
      `a body larger than ${maxBytes} bytes, which was not read`,
    )
  if (Number.isFinite(declared) && declared > maxBytes) {
    message.destroy()
    throw tooLarge()
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of message) {
    const buffer = chunk as Buffer
    size += buffer.length
    if (size > maxBytes) {
      message.destroy()
      throw tooLarge()
    }
    chunks.push(buffer)
  }
  return Buffer.concat(chunks)
}

/**
 * A signed download URL: https, or plain http on this machine when the service
 * itself is on it (`serviceIsLoopback`). A remote service's URL may not name this
 * machine at all, whatever its scheme.
 */
function parseDownloadUrl(url: string, serviceIsLoopback: boolean): URL {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    throw new Error('The download URL the service gave does not parse')
  }
  const local = isLoopback(target.hostname)
  if (local && !serviceIsLoopback) {
    throw new Error(
      `Refusing to download from ${target.protocol}//${target.host}: it is this machine, and base_url is not`,
    )
  }
  if (target.protocol === 'https:' || (target.protocol === 'http:' && local)) return target
  throw new Error(
    `Refusing to download from ${target.protocol}//${target.host}: only https is allowed`,
  )
}

/**
 * Whether a URL's hostname (as `URL` writes it: IPv4 in dotted decimal, IPv6 in
 * brackets and compressed) is this machine: localhost and its subdomains,
 * 127.0.0.0/8, 0.0.0.0, ::1, ::, and IPv4-mapped loopback.
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (/^127\.\d+\.\d+\.\d+$/.test(host) || host === '0.0.0.0') return true
  if (host === '[::1]' || host === '[::]') return true
  // ::ffff:127.x.y.z, which URL writes as [::ffff:7fxx:xxxx]; and [::ffff:0:0] for 0.0.0.0.
  return /^\[::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|0:0)\]$/.test(host)
}

function redirectTarget(location: string | undefined, from: string): string {
  if (!location) return 'an unnamed location'
  try {
    return new URL(location, from).origin
  } catch {
    return 'an unparseable location'
  }
}

function errorSummary(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** A timer that ends early, rejecting, when `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, clampTimerMs(ms))
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export function clampTimerMs(ms: number): number {
  if (Number.isNaN(ms)) return 0
  return Math.min(Math.max(0, ms), MAX_TIMER_MS)
}
