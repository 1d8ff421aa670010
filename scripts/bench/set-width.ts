/**
 * `node scripts/bench/set-width.ts [BEFORE_DIST]`: how wide a set runs. Twenty tasks of 20 s with
 * `max_parallel: 20`, through a bundle against the fake API in real time, beside one run of
 * 20 s: the wall time (the goal is within 1.3× of the one run's) and the requests. With
 * BEFORE_DIST (an older dist/, e.g. extracted with `git archive <commit> dist`), the older
 * bundle runs the same set in the same rounds, side by side.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { FakeAgentApi, type RunScript } from '../../test/fake-api/server.ts'
import { prepareStepEnvironment, ROOT } from '../../test/e2e/harness.ts'

const KEY = 'sk-bench-set-width'
const RUN_MS = 20_000
const TASKS = 20
const ROUNDS = 2

const script: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 200 },
  { state: 'SUCCEEDED', afterMs: RUN_MS },
]

async function step(dist: string, inputs: Record<string, string>) {
  const api = await FakeAgentApi.start({ apiKey: KEY, script: () => script })
  const { env, dir } = prepareStepEnvironment({
    inputs: { api_key: KEY, base_url: api.baseUrl, poll_interval: '1s', ...inputs },
  })
  const started = performance.now()
  const code = await new Promise<number | null>((resolve) =>
    spawn(process.execPath, [join(dist, 'main.js')], { cwd: dir, env, stdio: 'ignore' }).on(
      'close',
      resolve,
    ),
  )
  const wallMs = performance.now() - started
  const requests = api.requests.length
  const creates = api.requestsTo('POST', /\/agent\/runs?$/).length
  await api.close()
  return { code, wallMs, requests, creates }
}

const tasks = JSON.stringify(Array.from({ length: TASKS }, (_, index) => `task ${index}`))
const bundles = [
  ['after', join(ROOT, 'dist')],
  ...(process.argv[2] ? [['before', process.argv[2]]] : []),
] as const
const rows: string[] = []
for (let round = 1; round <= ROUNDS; round += 1) {
  const single = await step(join(ROOT, 'dist'), { prompt: 'one run' })
  rows.push(
    `round ${round}  one run (after)      ${(single.wallMs / 1000).toFixed(1)} s, ${single.requests} requests`,
  )
  for (const [label, dist] of bundles) {
    const set = await step(dist, { tasks, max_parallel: String(TASKS) })
    rows.push(
      `round ${round}  ${TASKS} tasks (${label})${' '.repeat(7 - label.length)}${(set.wallMs / 1000).toFixed(1)} s, ${set.requests} requests, ${set.creates} creates, exit ${set.code}; ${(set.wallMs / single.wallMs).toFixed(2)}× one run`,
    )
  }
}
console.log(rows.join('\n'))
