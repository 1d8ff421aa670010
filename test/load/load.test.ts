/**
 * 50 action processes at once against a rate-limited fake API (a token bucket
 * answering 429 with Retry-After): every step must finish, exactly 50 runs
 * must exist, and the requests spent must stay within a stated bound.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { FakeAgentApi } from '../fake-api/server.ts'
import { countInLogs, LOAD_STEPS as STEPS, runLoad } from './scenario.ts'

/** Per step: one create, ~10 polls over a 3 s run, and room for 429 retries. */
const MAX_REQUESTS_PER_STEP = 20

describe('load: 50 steps against a rate-limited API', () => {
  let api: FakeAgentApi | undefined
  afterAll(async () => api?.close())

  it('finishes every step with exactly one run each, within the request bound', async () => {
    const load = await runLoad()
    api = load.api
    const { results } = load

    const failed = results.filter((result) => result.code !== 0)
    expect(failed.map((result) => result.stdout)).toEqual([])
    expect(results.every((result) => result.outputs.state === 'SUCCEEDED')).toBe(true)
    expect(api.allRuns()).toHaveLength(STEPS)
    expect(new Set(results.map((result) => result.outputs.run_id)).size).toBe(STEPS)

    const total = api.requests.length
    const creates = api.requests.filter((request) => request.method === 'POST').length
    const createsLimited = countInLogs(results, /POST \/agent\/run → 429/g)
    const limited = countInLogs(results, /→ 429/g)
    console.log(
      `load: ${STEPS} steps, ${total} requests (${(total / STEPS).toFixed(1)} per step), ` +
        `${creates} create attempts (${createsLimited} answered 429), ${limited} answered 429 in all`,
    )
    expect(total).toBeLessThanOrEqual(STEPS * MAX_REQUESTS_PER_STEP)
    // The bucket must really have pushed back, on creates too, for the test to mean anything.
    expect(createsLimited).toBeGreaterThan(0)
    expect(creates).toBe(STEPS + createsLimited)
  }, 120_000)
})
