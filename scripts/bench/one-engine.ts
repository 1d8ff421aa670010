/**
 * `node scripts/bench/one-engine.ts BEFORE_DIST BEFORE_SRC`: one run's figures through dist/ (one
 * scheduler of run lifecycles, issue 26) against an older bundle (before it), side by side: in
 * interleaved rounds, the cold start (spawn → create POST) and the cancel latency (SIGINT → cancel
 * POST); and the polls a run of 1, 10, 60 and 240 minutes costs on a simulated clock, through the
 * scheduler with one lifecycle and through the old wait loop (`src/run/wait.ts` of BEFORE_SRC, a
 * checkout of the commit before: `git worktree add --detach /tmp/before-src <commit>`).
 * `BENCH_ROUNDS` sets the rounds (default 10, after 2 warm-up rounds).
 */
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { POLL_INTERVAL } from '../../src/timing.ts'
import { ROOT } from '../../test/e2e/harness.ts'
import { FakeAgentApi, type RunScript } from '../../test/fake-api/server.ts'
import { awaitOneRun } from '../../test/support/one-run.ts'
import { summarize } from './stats.ts'
import { prepareStep, spawnPrepared } from './step.ts'

const KEY = 'sk-bench-one-engine'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)
const WARMUP = 2
const DEADLINE_MS = 15_000
const NEVER_ENDING: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]

const [before, beforeSrc] = process.argv.slice(2)
if (!before || !beforeSrc) {
  console.error('usage: node scripts/bench/one-engine.ts BEFORE_DIST BEFORE_SRC')
  process.exit(2)
}
const bundles = { before, after: join(ROOT, 'dist') }

/** Spawn → create POST, then SIGINT once the run was polled → its cancel POST. */
async function oneStep(dist: string): Promise<{ coldMs: number; cancelMs: number }> {
  const api = await FakeAgentApi.start({ apiKey: KEY, script: () => NEVER_ENDING })
  try {
    const inputs = {
      api_key: KEY,
      base_url: api.baseUrl,
      prompt: 'Benchmark',
      poll_interval: '500ms',
    }
    const spawned = spawnPrepared(prepareStep(inputs), { script: join(dist, 'main.js') })
    const create = await api.waitForRequest('POST', /\/agent\/runs?$/, DEADLINE_MS)
    await api.waitForRequest('GET', /\/agent\/runs\/run_[^/]+$/, DEADLINE_MS)
    // Lets the poll's answer be handled, so the signal finds the step asleep between polls.
    await sleep(100)
    const signalledAt = performance.now()
    spawned.child.kill('SIGINT')
    const cancel = await api.waitForRequest('POST', /\/cancel$/, DEADLINE_MS)
    await spawned.done
    return {
      coldMs: create.receivedAt - spawned.spawnedAt,
      cancelMs: cancel.receivedAt - signalledAt,
    }
  } finally {
    await api.close()
  }
}

/** The old wait loop's entry, as BEFORE_SRC has it. */
type OldWait = (
  options: { runId: string; timeoutMs: number; pollIntervalMs: number },
  deps: Parameters<typeof awaitOneRun>[1],
) => Promise<unknown>

/**
 * The polls of one run that never ends, on a simulated clock: through the scheduler, or through
 * the old wait loop. A poll carries the step's deadline; the read after the timeout's cancel
 * (which both make once) does not.
 */
async function pollsOf(minutes: number, intervalMs: number, old?: OldWait): Promise<number> {
  let now = 0
  let polls = 0
  const timing = { timeoutMs: minutes * 60_000, pollIntervalMs: intervalMs }
  const wait = old
    ? (deps: Parameters<typeof awaitOneRun>[1]) => old({ runId: 'r1', ...timing }, deps)
    : (deps: Parameters<typeof awaitOneRun>[1]) => awaitOneRun(timing, deps)
  await wait({
    client: {
      getRun: async (runId, options) => {
        if (options?.deadline !== undefined) polls += 1
        return { run_id: runId, state: 'INPROGRESS' }
      },
    },
    now: () => now,
    sleep: async (ms) => void (now += ms),
    signal: new AbortController().signal,
    log: { debug: () => undefined, info: () => undefined, warning: () => undefined },
  })
  return polls
}

const samples = {
  coldBefore: [] as number[],
  coldAfter: [] as number[],
  cancelBefore: [] as number[],
  cancelAfter: [] as number[],
}
for (let i = 0; i < WARMUP + ROUNDS; i += 1) {
  const order = i % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)
  for (const which of order) {
    const { coldMs, cancelMs } = await oneStep(bundles[which])
    if (i < WARMUP) continue
    ;(which === 'before' ? samples.coldBefore : samples.coldAfter).push(coldMs)
    ;(which === 'before' ? samples.cancelBefore : samples.cancelAfter).push(cancelMs)
  }
  process.stderr.write(`round ${i + 1}/${WARMUP + ROUNDS}\r`)
}

const fig = (values: number[]) => {
  const s = summarize(values)
  return `${s.median} ms (${s.p25}–${s.p75})`
}
const lines = [
  `${ROUNDS} rounds after ${WARMUP} warm-up rounds; medians (p25–p75):`,
  '',
  '| figure | before | after |',
  '| --- | --- | --- |',
  `| cold start: spawn → create POST | ${fig(samples.coldBefore)} | ${fig(samples.coldAfter)} |`,
  `| cancel latency: SIGINT → cancel POST | ${fig(samples.cancelBefore)} | ${fig(samples.cancelAfter)} |`,
]
const interval = POLL_INTERVAL.defaultMs
const { waitForRun } = (await import(join(beforeSrc, 'src', 'run', 'wait.ts'))) as {
  waitForRun: OldWait
}
for (const minutes of [1, 10, 60, 240]) {
  const old = await pollsOf(minutes, interval, waitForRun)
  const now = await pollsOf(minutes, interval)
  lines.push(`| polls in a ${minutes}-minute run (simulated, poll_interval 5s) | ${old} | ${now} |`)
}
console.log(lines.join('\n'))
