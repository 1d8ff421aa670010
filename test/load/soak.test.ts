/**
 * Soak: one long run (20 s of real time, ~80 polls) while 15% of all
 * requests, create and cancel included, meet a random fault. The step must
 * end exactly as it would without faults: one run, SUCCEEDED, nothing cancelled.
 *
 * The faults are the ones a client must survive: refusals, failures after the
 * service acted, garbled and slow answers. A fault that provably stops the
 * create (a reset before acting) fails the step by design; the fault matrix
 * covers it.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { FakeAgentApi, type FaultSpec } from '../fake-api/server.ts'
import { runPostStep, runStep } from '../e2e/harness.ts'

const KEY = 'sk-soak'
const SURVIVABLE_FAULTS: FaultSpec[] = [
  { kind: 'status', status: 503 },
  { kind: 'status', status: 502, act: true },
  { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
  { kind: 'reset-after-acting' },
  { kind: 'malformed', act: true },
  { kind: 'delay', ms: 300 },
]

describe('soak', () => {
  let api: FakeAgentApi | undefined
  afterAll(async () => api?.close())

  it('a long run under a steady drizzle of faults ends exactly as without them', async () => {
    const seed = Number(process.env.SOAK_SEED ?? 20261123)
    api = await FakeAgentApi.start({
      apiKey: KEY,
      randomFaults: { probability: 0.15, seed, faults: SURVIVABLE_FAULTS },
      script: (_create, runId) => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'PENDING', afterMs: 1_000 },
        { state: 'CLAIMED', afterMs: 2_000 },
        { state: 'INPROGRESS', afterMs: 3_000 },
        {
          state: 'SUCCEEDED',
          afterMs: 20_000,
          patch: { session_link: `https://app.example.test/sessions/${runId}` },
        },
      ],
    })
    const inputs = { api_key: KEY, base_url: api.baseUrl, prompt: 'Soak', poll_interval: '200ms' }

    const main = await runStep({ inputs })
    const post = await runPostStep(main, { inputs })

    console.log(
      `soak (seed ${seed}): ${api.requests.length} requests, ${api.randomFaultsServed} random faults`,
    )
    expect(main.stdout.match(/::error/g) ?? []).toEqual([])
    expect(main.code).toBe(0)
    expect(main.outputs.state).toBe('SUCCEEDED')
    expect(api.allRuns()).toHaveLength(1)
    expect(api.allRuns()[0]?.state).toBe('SUCCEEDED')
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    expect(post.code).toBe(0)
    expect(api.randomFaultsServed).toBeGreaterThanOrEqual(5)
  }, 60_000)
})
