/**
 * The transport under the API client: one request to a path under base_url, with the key,
 * deadlines, retries, the body cap, and the one place an HTTP status becomes a typed error.
 * It knows no endpoint: the paths and what their answers mean are the client's (client.ts).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { HttpClient } from '@actions/http-client'
import { asSentence, errorMessage } from '../text/plain.ts'
import { redactSecret, safeForLog } from '../text/log.ts'
import { MAX_ANSWER_BYTES } from './answers.ts'
import {
  AgentApiError,
  ApiAbortedError,
  ApiConnectionError,
  ApiResponseFormatError,
  ApiTimeoutError,
  ApiTlsError,
  DownloadError,
  errorForStatus,
  excerpt,
  type RequestLabel,
} from './errors.ts'
import { isRefusal, isRetryable, retryDelayMs, type RetryMode } from './retry.ts'
import { isLoopback, parseDownloadUrl } from './download-url.ts'
import { RequestSlots, takeSlot } from './slots.ts'
import { DOWNLOAD_ATTEMPT_MS, MAX_TIMER_MS, REQUEST_RETRIES } from '../timing.ts'

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
  /** Requests (and downloads) in flight at once; the rest wait their turn, in order. */
  maxInFlight?: number
}

type QueryValue = string | number | boolean | readonly string[] | undefined

export interface RequestOptions {
  timeoutMs?: number
  maxRetries?: number
  signal?: AbortSignal
  /**
   * When the caller stops waiting (epoch ms, on the client's clock): no attempt
   * runs past it and no retry is begun that would end after it.
   */
  deadline?: number
  /**
   * Goes out at once, past the requests waiting their turn (`maxInFlight`): a cancel, which
   * may have only the seconds before the runner's kill, never waits behind reads.
   */
  urgent?: boolean
}

interface SendOptions<T> extends RequestOptions {
  query?: Readonly<Record<string, QueryValue>>
  body?: unknown
  /** Defaults to `idempotent` for GET and `at-most-once` for everything else. */
  retryMode?: RetryMode
  /**
   * What the answer must be to be believed. Any other is a garbled answer, retried like
   * one (when the request may be repeated): it is never handed to the caller.
   */
  read?: AnswerReader<T>
}

/** The answer's body as a `T`, or why it is not one. */
export type AnswerReader<T> = (data: unknown) => { value: T } | { problem: string }

/** A decoded answer with its raw headers. */
export interface ApiResponse<T> {
  headers: IncomingHttpHeaders
  data: T
}

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

const DOWNLOAD_DEFAULTS = { maxBytes: 25 * 1024 * 1024, timeoutMs: DOWNLOAD_ATTEMPT_MS }

/** Shorter keys are no real keys; the runner's masking still hides them whole. */
const MIN_REDACTED_KEY_LENGTH = 8

const DEFAULTS = {
  // A browser's six per host, a few times over: a set's thousand answers read 16 at a time
  // on loopback took no longer than all at once, and held a fraction of the memory.
  maxInFlight: 16,
  timeoutMs: REQUEST_RETRIES.attemptMs,
  maxRetries: REQUEST_RETRIES.maxRetries,
  maxBodyBytes: MAX_ANSWER_BYTES,
}

export class Transport {
  readonly #baseUrl: string
  readonly #apiKey: string
  readonly #origin: string
  /** Only a service on this machine may hand out download URLs on this machine. */
  readonly #serviceIsLoopback: boolean
  readonly #slots: RequestSlots
  readonly #options: Required<
    Omit<ClientOptions, 'baseUrl' | 'apiKey' | 'onRetry' | 'maxInFlight'>
  > &
    Pick<ClientOptions, 'onRetry'>

  constructor(options: ClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/$/, '')
    this.#origin = new URL(this.#baseUrl).origin
    this.#serviceIsLoopback = isLoopback(new URL(this.#baseUrl).hostname)
    this.#apiKey = options.apiKey
    this.#slots = new RequestSlots(options.maxInFlight ?? DEFAULTS.maxInFlight)
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
   * Sends a request to a path under base_url until it succeeds, may not be repeated, or the
   * retries or the deadline run out. Without `read`, the body is whatever JSON it holds.
   */
  async request<T>(
    method: string,
    path: string,
    options: SendOptions<T> = {},
  ): Promise<ApiResponse<T>> {
    const label: RequestLabel = { method, path }
    const retryMode = options.retryMode ?? (method === 'GET' ? 'idempotent' : 'at-most-once')
    const maxRetries = options.maxRetries ?? this.#options.maxRetries
    // A refusal (429, 503 with Retry-After) proves nothing was done, so it earns more patience.
    const maxRefusals = maxRetries === 0 ? 0 : Math.max(maxRetries, REQUEST_RETRIES.refusalRetries)
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs
    const { deadline } = options
    let failures = 0
    let refusals = 0
    for (let number = 1; ; number += 1) {
      const left = deadline === undefined ? Infinity : deadline - this.#options.now()
      if (left <= 0) throw new ApiTimeoutError(label, 0, 'the caller stopped waiting')
      try {
        const release = options.urgent === true ? () => {} : await this.#slot(label, options)
        try {
          // The attempt's own deadline starts once it goes out, not while it waits its turn.
          const attemptLeft = deadline === undefined ? Infinity : deadline - this.#options.now()
          return await this.#send(label, {
            ...options,
            timeoutMs: Math.max(1, Math.min(timeoutMs, attemptLeft)),
          })
        } finally {
          release()
        }
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
          `${asSentence(safeForLog(errorMessage(error)))} Retry ${used} of ${allowed} in ${(delay / 1000).toFixed(1)}s.`,
        )
        await this.#options.sleep(delay, options.signal).catch(() => {
          throw new ApiAbortedError(label)
        })
      }
    }
  }

  /**
   * Downloads a signed URL the service handed out (an artifact's). It lives on another
   * host, so the key is never sent; https only, and never this machine unless base_url is
   * on it too (a remote service must not aim the runner at its own loopback); capped in
   * size and time. The runner's proxy settings apply.
   */
  async download(url: string, options: DownloadOptions = {}): Promise<Download> {
    const target = parseDownloadUrl(url, this.#serviceIsLoopback)
    // The query holds the signature: the label shows neither it nor anything else secret.
    const label: RequestLabel = { method: 'GET', path: `${target.origin}${target.pathname}` }
    const maxBytes = options.maxBytes ?? DOWNLOAD_DEFAULTS.maxBytes
    const timeoutMs = options.timeoutMs ?? DOWNLOAD_DEFAULTS.timeoutMs
    const release = await this.#slot(label, { signal: options.signal })
    const http = this.#http(timeoutMs)
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
          body: await readCapped(response.message, maxBytes, label),
        }
      },
      () => http.dispose(),
    ).finally(release)
    return { contentType: raw.message.headers['content-type'], body: raw.body }
  }

  /** A slot to send in, given up with the caller (its signal, its deadline) while it waits. */
  #slot(label: RequestLabel, { signal, deadline }: RequestOptions): Promise<() => void> {
    return takeSlot(this.#slots, {
      signal,
      deadline,
      now: this.#options.now,
      sleep: this.#options.sleep,
      aborted: () => new ApiAbortedError(label),
      timedOut: () => new ApiTimeoutError(label, 0, 'the caller stopped waiting'),
    })
  }

  async #send<T>(label: RequestLabel, options: SendOptions<T>): Promise<ApiResponse<T>> {
    const url = this.#url(label.path, options.query)
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: 'application/json',
    }
    const body = options.body === undefined ? null : JSON.stringify(options.body)
    if (body !== null) headers['content-type'] = 'application/json'

    const http = this.#http(timeoutMs)
    const raw = await withDeadline(
      label,
      timeoutMs,
      options.signal,
      async (track) => {
        const response = await http.request(label.method, url, body, headers)
        track(response.message)
        const bytes = await readCapped(response.message, this.#options.maxBodyBytes, label)
        return { message: response.message, text: bytes.toString('utf8') }
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
    if (status >= 300 && status < 400) {
      throw new ApiResponseFormatError(
        label,
        status,
        `a redirect to ${redirectTarget(responseHeaders.location, url)}, which is not followed so the key stays with base_url`,
      )
    }
    if (isError) throw errorForStatus(label, status, responseHeaders, raw.text)
    const data = parseJson(raw.text, label, status)
    if (!options.read) return { headers: responseHeaders, data: data as T }
    const read = options.read(data)
    if ('problem' in read) throw new ApiResponseFormatError(label, status, read.problem)
    return { headers: responseHeaders, data: read.value }
  }

  /** Redirects are refused, not followed: that is what keeps the key on base_url's host. */
  #http(timeoutMs: number): HttpClient {
    return new HttpClient(this.#options.userAgent, [], {
      allowRedirects: false,
      allowRetries: false,
      keepAlive: false,
      socketTimeout: timeoutMs,
    })
  }

  #url(path: string, query: Readonly<Record<string, QueryValue>> | undefined): string {
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

function parseJson(text: string, label: RequestLabel, status: number): unknown {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new ApiResponseFormatError(
      label,
      status,
      `a body that is not JSON ("${excerpt(text, 60)}")`,
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

function redirectTarget(location: string | undefined, from: string): string {
  if (!location) return 'an unnamed location'
  try {
    return new URL(location, from).origin
  } catch {
    return 'an unparseable location'
  }
}

/**
 * `signal`, also aborted `ms` from now. Not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`:
 * on Node 20 the composite holds its timeout signal weakly, so garbage collection can take it
 * and the composite then never aborts (a hung read held the step past its bound).
 */
export function abortAfter(signal: AbortSignal, ms: number): AbortSignal {
  const controller = new AbortController()
  if (signal.aborted) {
    controller.abort(signal.reason)
    return controller.signal
  }
  const onAbort = () => {
    clearTimeout(timer)
    controller.abort(signal.reason)
  }
  const timer = setTimeout(() => {
    signal.removeEventListener('abort', onAbort)
    controller.abort(new DOMException(`The deadline of ${ms} ms passed`, 'TimeoutError'))
  }, clampTimerMs(ms))
  // The timer bounds a wait; it must not keep a step that is done from exiting.
  timer.unref()
  signal.addEventListener('abort', onAbort, { once: true })
  return controller.signal
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

function clampTimerMs(ms: number): number {
  if (Number.isNaN(ms)) return 0
  return Math.min(Math.max(0, ms), MAX_TIMER_MS)
}
