/**
 * The load scenario, shared by the load test and the benchmark: many action
 * processes at once against the fake API behind a token bucket of 10 requests
 * refilled at 25 a second, answering 429 with `Retry-After: 1`. Each run lasts
 * 3 s and is polled from 500 ms.
 */
import { startStep, type StepResult } from '../e2e/harness.ts'
import { FakeAgentApi } from '../fake-api/server.ts'

export const LOAD_STEPS = 50
const KEY = 'sk-load'

export interface LoadRun {
  /** Still open, for the caller to inspect and close. */
  api: FakeAgentApi
  results: StepResult[]
}

/** Starts the rate-limited fake API and `steps` steps at once, and waits for every step. */
export async function runLoad(steps = LOAD_STEPS): Promise<LoadRun> {
  const api = await FakeAgentApi.start({
    apiKey: KEY,
    rateLimit: { capacity: 10, refillPerSecond: 25, retryAfterSeconds: 1 },
    script: () => [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 500 },
      { state: 'SUCCEEDED', afterMs: 3_000 },
    ],
  })
  const running = Array.from({ length: steps }, (_, index) =>
    startStep({
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        prompt: `Load test step ${index}`,
        poll_interval: '500ms',
      },
      env: { GITHUB_ACTION: `agent-${index}` },
    }),
  )
  return { api, results: await Promise.all(running.map((step) => step.result)) }
}

/** How often `pattern` (global) appears across the steps' logs, e.g. answers of 429. */
export function countInLogs(results: StepResult[], pattern: RegExp): number {
  return results.reduce((sum, result) => sum + (result.stdout.match(pattern) ?? []).length, 0)
}
