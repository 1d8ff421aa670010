/**
 * Integration tests of the API client against the in-repo fake API over real loopback HTTP.
 * Nothing in the client is mocked; only its clock, jitter and backoff sleep are injected so
 * that retries cost no wall time.
 */
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentRunsClient } from '../../src/api/client.ts'
import { Transport, type ClientOptions } from '../../src/api/transport.ts'
import {
  AgentApiError,
  ApiAbortedError,
  ApiConnectionError,
  ApiResponseFormatError,
  ApiStatusError,
  ApiTimeoutError,
  AuthenticationError,
  ConflictError,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  RateLimitError,
  UnprocessableEntityError,
} from '../../src/api/errors.ts'
import type { ListRunsResponse } from '../../src/api/types.ts'
import { FakeAgentApi } from '../fake-api/server.ts'
import type { FakeApiOptions, RunScript } from '../fake-api/server.ts'

const API_KEY = 'sk-integration-7f3a9c1e5b'
const WRONG_KEY = 'sk-wrong-0d9e8f7a6b'
const SECRETS = [API_KEY, WRONG_KEY]
const RUN_PATH = /^\/api\/v1\/agent\/runs\/[^/]+$/
const ACTIVE: RunScript = [{ state: 'INPROGRESS', afterMs: 0 }]
const FINISHED: RunScript = [{ state: 'SUCCEEDED', afterMs: 0 }]
/** A fixed clock on a whole second, so HTTP dates (second precision) convert exactly. */
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0)

const closers: (() => Promise<void>)[] = []
let sleeps: number[] = []
let retryMessages: string[] = []

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
  sleeps = []
  retryMessages = []
})

async function startApi(options: FakeApiOptions = {}): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start({ apiKey: API_KEY, ...options })
  closers.push(() => api.close())
  return api
}

function makeClient(api: FakeAgentApi, overrides: Partial<ClientOptions> = {}): AgentRunsClient {
  return new AgentRunsClient({
    baseUrl: api.baseUrl,
    apiKey: API_KEY,
    timeoutMs: 5000,
    sleep: (ms) => {
      sleeps.push(ms)
      return Promise.resolve()
    },
    random: () => 0,
    now: () => NOW,
    onRetry: (message) => retryMessages.push(message),
    ...overrides,
  })
}

function makeTransport(api: FakeAgentApi): Transport {
  return new Transport({ baseUrl: api.baseUrl, apiKey: API_KEY, timeoutMs: 5000 })
}

/** A plain loopback server for the cases the fake cannot produce. */
async function startRawServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  const { port } = server.address() as AddressInfo
  return { server, url: `http://127.0.0.1:${port}` }
}

/**
 * Awaits a rejection, checks its type and that its message is one readable line that never
 * carries a key, and returns it typed.
 */
async function rejection<T extends Error>(
  promise: Promise<unknown>,
  type: new (...args: never[]) => T,
): Promise<T> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection, but the promise resolved'),
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(type)
  const typed = error as T
  expect(typed.message).not.toMatch(/[\r\n]/)
  for (const text of [typed.message, typed.stack ?? '', String(typed.cause ?? '')]) {
    for (const secret of SECRETS) expect(text).not.toContain(secret)
  }
  return typed
}

describe('createRun', () => {
  it('posts the JSON body with the bearer key to /agent/run and returns the run', async () => {
    const api = await startApi()
    const client = makeClient(api)
    const body = { prompt: 'Fix the flaky test', title: 'CI fix', metadata: { workflow: 'ci' } }

    const created = await client.createRun(body)

    expect(created.run_id).toMatch(/^run_/)
    expect(created.state).toBe('QUEUED')
    expect(api.requests).toHaveLength(1)
    const [request] = api.requests
    expect(request?.method).toBe('POST')
    expect(request?.path).toBe('/api/v1/agent/run')
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`)
    expect(request?.headers['content-type']).toMatch(/^application\/json/)
    expect(request?.json).toEqual(body)
    expect(api.allRuns().map((run) => run.run_id)).toEqual([created.run_id])
    expect(api.run(created.run_id)?.metadata).toEqual({ workflow: 'ci' })
  })

  it('falls back once to /agent/runs when /agent/run does not exist', async () => {
    const api = await startApi({ createPath: '/agent/runs' })
    const client = makeClient(api)

    const created = await client.createRun({ prompt: 'hello' })

    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v1/agent/run',
      'POST /api/v1/agent/runs',
    ])
    expect(api.requests[1]?.json).toEqual({ prompt: 'hello' })
    expect(api.allRuns().map((run) => run.run_id)).toEqual([created.run_id])
    expect(sleeps).toEqual([])
  })

  it('is not retried when the connection resets after the service acted', async () => {
    const api = await startApi()
    api.injectFault({ method: 'POST', fault: { kind: 'reset-after-acting' }, times: Infinity })
    const client = makeClient(api)

    const error = await rejection(client.createRun({ prompt: 'once' }), ApiConnectionError)

    expect(error).not.toBeInstanceOf(ApiTimeoutError)
    expect(error.requestSent).toBe(true)
    expect(api.requests).toHaveLength(1)
    expect(api.allRuns()).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  // The step looks such a run up by its tag (reliability-runs.test.ts follows one case through).
  it.each([
    ['an empty body', ''],
    ['null', 'null'],
    ['{}', '{}'],
    ['a number', '42'],
    ['a run_id that is not an ID', '{"run_id":"../admin","state":"QUEUED"}'],
  ])('a 200 with %s is a garbled answer, never retried: the run may exist', async (_, body) => {
    const api = await startApi()
    api.injectFault({
      method: 'POST',
      fault: { kind: 'malformed', status: 200, contentType: 'application/json', body, act: true },
    })
    const client = makeClient(api)

    await rejection(client.createRun({ prompt: 'once' }), ApiResponseFormatError)

    expect(api.requests).toHaveLength(1)
    expect(api.allRuns()).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it('is not retried after a timeout, since a slow service may still act', async () => {
    const api = await startApi()
    api.injectFault({ method: 'POST', fault: { kind: 'delay', ms: 1000 } })
    const client = makeClient(api, { timeoutMs: 200 })

    await rejection(client.createRun({ prompt: 'slow' }), ApiTimeoutError)

    expect(api.requests).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it.each([500, 502])('is not retried after a %i (at most once)', async (status) => {
    const api = await startApi()
    api.injectFault({ method: 'POST', fault: { kind: 'status', status }, times: Infinity })
    const client = makeClient(api)

    const error = await rejection(client.createRun({ prompt: 'once' }), InternalServerError)

    expect(error.status).toBe(status)
    expect(api.requests).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it('is not retried after a 503 without a retry hint', async () => {
    const api = await startApi()
    api.injectFault({ method: 'POST', fault: { kind: 'status', status: 503 } })
    const client = makeClient(api)

    await rejection(client.createRun({ prompt: 'once' }), InternalServerError)

    expect(api.requests).toHaveLength(1)
    expect(api.allRuns()).toHaveLength(0)
  })

  it.each([
    ['Retry-After in seconds', { 'retry-after': '1' }, 1000],
    ['retry-after-ms', { 'retry-after-ms': '250' }, 250],
    ['Retry-After as an HTTP date', { 'retry-after': new Date(NOW + 3000).toUTCString() }, 3000],
  ])('is retried after a 429 with %s, waiting as told', async (_name, headers, expected) => {
    const api = await startApi()
    api.injectFault({ method: 'POST', fault: { kind: 'status', status: 429, headers } })
    const client = makeClient(api)

    const created = await client.createRun({ prompt: 'rate limited' })

    expect(sleeps).toEqual([expected])
    expect(api.requestsTo('POST', '/agent/run')).toHaveLength(2)
    expect(api.allRuns().map((run) => run.run_id)).toEqual([created.run_id])
    expect(retryMessages).toHaveLength(1)
    expect(retryMessages[0]).toContain('429')
  })

  it('is retried after a 503 that names a Retry-After', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'POST',
      fault: { kind: 'status', status: 503, headers: { 'retry-after': '2' } },
    })
    const client = makeClient(api)

    const created = await client.createRun({ prompt: 'busy' })

    expect(sleeps).toEqual([2000])
    expect(api.requests).toHaveLength(2)
    expect(api.allRuns().map((run) => run.run_id)).toEqual([created.run_id])
  })

  it('gives up on a persistent 429 after its refusal allowance (8), not maxRetries', async () => {
    const api = await startApi({ rateLimit: { capacity: 0, refillPerSecond: 0 } })
    const client = makeClient(api, { maxRetries: 3 })

    const error = await rejection(client.createRun({ prompt: 'x' }), RateLimitError)

    expect(error.status).toBe(429)
    expect(error.code).toBe('resource_unavailable')
    expect(api.requests).toHaveLength(9)
    expect(sleeps).toEqual(Array(8).fill(1000))
    expect(api.allRuns()).toHaveLength(0)
  })

  it('makes no retry at all, refusals included, when maxRetries is 0', async () => {
    const api = await startApi({ rateLimit: { capacity: 0, refillPerSecond: 0 } })
    const client = makeClient(api, { maxRetries: 0 })

    await rejection(client.createRun({ prompt: 'x' }), RateLimitError)

    expect(api.requests).toHaveLength(1)
  })
})

describe('getRun', () => {
  it('returns the run as the service shows it', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p', title: 'T' }, { script: ACTIVE })
    const client = makeClient(api)

    const run = await client.getRun(seeded.run_id)

    expect(run.run_id).toBe(seeded.run_id)
    expect(run.state).toBe('INPROGRESS')
    expect(run.title).toBe('T')
    expect(api.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`)
    expect(api.requests[0]?.path).toBe(`/api/v1/agent/runs/${seeded.run_id}`)
  })

  it.each(['run/../odd id?x=1', '..', '.', 'run\n::stop-commands::x'])(
    'refuses the run ID %j, which is no ID, before any request',
    async (runId) => {
      const api = await startApi()
      const client = makeClient(api)

      await expect(client.getRun(runId)).rejects.toThrow(/not a run ID/)
      await expect(client.cancelRun(runId)).rejects.toThrow(/not a run ID/)
      expect(api.requests).toHaveLength(0)
    },
  )

  it.each([500, 502, 503])('retries a %i with backoff and succeeds', async (status) => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.injectFault({ method: 'GET', path: RUN_PATH, fault: { kind: 'status', status }, times: 2 })
    const client = makeClient(api)

    const run = await client.getRun(seeded.run_id)

    expect(run.run_id).toBe(seeded.run_id)
    expect(api.requests).toHaveLength(3)
    expect(sleeps).toEqual([500, 1000])
    expect(retryMessages[0]).toContain('Retry 1 of 2')
    expect(retryMessages[1]).toContain('Retry 2 of 2')
    // Each line is sentences: the error's own, then the retry's; never "….; retry".
    for (const message of retryMessages) {
      expect(message).toMatch(/[^.;:,]\. Retry \d of 2 in \d+\.\d+s\.$/)
    }
  })

  it('retries a connection reset and succeeds', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.injectFault({ method: 'GET', fault: { kind: 'reset' } })
    const client = makeClient(api)

    const run = await client.getRun(seeded.run_id)

    expect(run.state).toBe('INPROGRESS')
    expect(api.requests).toHaveLength(2)
    expect(sleeps).toHaveLength(1)
  })

  it('retries a 200 whose body is a proxy HTML page and succeeds', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.injectFault({ method: 'GET', fault: { kind: 'malformed' } })
    const client = makeClient(api)

    const run = await client.getRun(seeded.run_id)

    expect(run.run_id).toBe(seeded.run_id)
    expect(api.requests).toHaveLength(2)
  })

  it('gives up on a persistent 500 with a one-line message holding detail and trace_id', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' })
    api.injectFault({
      method: 'GET',
      fault: {
        kind: 'status',
        status: 500,
        body: {
          type: 'https://errors.example.test/internal_error',
          title: 'Internal Server Error',
          status: 500,
          detail: 'The run store is unavailable.',
          trace_id: 'trace_abc123',
        },
      },
      times: Infinity,
    })
    const client = makeClient(api)

    const error = await rejection(client.getRun(seeded.run_id), InternalServerError)

    expect(error.status).toBe(500)
    expect(error.code).toBe('internal_error')
    expect(error.detail).toBe('The run store is unavailable.')
    expect(error.traceId).toBe('trace_abc123')
    expect(error.message).toContain('The run store is unavailable.')
    expect(error.message).toContain('trace_abc123')
    expect(error.message).toContain(`GET /agent/runs/${seeded.run_id}`)
    expect(api.requests).toHaveLength(3)
    expect(sleeps).toHaveLength(2)
  })

  it("puts the fake's own problem detail and trace_id in the message of a 502", async () => {
    const api = await startApi()
    api.injectFault({ method: 'GET', fault: { kind: 'status', status: 502 }, times: Infinity })
    const client = makeClient(api, { maxRetries: 1 })

    const error = await rejection(client.getRun('run_x'), InternalServerError)

    expect(error.status).toBe(502)
    expect(error.code).toBe('resource_unavailable')
    expect(error.traceId).toMatch(/^trace_\d+$/)
    expect(error.message).toContain('Injected fault.')
    expect(error.message).toContain(String(error.traceId))
    expect(api.requests).toHaveLength(2)
  })

  it('gives up on persistent resets with an ApiConnectionError', async () => {
    const api = await startApi()
    api.injectFault({ method: 'GET', fault: { kind: 'reset' }, times: Infinity })
    const client = makeClient(api, { maxRetries: 2 })

    const error = await rejection(client.getRun('run_x'), ApiConnectionError)

    expect(error).not.toBeInstanceOf(ApiTimeoutError)
    expect(error.message).toContain('GET /agent/runs/run_x')
    expect(api.requests).toHaveLength(3)
  })

  it('gives up on a persistent HTML 200 with an ApiResponseFormatError', async () => {
    const api = await startApi()
    api.injectFault({ method: 'GET', fault: { kind: 'malformed' }, times: Infinity })
    const client = makeClient(api)

    const error = await rejection(client.getRun('run_x'), ApiResponseFormatError)

    expect(error.status).toBe(200)
    expect(error.message).toMatch(/not JSON/)
    expect(api.requests).toHaveLength(3)
  })

  it('reports an HTML error page by its text, not its markup', async () => {
    const api = await startApi()
    api.injectFault({ method: 'GET', fault: { kind: 'malformed', status: 502 }, times: Infinity })
    const client = makeClient(api, { maxRetries: 0 })

    const error = await rejection(client.getRun('run_x'), InternalServerError)

    expect(error.status).toBe(502)
    expect(error.message).toContain('502 Bad Gateway')
    expect(error.message).not.toMatch(/<[a-z/][^>]*>/i)
  })

  it('stops retrying a 503 that says x-should-retry: false', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'GET',
      fault: { kind: 'status', status: 503, headers: { 'x-should-retry': 'false' } },
      times: Infinity,
    })
    const client = makeClient(api)

    await rejection(client.getRun('run_x'), InternalServerError)

    expect(api.requests).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it('retries a 400 that says x-should-retry: true', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' })
    api.injectFault({
      method: 'GET',
      fault: { kind: 'status', status: 400, headers: { 'x-should-retry': 'true' } },
    })
    const client = makeClient(api)

    const run = await client.getRun(seeded.run_id)

    expect(run.run_id).toBe(seeded.run_id)
    expect(api.requests).toHaveLength(2)
    expect(sleeps).toHaveLength(1)
  })

  it('never sends a create again, whatever x-should-retry says', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'POST',
      fault: { kind: 'status', status: 500, headers: { 'x-should-retry': 'true' }, act: true },
    })
    const client = makeClient(api)

    await rejection(client.createRun({ prompt: 'p' }), InternalServerError)

    expect(api.requests).toHaveLength(1)
    expect(api.allRuns()).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it('throws NotFoundError for an unknown run, without retrying', async () => {
    const api = await startApi()
    const client = makeClient(api)

    const error = await rejection(client.getRun('run_missing'), NotFoundError)

    expect(error.status).toBe(404)
    expect(error.code).toBe('resource_not_found')
    expect(error.traceId).toMatch(/^trace_\d+$/)
    expect(error.message).toContain('run_missing')
    expect(error.message).toContain(String(error.traceId))
    expect(api.requests).toHaveLength(1)
  })

  it('throws AuthenticationError for a wrong key, pointing at api_key and hiding the key', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' })
    const client = makeClient(api, { apiKey: WRONG_KEY })

    const error = await rejection(client.getRun(seeded.run_id), AuthenticationError)

    expect(error.status).toBe(401)
    expect(error.code).toBe('authentication_required')
    expect(error.message).toContain('api_key')
    expect(error.message).toMatch(/check the api_key input/i)
    expect(JSON.stringify(error.problem)).not.toContain(WRONG_KEY)
    expect(api.requests).toHaveLength(1)
    expect(api.requests[0]?.headers.authorization).toBe(`Bearer ${WRONG_KEY}`)
  })
})

describe('timeouts', () => {
  it('throws ApiTimeoutError when the answer is slower than timeoutMs', async () => {
    const api = await startApi()
    api.injectFault({ method: 'GET', fault: { kind: 'delay', ms: 1000 }, times: Infinity })
    const client = makeClient(api, { timeoutMs: 200, maxRetries: 0 })

    // Had the client waited for the answer (1 s), the call would have succeeded instead.
    const error = await rejection(client.getRun('run_x'), ApiTimeoutError)

    expect(error.timeoutMs).toBe(200)
    expect(error.message).toContain('timed out')
  })

  it('lets a per-request timeoutMs beat the client default', async () => {
    const api = await startApi()
    api.injectFault({ method: 'GET', fault: { kind: 'delay', ms: 1000 }, times: Infinity })
    const client = makeClient(api, { timeoutMs: 10_000, maxRetries: 0 })

    const error = await rejection(client.getRun('run_x', { timeoutMs: 200 }), ApiTimeoutError)

    expect(error.timeoutMs).toBe(200)
  })

  it('lets a longer per-request timeoutMs wait out a slow answer', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' })
    api.injectFault({ method: 'GET', fault: { kind: 'delay', ms: 300 } })
    const client = makeClient(api, { timeoutMs: 100, maxRetries: 0 })

    const run = await client.getRun(seeded.run_id, { timeoutMs: 2000 })

    expect(run.run_id).toBe(seeded.run_id)
    expect(api.requests).toHaveLength(1)
  })

  it('retries a GET after a timeout and succeeds', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' })
    // The first answer never comes; the retry's answer has the whole timeout, however loaded the machine.
    api.injectFault({ method: 'GET', fault: { kind: 'hang' } })
    const client = makeClient(api, { timeoutMs: 1_000 })

    const run = await client.getRun(seeded.run_id)

    expect(run.run_id).toBe(seeded.run_id)
    expect(api.requests).toHaveLength(2)
    expect(sleeps).toHaveLength(1)
    expect(retryMessages[0]).toContain('timed out')
  })
})

describe('response limits and redirects', () => {
  it('refuses a body whose content-length is over maxBodyBytes without reading it', async () => {
    // The server announces 5 MiB, sends one chunk, and never the rest: a client
    // that read the body before judging its size would wait out its timeout.
    let closed: () => void = () => undefined
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve))
    const { url } = await startRawServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(5 * 1024 * 1024),
      })
      res.write(Buffer.alloc(64 * 1024, ' '))
      res.on('close', closed)
    })
    const client = new AgentRunsClient({
      baseUrl: `${url}/api/v1`,
      apiKey: API_KEY,
      maxBodyBytes: 1024 * 1024,
      maxRetries: 0,
      timeoutMs: 10_000,
    })

    const error = await rejection(client.getRun('run_huge'), ApiResponseFormatError)
    await connectionClosed

    expect(error.message).toContain('larger than 1048576 bytes')
  })

  it('stops reading an endless body without a content-length once it passes the cap', async () => {
    let written = 0
    let closed: () => void = () => undefined
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve))
    const chunk = Buffer.alloc(64 * 1024, 'x')
    const { url } = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.on('close', closed)
      const pump = (): void => {
        while (!res.destroyed && written < 256 * 1024 * 1024) {
          written += chunk.length
          if (!res.write(chunk)) {
            res.once('drain', pump)
            return
          }
        }
        res.end()
      }
      pump()
    })
    const client = new AgentRunsClient({
      baseUrl: `${url}/api/v1`,
      apiKey: API_KEY,
      maxBodyBytes: 1024 * 1024,
      maxRetries: 0,
      timeoutMs: 5000,
    })

    const error = await rejection(client.getRun('run_endless'), ApiResponseFormatError)
    await connectionClosed

    expect(error.message).toContain('larger than 1048576 bytes')
    // The server stopped because the client hung up, far short of the 256 MiB it would send.
    expect(written).toBeLessThan(32 * 1024 * 1024)
  })

  it('does not follow a redirect, so the key never reaches the other server', async () => {
    const seenByTarget: { authorization: string | undefined }[] = []
    const target = await startRawServer((req, res) => {
      seenByTarget.push({ authorization: req.headers.authorization })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"run_id":"run_evil","state":"SUCCEEDED"}')
    })
    const redirector = await startRawServer((req, res) => {
      res.writeHead(302, { location: `${target.url}${req.url ?? '/'}` })
      res.end()
    })
    const client = new AgentRunsClient({
      baseUrl: `${redirector.url}/api/v1`,
      apiKey: API_KEY,
      sleep: () => Promise.resolve(),
      timeoutMs: 5000,
    })

    const getError = await rejection(client.getRun('run_x'), ApiResponseFormatError)
    const createError = await rejection(client.createRun({ prompt: 'p' }), ApiResponseFormatError)

    for (const error of [getError, createError]) {
      expect(error.status).toBe(302)
      expect(error.message).toMatch(/redirect/i)
    }
    // A followed redirect would have reached the target before either call settled.
    expect(seenByTarget).toEqual([])
  })
})

describe('listRuns and iterateRuns', () => {
  it('serializes every filter onto the query', async () => {
    const api = await startApi()
    const client = makeClient(api)

    await client.listRuns({
      limit: 7,
      state: ['QUEUED', 'INPROGRESS'],
      name: 'nightly',
      metadata: { repo: 'octo/app', workflow: 'ci' },
      created_after: '2024-01-02T03:04:05Z',
      sort_order: 'asc',
    })

    expect(api.requests).toHaveLength(1)
    const [request] = api.requests
    expect(request?.path).toBe('/api/v1/agent/runs')
    expect(request?.query.getAll('state')).toEqual(['QUEUED', 'INPROGRESS'])
    expect(request?.query.get('name')).toBe('nightly')
    expect(request?.query.get('metadata[repo]')).toBe('octo/app')
    expect(request?.query.get('metadata[workflow]')).toBe('ci')
    expect(request?.query.get('created_after')).toBe('2024-01-02T03:04:05Z')
    expect(request?.query.get('limit')).toBe('7')
    expect(request?.query.get('sort_order')).toBe('asc')
    expect(request?.query.has('metadata')).toBe(false)
    expect(request?.query.has('cursor')).toBe(false)
  })

  it('returns only the runs the filters select', async () => {
    const api = await startApi()
    const wanted = api.seedRun(
      { prompt: 'a', config: { name: 'nightly' }, metadata: { repo: 'octo/app' } },
      { script: ACTIVE, createdAt: '2024-06-01T00:00:00Z' },
    )
    const queued = api.seedRun(
      { prompt: 'b', config: { name: 'nightly' }, metadata: { repo: 'octo/app' } },
      { script: [{ state: 'QUEUED', afterMs: 0 }], createdAt: '2024-06-02T00:00:00Z' },
    )
    api.seedRun(
      { prompt: 'done', config: { name: 'nightly' }, metadata: { repo: 'octo/app' } },
      { script: FINISHED, createdAt: '2024-06-03T00:00:00Z' },
    )
    api.seedRun(
      { prompt: 'other repo', config: { name: 'nightly' }, metadata: { repo: 'octo/lib' } },
      { script: ACTIVE, createdAt: '2024-06-04T00:00:00Z' },
    )
    api.seedRun(
      { prompt: 'other name', config: { name: 'weekly' }, metadata: { repo: 'octo/app' } },
      { script: ACTIVE, createdAt: '2024-06-05T00:00:00Z' },
    )
    api.seedRun(
      { prompt: 'too old', config: { name: 'nightly' }, metadata: { repo: 'octo/app' } },
      { script: ACTIVE, createdAt: '2023-01-01T00:00:00Z' },
    )
    const client = makeClient(api)

    const { runs, page_info } = await client.listRuns({
      state: ['QUEUED', 'INPROGRESS'],
      name: 'nightly',
      metadata: { repo: 'octo/app' },
      created_after: '2024-01-01T00:00:00Z',
    })

    expect(runs.map((run) => run.run_id).sort()).toEqual([wanted.run_id, queued.run_id].sort())
    expect(page_info?.has_next_page).toBe(false)
  })

  it('iterateRuns follows the cursor across pages, yielding every run once', async () => {
    const api = await startApi()
    const seeded = new Set<string>()
    for (let i = 0; i < 45; i += 1) {
      seeded.add(api.seedRun({ prompt: `run ${i}` }, { createdAt: NOW - i * 1000 }).run_id)
    }
    // A transient failure mid-way must not lose or repeat a page.
    api.injectFault({
      method: 'GET',
      path: '/agent/runs',
      fault: { kind: 'status', status: 503 },
    })
    const client = makeClient(api)

    const yielded: string[] = []
    for await (const run of client.iterateRuns({ limit: 10 })) yielded.push(run.run_id)

    expect(yielded).toHaveLength(45)
    expect(new Set(yielded)).toEqual(seeded)
    const pages = api.requestsTo('GET', '/agent/runs')
    expect(pages).toHaveLength(6)
    expect(pages.every((page) => page.query.get('limit') === '10')).toBe(true)
    const cursors = pages.map((page) => page.query.get('cursor'))
    expect(cursors[0]).toBeNull()
    expect(cursors[1]).toBeNull()
    expect(new Set(cursors.slice(2)).size).toBe(4)
    expect(cursors.slice(2).every((cursor) => typeof cursor === 'string' && cursor !== '')).toBe(
      true,
    )
  })

  it('iterateRuns keeps the filters on every page', async () => {
    const api = await startApi()
    const active = new Set<string>()
    for (let i = 0; i < 12; i += 1) {
      const run = api.seedRun(
        { prompt: `r${i}` },
        { script: i % 2 === 0 ? ACTIVE : FINISHED, createdAt: NOW - i * 1000 },
      )
      if (i % 2 === 0) active.add(run.run_id)
    }
    const client = makeClient(api)

    const yielded: string[] = []
    for await (const run of client.iterateRuns({ limit: 2, state: ['INPROGRESS'] })) {
      yielded.push(run.run_id)
    }

    expect(new Set(yielded)).toEqual(active)
    expect(yielded).toHaveLength(6)
    const pages = api.requestsTo('GET', '/agent/runs')
    expect(pages).toHaveLength(3)
    expect(pages.every((page) => page.query.getAll('state').join() === 'INPROGRESS')).toBe(true)
  })
})

describe('sendFollowup', () => {
  it('posts {message} to the run', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: FINISHED })
    const client = makeClient(api)

    await client.sendFollowup(seeded.run_id, 'Please also update the docs.')

    expect(api.requests).toHaveLength(1)
    expect(api.requests[0]?.method).toBe('POST')
    expect(api.requests[0]?.path).toBe(`/api/v1/agent/runs/${seeded.run_id}/followups`)
    expect(api.requests[0]?.json).toEqual({ message: 'Please also update the docs.' })
    expect(api.followups(seeded.run_id)).toEqual(['Please also update the docs.'])
  })

  it('is not retried after a 500', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' })
    api.injectFault({ method: 'POST', fault: { kind: 'status', status: 500 }, times: Infinity })
    const client = makeClient(api)

    await rejection(client.sendFollowup(seeded.run_id, 'again?'), InternalServerError)

    expect(api.requests).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it('is not retried after a reset once the service acted', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: FINISHED })
    api.injectFault({ method: 'POST', fault: { kind: 'reset-after-acting' }, times: Infinity })
    const client = makeClient(api)

    await rejection(client.sendFollowup(seeded.run_id, 'once'), ApiConnectionError)

    expect(api.requests).toHaveLength(1)
    expect(api.followups(seeded.run_id)).toEqual(['once'])
  })
})

describe('sendFollowup: how the service routed it', () => {
  const QUEUED: RunScript = [{ state: 'QUEUED', afterMs: 0 }]

  it('resolves with each of the four outcomes the service names', async () => {
    const api = await startApi({
      followupAnswer: (run) => (run.title === 'deferred' ? 'queue_pending' : undefined),
    })
    const notStarted = api.seedRun({ prompt: 'Review.' }, { script: QUEUED })
    const live = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    const ended = api.seedRun({ prompt: 'p' }, { script: FINISHED })
    const deferred = api.seedRun({ prompt: 'p', title: 'deferred' }, { script: ACTIVE })
    const client = makeClient(api)

    await expect(client.sendFollowup(notStarted.run_id, 'Also the docs.')).resolves.toEqual({
      followupId: null,
      outcome: 'queued_prompt',
    })
    await expect(client.sendFollowup(live.run_id, 'Steer.')).resolves.toEqual({
      followupId: expect.stringMatching(/^fu_/),
      outcome: 'live_session',
    })
    await expect(client.sendFollowup(ended.run_id, 'Again.')).resolves.toEqual({
      followupId: expect.stringMatching(/^fu_/),
      outcome: 'handoff_execution',
    })
    await expect(client.sendFollowup(deferred.run_id, 'Later.')).resolves.toEqual({
      followupId: expect.stringMatching(/^fu_/),
      outcome: 'queue_pending',
    })
    // The run not started took the message into its prompt.
    expect(api.run(notStarted.run_id)?.prompt).toBe('Review.\n\nAlso the docs.')
    expect(api.requests).toHaveLength(4)
  })

  it('accepts an older service answer without followup_id and outcome, or with no body', async () => {
    const api = await startApi({ followupAnswer: () => 'unstated' })
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    const client = makeClient(api)

    const accepted = await client.sendFollowup(seeded.run_id, 'one')
    expect(accepted).toEqual({})
    expect(accepted.followupId).toBeUndefined()
    expect(accepted.outcome).toBeUndefined()

    api.injectFault({ method: 'POST', fault: { kind: 'rewrite-body', rewrite: () => undefined } })
    await expect(client.sendFollowup(seeded.run_id, 'two')).resolves.toEqual({})
    expect(api.followups(seeded.run_id)).toEqual(['one', 'two'])
  })

  it('leaves out members of the wrong type and keeps an outcome it does not know', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.injectFault({
      method: 'POST',
      fault: { kind: 'rewrite-body', rewrite: () => ({ followup_id: 7, outcome: { x: 1 } }) },
    })
    api.injectFault({
      method: 'POST',
      fault: {
        kind: 'rewrite-body',
        rewrite: () => ({ followup_id: 'fu_x', outcome: 'later_on' }),
      },
    })
    const client = makeClient(api)

    await expect(client.sendFollowup(seeded.run_id, 'one')).resolves.toEqual({})
    await expect(client.sendFollowup(seeded.run_id, 'two')).resolves.toEqual({
      followupId: 'fu_x',
      outcome: 'later_on',
    })
  })
})

describe('interruptRun', () => {
  const interruptPath = (runId: string): string => `/api/v1/agent/runs/${runId}/interrupt`

  it('interrupts a live run, which stays INPROGRESS and takes a follow-up', async () => {
    const api = await startApi({ followupScript: () => FINISHED })
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    const client = makeClient(api)

    await expect(client.interruptRun(seeded.run_id)).resolves.toBeUndefined()

    expect(api.requests.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual([
      `POST ${interruptPath(seeded.run_id)} `,
    ])
    expect(api.interrupts(seeded.run_id)).toBe(1)
    expect(api.run(seeded.run_id)?.state).toBe('INPROGRESS')
    await expect(client.sendFollowup(seeded.run_id, 'The new head.')).resolves.toMatchObject({
      outcome: 'live_session',
    })
    expect(api.run(seeded.run_id)?.state).toBe('SUCCEEDED')
  })

  it('throws ConflictError (409) for a run that is not live, at once with maxRetries 0', async () => {
    const api = await startApi()
    const queued = api.seedRun({ prompt: 'p' }, { script: [{ state: 'QUEUED', afterMs: 0 }] })
    const ended = api.seedRun({ prompt: 'p' }, { script: FINISHED })
    const client = makeClient(api, { maxRetries: 0 })

    const error = await rejection(client.interruptRun(queued.run_id), ConflictError)
    await rejection(client.interruptRun(ended.run_id), ConflictError)

    expect(error.status).toBe(409)
    expect(error.code).toBe('conflict')
    expect(error.message).toMatch(/only a live run can be interrupted/)
    expect(api.requests).toHaveLength(2)
    expect(api.interrupts(queued.run_id) + api.interrupts(ended.run_id)).toBe(0)
  })

  it('retries a 409, as a run about to start becomes live, and goes through', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.injectFault({ method: 'POST', fault: { kind: 'status', status: 409 } })
    const client = makeClient(api, { maxRetries: 2 })

    await client.interruptRun(seeded.run_id)

    expect(api.requests).toHaveLength(2)
    expect(sleeps).toHaveLength(1)
    expect(api.interrupts(seeded.run_id)).toBe(1)
  })

  it('throws UnprocessableEntityError (422) for a run on another harness, without retrying', async () => {
    const api = await startApi()
    const seeded = api.seedRun(
      { prompt: 'p', config: { harness: { type: 'claude' } } },
      { script: ACTIVE },
    )
    const client = makeClient(api, { maxRetries: 3 })

    const error = await rejection(client.interruptRun(seeded.run_id), UnprocessableEntityError)

    expect(error.code).toBe('operation_not_supported')
    expect(api.requests).toHaveLength(1)
    expect(sleeps).toEqual([])
    expect(api.run(seeded.run_id)?.state).toBe('INPROGRESS')
  })

  it('is asked again when its answer is lost after the service acted: a second interrupt stops nothing more', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.injectFault({ method: 'POST', fault: { kind: 'reset-after-acting' } })
    api.injectFault({ method: 'POST', fault: { kind: 'status', status: 502, act: true } })
    const client = makeClient(api, { maxRetries: 2 })

    await client.interruptRun(seeded.run_id)

    expect(api.requests).toHaveLength(3)
    expect(api.interrupts(seeded.run_id)).toBe(3)
    expect(api.run(seeded.run_id)?.state).toBe('INPROGRESS')
  })

  it('throws NotFoundError for an unknown run', async () => {
    const api = await startApi()
    const client = makeClient(api)

    await rejection(client.interruptRun('run_missing'), NotFoundError)

    expect(api.requests).toHaveLength(1)
  })
})

describe('cancelRun', () => {
  it('cancels an active run', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    const client = makeClient(api)

    await expect(client.cancelRun(seeded.run_id)).resolves.toEqual({ kind: 'cancelled' })

    expect(api.run(seeded.run_id)?.state).toBe('CANCELLED')
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /api/v1/agent/runs/${seeded.run_id}/cancel`,
    ])
  })

  it('treats a run that already finished (400) as already-finished, not an error', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: FINISHED })
    const client = makeClient(api)

    await expect(client.cancelRun(seeded.run_id)).resolves.toEqual({ kind: 'already-finished' })

    expect(api.run(seeded.run_id)?.state).toBe('SUCCEEDED')
    // The 400 is the same for a BLOCKED run, so the run is read back to tell them apart.
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /api/v1/agent/runs/${seeded.run_id}/cancel`,
      `GET /api/v1/agent/runs/${seeded.run_id}`,
    ])
  })

  it('says a BLOCKED run (400) is blocked, not finished, and leaves it BLOCKED', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: [{ state: 'BLOCKED', afterMs: 0 }] })
    const client = makeClient(api)

    await expect(client.cancelRun(seeded.run_id)).resolves.toEqual({ kind: 'blocked' })
    expect(api.run(seeded.run_id)?.state).toBe('BLOCKED')
  })

  it('says refused when a 400 comes and the run cannot be read back', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: [{ state: 'BLOCKED', afterMs: 0 }] })
    api.injectFault({ method: 'GET', times: Infinity, fault: { kind: 'status', status: 500 } })
    const client = makeClient(api)

    await expect(client.cancelRun(seeded.run_id)).resolves.toEqual({ kind: 'refused' })
  })

  it('retries a 409 (run still being prepared) until the cancel goes through', async () => {
    let conflicts = 4
    const api = await startApi({
      cancelBehaviour: () => (conflicts-- > 0 ? 'conflict' : undefined),
    })
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    const client = makeClient(api, { maxRetries: 5 })

    await expect(client.cancelRun(seeded.run_id)).resolves.toEqual({ kind: 'cancelled' })

    expect(api.requests).toHaveLength(5)
    expect(sleeps).toHaveLength(4)
    expect(api.run(seeded.run_id)?.state).toBe('CANCELLED')
  })

  it('gives up with ConflictError when the run stays PENDING past maxRetries', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: [{ state: 'PENDING', afterMs: 0 }] })
    const client = makeClient(api, { maxRetries: 2 })

    const error = await rejection(client.cancelRun(seeded.run_id), ConflictError)

    expect(error.status).toBe(409)
    expect(api.requests).toHaveLength(3)
    expect(api.run(seeded.run_id)?.state).toBe('PENDING')
  })

  it('throws UnprocessableEntityError (422) for a run type that cannot be cancelled', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.patchRun(seeded.run_id, { is_run_type_cancellable: false })
    const client = makeClient(api)

    const error = await rejection(client.cancelRun(seeded.run_id), UnprocessableEntityError)

    expect(error.status).toBe(422)
    expect(error.code).toBe('operation_not_supported')
    expect(api.requests).toHaveLength(1)
    expect(api.run(seeded.run_id)?.state).toBe('INPROGRESS')
  })

  it('throws NotFoundError for an unknown run', async () => {
    const api = await startApi()
    const client = makeClient(api)

    await rejection(client.cancelRun('run_missing'), NotFoundError)

    expect(api.requests).toHaveLength(1)
  })
})

describe('Transport.request', () => {
  it('reaches any endpoint under base_url and exposes headers and data', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' })
    const client = makeTransport(api)

    const response = await client.request<ListRunsResponse>('GET', '/agent/runs', {
      query: { limit: 1 },
    })

    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.data.runs.map((run) => run.run_id)).toEqual([seeded.run_id])
    expect(api.requests[0]?.query.get('limit')).toBe('1')
  })

  it('types an error status from any endpoint', async () => {
    const api = await startApi()
    const client = makeTransport(api)

    const error = await rejection(
      client.request('DELETE', '/agent/runs/run_x'),
      MethodNotAllowedError,
    )

    expect(error.status).toBe(405)
    expect(error.headers['allow']).toBe('GET')
    expect(api.requests).toHaveLength(1)
  })
})

describe('AbortSignal', () => {
  it('rejects promptly with ApiAbortedError when aborted during a slow request', async () => {
    const api = await startApi()
    api.injectFault({ method: 'GET', fault: { kind: 'delay', ms: 1000 }, times: Infinity })
    const client = makeClient(api, { timeoutMs: 5000 })
    const controller = new AbortController()

    const pending = client.getRun('run_x', { signal: controller.signal })
    await api.waitForRequest('GET', RUN_PATH)
    controller.abort()
    // Ignoring the abort would have let the slow answer arrive and the call succeed.
    const error = await rejection(pending, ApiAbortedError)

    expect(error.message).toContain('aborted')
    expect(api.requests).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it('does not send anything when the signal is already aborted', async () => {
    const api = await startApi()
    const client = makeClient(api)

    await rejection(client.getRun('run_x', { signal: AbortSignal.abort() }), ApiAbortedError)

    expect(api.requests).toHaveLength(0)
  })

  it('rejects promptly with ApiAbortedError when aborted while waiting to retry', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'GET',
      fault: { kind: 'status', status: 503, headers: { 'retry-after': '30' } },
      times: Infinity,
    })
    const controller = new AbortController()
    // The real backoff sleep, which must end early on abort. onRetry comes right
    // before it starts, so the abort lands while it sleeps.
    const client = new AgentRunsClient({
      baseUrl: api.baseUrl,
      apiKey: API_KEY,
      onRetry: () => setImmediate(() => controller.abort()),
    })

    const pending = client.getRun('run_x', { signal: controller.signal })
    // Sleeping out the 30 s Retry-After would outlast the test's own timeout.
    const error = await rejection(pending, AgentApiError)

    expect(error).toBeInstanceOf(ApiAbortedError)
    expect(api.requests).toHaveLength(1)
  })
})

describe('error typing across the board', () => {
  it('every status error carries the request and never the key', async () => {
    const api = await startApi()
    api.injectFault({ method: 'GET', fault: { kind: 'status', status: 418 } })
    const client = makeClient(api)

    const error = await rejection(client.getRun('run_tea'), ApiStatusError)

    expect(error.status).toBe(418)
    expect(error.request).toEqual({ method: 'GET', path: '/agent/runs/run_tea' })
    expect(api.requests).toHaveLength(1)
  })
})

describe('answers not to believe, and the deadline (issue 8)', () => {
  it.each([
    ['another run', (b: unknown) => ({ ...(b as object), run_id: 'run_other' })],
    ['null', () => null],
    ['a state that is not a string', (b: unknown) => ({ ...(b as object), state: 7 })],
  ])('a poll answered with %s is garbled: retried, then the real run', async (_, rewrite) => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.injectFault({ method: 'GET', path: RUN_PATH, fault: { kind: 'rewrite-body', rewrite } })
    const client = makeClient(api)

    const run = await client.getRun(seeded.run_id)

    expect(run).toMatchObject({ run_id: seeded.run_id, state: 'INPROGRESS' })
    expect(retryMessages).toHaveLength(1)
    expect(retryMessages[0]).toMatch(/answered 200 with/)
  })

  it('a create answered without a usable run_id is garbled (the run may exist)', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'POST',
      path: '/agent/run',
      fault: { kind: 'rewrite-body', rewrite: (b) => ({ ...(b as object), run_id: '../x' }) },
    })
    const error = await rejection(
      makeClient(api).createRun({ prompt: 'p' }),
      ApiResponseFormatError,
    )
    expect(error.message).toContain('without a usable run_id')
  })

  it('does not wait out a Retry-After that ends past the deadline', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.injectFault({
      method: 'GET',
      path: RUN_PATH,
      fault: { kind: 'status', status: 429, headers: { 'retry-after': '5' } },
    })
    const client = makeClient(api)

    await rejection(client.getRun(seeded.run_id, { deadline: NOW + 3_000 }), RateLimitError)
    expect(sleeps).toEqual([])
  })

  it('cuts a hung answer at the deadline, not at the request timeout', async () => {
    const api = await startApi()
    const seeded = api.seedRun({ prompt: 'p' }, { script: ACTIVE })
    api.injectFault({ method: 'GET', path: RUN_PATH, fault: { kind: 'hang' } })
    const client = makeClient(api, { now: Date.now, timeoutMs: 60_000 })

    const error = await rejection(
      client.getRun(seeded.run_id, { deadline: Date.now() + 200 }),
      ApiTimeoutError,
    )
    expect(error.timeoutMs).toBeLessThanOrEqual(200)
  })

  it('a request whose deadline has passed is not sent', async () => {
    const api = await startApi()
    const client = makeClient(api)
    await rejection(client.getRun('run_x', { deadline: NOW - 1 }), ApiTimeoutError)
    expect(api.requests).toHaveLength(0)
  })

  it('replaces the key echoed in an error page before cutting it to an excerpt', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'POST',
      path: '/agent/run',
      fault: { kind: 'echo-key', status: 401 },
    })

    const error = await rejection(makeClient(api).createRun({ prompt: 'p' }), AuthenticationError)
    expect(error.message).toContain('Authorization: Bearer ***')
    for (let i = 0; i + 6 <= API_KEY.length; i += 1) {
      expect(error.message).not.toContain(API_KEY.slice(i, i + 6))
    }
  })

  it('replaces the key echoed in a successful answer', async () => {
    const api = await startApi()
    const seeded = api.seedRun(
      { prompt: 'p' },
      {
        script: [
          { state: 'FAILED', afterMs: 0, patch: { status_message: { message: `key ${API_KEY}` } } },
        ],
      },
    )
    const run = await makeClient(api).getRun(seeded.run_id)
    expect(run.status_message?.message).toBe('key ***')
  })

  it('makes a problem detail one inert line', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'POST',
      path: '/agent/run',
      fault: { kind: 'status', status: 400, body: { detail: 'bad\n::stop-commands::x' } },
    })
    const error = await rejection(makeClient(api).createRun({ prompt: 'p' }), ApiStatusError)
    expect(error.message).toContain('bad : :stop-commands::x')
  })
})

describe('redaction and short keys', () => {
  it('does not corrupt a successful answer for a key short enough to occur by chance', async () => {
    const api = await FakeAgentApi.start({ apiKey: 'k' })
    closers.push(() => api.close())
    const seeded = api.seedRun({ prompt: 'keep' }, { runId: 'run_kkk', script: ACTIVE })
    const client = new AgentRunsClient({ baseUrl: api.baseUrl, apiKey: 'k' })

    const run = await client.getRun(seeded.run_id)
    expect(run).toMatchObject({ run_id: 'run_kkk', prompt: 'keep' })
  })
})
