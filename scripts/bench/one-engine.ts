/**
 * `node scripts/bench/one-engine.ts BEFORE_DIST BEFORE_SRC`: one run's figures through dist/ (one
 * scheduler of run lifecycles, issue 26) against an older bundle (before it), side by side: in
 * interleaved rounds, the cold start (spawn → create POST) and the cancel latency (SIGINT → cancel
 * POST); and the polls a run of 1, 10, 60 and 240 minutes costs on a simulated clock, through the
 * scheduler with one lifecycle and through BEFORE_SRC's (a checkout of the commit before:
 * `git worktree add --detach /tmp/before-src <commit>`): its own scheduler, or, before there was
 * one, its old wait loop (`src/run/wait.ts`).
 * `BENCH_ROUNDS` sets the rounds (default 10, after 2 warm-up rounds).
 */
import { existsSync } from 'node:fs'
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

/** How a run is awaited on a simulated clock: the engine's own, or BEFORE_SRC's. */
type AwaitRun = (
  timing: { timeoutMs: number; pollIntervalMs: number },
  deps: Parameters<typeof awaitOneRun>[1],
) => Promise<unknown>

/**
 * BEFORE_SRC's way to await one run: its own scheduler with one lifecycle (its
 * test/support/one-run.ts), or, before the scheduler, its old wait loop (src/run/wait.ts).
 */
async function awaitOf(src: string): Promise<AwaitRun> {
  const oldWait = join(src, 'src', 'run', 'wait.ts')
  if (existsSync(oldWait)) {
    const { waitForRun } = (await import(oldWait)) as {
      waitForRun: (options: { runId: string } & Parameters<AwaitRun>[0], deps: unknown) => unknown
    }
    return async (timing, deps) => waitForRun({ runId: 'r1', ...timing }, deps)
  }
  const own = (await import(join(src, 'test', 'support', 'one-run.ts'))) as {
    awaitOneRun: AwaitRun
  }
  return own.awaitOneRun
}

/**
 * The polls of one run that never ends, on a simulated clock. A poll carries the step's deadline;
 * the read after the timeout's cancel (which every engine makes once) does not.
 */
async function pollsOf(minutes: number, intervalMs: number, wait: AwaitRun): Promise<number> {
  let now = 0
  let polls = 0
  const timing = { timeoutMs: minutes * 60_000, pollIntervalMs: intervalMs }
  await wait(timing, {
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
const awaitBefore = await awaitOf(beforeSrc)
for (const minutes of [1, 10, 60, 240]) {
  const old = await pollsOf(minutes, interval, awaitBefore)
  const now = await pollsOf(minutes, interval, awaitOneRun)
  lines.push(`| polls in a ${minutes}-minute run (simulated, poll_interval 5s) | ${old} | ${now} |`)
}
console.log(lines.join('\n'))
