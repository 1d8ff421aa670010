/**
 * `node scripts/bench/command.ts`: the command (dist/cli.js) side by side with a bare Node
 * process in interleaved rounds, against the fake API on loopback:
 * - cold start: spawn → its create request at the fake, the command (warm compile cache, and its
 *   first start with an empty one) against `node -e "fetch(…)"` posting the same request (goal:
 *   within 1.1×);
 * - owning its runs: SIGTERM while the create is unanswered (the fake makes the run 1 s after the
 *   request) → the run cancelled, and → the process exited 143.
 * Run `npm run build` first. `BENCH_ROUNDS` sets the rounds (default 10, after 2 warm-up rounds).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../../test/e2e/harness.ts'
import { FakeAgentApi, type RunScript } from '../../test/fake-api/server.ts'
import { summarize } from './stats.ts'

const KEY = 'sk-bench-command'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)
const WARMUP = 2
const DEADLINE_MS = 15_000
const CLI = join(ROOT, 'dist', 'cli.js')
const WORKING: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]

function started(args: string[], env: Record<string, string> = {}) {
  const spawnedAt = performance.now()
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', WARP_API_KEY: KEY, ...env },
    stdio: ['ignore', 'ignore', 'ignore'],
  })
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on('close', (code) => resolve({ code, at: performance.now() })),
  )
  return { child, spawnedAt, exited }
}

type Kind = 'command' | 'first' | 'bare'

/**
 * Spawn → create request: the command (its compile cache warm, as on any start after the first
 * on a machine), its first start on a machine (an empty compile cache), or a bare fetch of the
 * same request.
 */
async function coldStart(kind: Kind): Promise<number> {
  const api = await FakeAgentApi.start({ apiKey: KEY, script: () => WORKING })
  try {
    const body = JSON.stringify({ prompt: 'Benchmark' })
    const bare = `fetch(${JSON.stringify(`${api.baseUrl}/agent/run`)}, { method: 'POST', headers: { authorization: 'Bearer ${KEY}', 'content-type': 'application/json' }, body: ${JSON.stringify(body)} }).then((r) => r.text())`
    const args =
      kind === 'bare'
        ? ['-e', bare]
        : [CLI, '--base-url', api.baseUrl, '--prompt', 'Benchmark', '--no-wait']
    const fresh: Record<string, string> = {}
    if (kind === 'first') fresh.NODE_COMPILE_CACHE = mkdtempSync(join(tmpdir(), 'cache-'))
    const run = started(args, fresh)
    const create = await api.waitForRequest('POST', /\/agent\/runs?$/, DEADLINE_MS)
    await run.exited
    return create.receivedAt - run.spawnedAt
  } finally {
    await api.close()
  }
}

/** SIGTERM while the create is unanswered → the run cancelled; → exit 143. */
async function ownership(): Promise<{ cancelledMs: number; exitMs: number; code: number | null }> {
  const api = await FakeAgentApi.start({ apiKey: KEY, script: () => WORKING })
  api.injectFault({ method: 'POST', path: '/agent/run', fault: { kind: 'delay', ms: 1_000 } })
  try {
    const run = started([CLI, '--base-url', api.baseUrl, '--prompt', 'Benchmark'])
    await api.waitForRequest('POST', '/agent/run', DEADLINE_MS)
    const signalledAt = performance.now()
    run.child.kill('SIGTERM')
    const cancel = await api.waitForRequest('POST', /\/cancel$/, DEADLINE_MS)
    const exited = await run.exited
    return {
      cancelledMs: cancel.receivedAt - signalledAt,
      exitMs: exited.at - signalledAt,
      code: exited.code,
    }
  } finally {
    await api.close()
  }
}

const cold: Record<Kind, number[]> = { command: [], first: [], bare: [] }
const owned = { cancelled: [] as number[], exit: [] as number[], codes: new Set<number | null>() }
for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
  const order: Kind[] =
    round % 2 === 0 ? ['command', 'first', 'bare'] : ['bare', 'first', 'command']
  for (const kind of order) {
    const ms = await coldStart(kind)
    if (round >= WARMUP) cold[kind].push(ms)
  }
  const own = await ownership()
  if (round >= WARMUP) {
    owned.cancelled.push(own.cancelledMs)
    owned.exit.push(own.exitMs)
    owned.codes.add(own.code)
  }
}
const show = (values: number[]) => {
  const s = summarize(values)
  return `median ${s.median.toFixed(1)} ms (p25 ${s.p25.toFixed(1)}, p75 ${s.p75.toFixed(1)})`
}
const ratio = summarize(cold.command).median / summarize(cold.bare).median
console.log(`rounds: ${ROUNDS} (after ${WARMUP} warm-up), Node ${process.version}`)
console.log(`cold start, spawn → create request: command ${show(cold.command)}`)
console.log(
  `cold start, spawn → create request: command, first start (empty compile cache) ${show(cold.first)}`,
)
console.log(`cold start, spawn → create request: bare node -e fetch ${show(cold.bare)}`)
console.log(`ratio command / bare: ${ratio.toFixed(2)}x`)
console.log(
  `ratio first start / bare: ${(summarize(cold.first).median / summarize(cold.bare).median).toFixed(2)}x`,
)
console.log(`SIGTERM during an unanswered create → run cancelled: ${show(owned.cancelled)}`)
console.log(`SIGTERM during an unanswered create → exit: ${show(owned.exit)}`)
console.log(`exit codes: ${[...owned.codes].join(', ')}`)
