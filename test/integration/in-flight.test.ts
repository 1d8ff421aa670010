/**
 * How many requests the API client has in flight at once, over real loopback HTTP: a set's
 * thousand answers go out a few at a time, in order; a cancel never waits behind them; and a
 * request waiting its turn gives up with its caller, never reaching the service.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentRunsClient } from '../../src/api/client.ts'
import { ApiAbortedError, ApiTimeoutError } from '../../src/api/errors.ts'

const API_KEY = 'sk-in-flight-4c1d2e'
const LIMIT = 4

interface Held {
  path: string
  answer: () => void
}

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

/**
 * A service that holds every request until the test answers it, and tells the test of each
 * arrival with how many were then unanswered.
 */
async function holdingService(onArrival: (held: Held[]) => void) {
  const held: Held[] = []
  const arrived: string[] = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? ''
    arrived.push(path)
    const one: Held = {
      path,
      answer: () => {
        held.splice(held.indexOf(one), 1)
        const run = { run_id: path.split('/')[5] ?? 'run', state: 'SUCCEEDED' }
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify(path.endsWith('/cancel') ? {} : run))
      },
    }
    held.push(one)
    onArrival(held)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  const { port } = server.address() as AddressInfo
  return { baseUrl: `http://127.0.0.1:${port}/api/v1`, held, arrived }
}

function client(baseUrl: string) {
  return new AgentRunsClient({
    baseUrl,
    apiKey: API_KEY,
    maxInFlight: LIMIT,
    // The wait for a slot sleeps to its deadline through this: no real waiting.
    sleep: () => Promise.resolve(),
    random: () => 0,
  })
}

/** Resolves once `check` holds, looked at after each turn of the event loop (at most 100,000). */
async function until(check: () => boolean): Promise<void> {
  for (let turn = 0; !check(); turn += 1) {
    if (turn === 100_000) throw new Error('what the test awaited never came')
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('requests in flight', () => {
  it('sends at most maxInFlight at once, the rest in the order asked, each as one ends', async () => {
    const total = 15
    const service = await holdingService(() => {})
    const api = client(service.baseUrl)
    const reads = Array.from({ length: total }, (_, i) => api.getRun(`run_${i}`))
    await until(() => service.held.length === LIMIT)
    // Every slot is held: a request asked now waits, and gives up when its deadline comes (the
    // injected sleep says at once), never sent. Sent, it would be held and never settle.
    let probe: unknown
    api.getRun('run_probe', { deadline: Date.now() + 60_000 }).then(
      (run) => (probe = run),
      (error: unknown) => (probe = error),
    )
    await until(() => probe !== undefined)
    expect(probe).toBeInstanceOf(ApiTimeoutError)
    // Each read answered lets exactly the next one go out.
    for (let answered = 0; answered < total; answered += 1) {
      await until(() => service.held.length === Math.min(LIMIT, total - answered))
      expect(service.arrived).toHaveLength(Math.min(total, answered + LIMIT))
      service.held[0]?.answer()
    }
    const runs = await Promise.all(reads)
    const ids = Array.from({ length: total }, (_, i) => `run_${i}`)
    expect(runs.map((run) => run.run_id)).toEqual(ids)
    expect(service.arrived).toEqual(ids.map((id) => `/api/v1/agent/runs/${id}`))
  })

  it('sends a cancel at once, past the reads that wait their turn', async () => {
    const service = await holdingService(() => {})
    const api = client(service.baseUrl)
    const reads = Array.from({ length: LIMIT + 3 }, (_, i) => api.getRun(`run_${i}`))
    await until(() => service.held.length === LIMIT)
    const cancel = api.cancelRun('run_x')
    await until(() => service.arrived.includes('/api/v1/agent/runs/run_x/cancel'))
    // The cancel arrived while every slot was held by a read, and the waiting reads still wait.
    expect(service.held).toHaveLength(LIMIT + 1)
    service.held.find((one) => one.path.endsWith('/cancel'))?.answer()
    await expect(cancel).resolves.toEqual({ kind: 'cancelled' })
    while (service.arrived.length < LIMIT + 4 || service.held.length > 0) {
      await until(() => service.held.length > 0)
      service.held[0]?.answer()
    }
    await Promise.all(reads)
  })

  it('gives up a waiting request with its signal or its deadline: it never reaches the service', async () => {
    const service = await holdingService(() => {})
    const api = client(service.baseUrl)
    const reads = Array.from({ length: LIMIT }, (_, i) => api.getRun(`run_${i}`))
    await until(() => service.held.length === LIMIT)
    const controller = new AbortController()
    const aborted = api.getRun('run_aborted', { signal: controller.signal })
    const late = api.getRun('run_late', { deadline: Date.now() + 60_000 })
    controller.abort()
    await expect(aborted).rejects.toBeInstanceOf(ApiAbortedError)
    await expect(late).rejects.toBeInstanceOf(ApiTimeoutError)
    for (const one of [...service.held]) one.answer()
    await Promise.all(reads)
    // A read asked after them goes out: the two gave their places back.
    const after = api.getRun('run_after')
    await until(() => service.held.length === 1)
    service.held[0]?.answer()
    await after
    expect(service.arrived).toEqual([
      ...Array.from({ length: LIMIT }, (_, i) => `/api/v1/agent/runs/run_${i}`),
      '/api/v1/agent/runs/run_after',
    ])
  })
})
