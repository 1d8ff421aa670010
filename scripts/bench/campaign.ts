/**
 * `node scripts/bench/campaign.ts` (after `npm run build`): a campaign of 1,000 repositories
 * from one step (dist/main.js, `tasks_file`, `max_parallel: 1000`), each run working 30 s,
 * against the fake API in real time: list requests and single-run reads per poll, wall time,
 * the step's peak RSS; then the same campaign applied again (runs created: 0). Beside it, ten
 * single steps of one repository each, as a matrix's legs run, whose requests and runner time a
 * 1,000-leg matrix multiplies by 100.
 */
import { spawn } from 'node:child_process'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FakeAgentApi, type RunScript } from '../../test/fake-api/server.ts'
import { prepareStepEnvironment, ROOT } from '../../test/e2e/harness.ts'

const KEY = 'sk-bench-campaign'
const REPOSITORIES = Number(process.env.BENCH_REPOSITORIES ?? 1_000)
const RUN_MS = 30_000
const POLL = '5s'

const script: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 500, patch: { request_usage: { inference_cost: 1 } } },
  { state: 'SUCCEEDED', afterMs: RUN_MS },
]

async function step(api: FakeAgentApi, inputs: Record<string, string>) {
  const { env, dir } = prepareStepEnvironment({
    inputs: { api_key: KEY, base_url: api.baseUrl, poll_interval: POLL, timeout: '10m', ...inputs },
  })
  const tasks = Array.from({ length: REPOSITORIES }, (_, i) => ({
    repository: `octo-org/service-${i}`,
    prompt: 'Add the lint check to CI',
  }))
  writeFileSync(join(dir, 'campaign.json'), JSON.stringify(tasks))
  const rss = join(dir, 'maxrss')
  const before = api.requests.length
  const started = performance.now()
  const preload = join(ROOT, 'scripts', 'bench', 'maxrss-preload.mjs')
  const code = await new Promise<number | null>((resolve) =>
    spawn(process.execPath, ['--import', preload, join(ROOT, 'dist', 'main.js')], {
      cwd: dir,
      env: { ...env, GITHUB_WORKSPACE: dir, BENCH_MAXRSS_FILE: rss },
      stdio: 'ignore',
    }).on('close', resolve),
  )
  const wallMs = performance.now() - started
  const requests = api.requests.slice(before)
  const count = (method: string, path: RegExp) =>
    requests.filter((r) => r.method === method && path.test(r.path)).length
  return {
    code,
    wallMs,
    requests: requests.length,
    creates: count('POST', /\/agent\/runs?$/),
    lists: count('GET', /\/agent\/runs$/),
    reads: count('GET', /\/agent\/runs\/[^/]+$/),
    maxRssMb: Number(readFileSync(rss, 'utf8')) / 1024,
    // What the runner is handed: the saved state (appended at each save) and the job summary.
    stateKb: statSync(env.GITHUB_STATE ?? '').size / 1024,
    summaryKb: statSync(env.GITHUB_STEP_SUMMARY ?? '').size / 1024,
  }
}

const api = await FakeAgentApi.start({ apiKey: KEY, script: () => script })
try {
  const campaign = { campaign: 'add-lint', tasks_file: 'campaign.json', max_parallel: '1000' }
  const first = await step(api, campaign)
  const polls = Math.ceil(RUN_MS / 5_000) + 1
  console.log(
    `${REPOSITORIES} repositories, one step: exit ${first.code}, ${(first.wallMs / 1000).toFixed(1)} s, ${first.requests} requests (${first.creates} creates, ${first.lists} list pages, ${first.reads} single reads; about ${polls} polls), peak RSS ${first.maxRssMb.toFixed(0)} MB, state file ${first.stateKb.toFixed(0)} kB, job summary ${first.summaryKb.toFixed(0)} kB`,
  )
  const again = await step(api, campaign)
  console.log(
    `applied again: exit ${again.code}, ${(again.wallMs / 1000).toFixed(1)} s, ${again.requests} requests, ${again.creates} runs created, peak RSS ${again.maxRssMb.toFixed(0)} MB`,
  )
} finally {
  await api.close()
}

// Ten legs of a matrix, one repository each (a leg's cost, times 100 for 1,000 repositories).
const legs = await FakeAgentApi.start({ apiKey: KEY, script: () => script })
try {
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      step(legs, { prompt: `Add the lint check to CI`, name: `leg-${i}` }),
    ),
  )
  const requests = results.reduce((sum, one) => sum + one.requests, 0)
  const runnerSeconds = results.reduce((sum, one) => sum + one.wallMs / 1000, 0)
  const rss = Math.max(...results.map((one) => one.maxRssMb))
  console.log(
    `10 single steps: ${requests} requests, ${runnerSeconds.toFixed(0)} runner-seconds held, peak RSS ${rss.toFixed(0)} MB each; for ${REPOSITORIES}: about ${(requests * REPOSITORIES) / 10} requests and ${((runnerSeconds * REPOSITORIES) / 10 / 60).toFixed(0)} runner-minutes`,
  )
} finally {
  await legs.close()
}
