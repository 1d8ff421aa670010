/**
 * `node scripts/bench/dist-size.ts BEFORE_DIST`: dist/ against an older one (e.g. built from an
 * earlier commit), side by side: each file's size without the source maps, and in interleaved
 * rounds the cold start of each bundle, spawn → create POST (a step that talks to the service
 * only, beside a bare `node -e` fetch of the same POST, as `npm run bench` measures it) and
 * spawn → first GitHub request (a step with `comment: true` on a pull request, which loads the
 * GitHub client). The order within a round alternates, so a drift in the machine's load
 * favours neither. `BENCH_ROUNDS` sets the rounds (default 20, after 2 warm-up rounds).
 */
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_GITHUB_TOKEN, ROOT } from '../../test/e2e/harness.ts'
import { FakeAgentApi } from '../../test/fake-api/server.ts'
import { FakeGitHub } from '../../test/fake-github/server.ts'
import { median, round, summarize } from './stats.ts'
import { prepareStep, spawnPrepared } from './step.ts'

const KEY = 'sk-bench-dist'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20)
const WARMUP = 2
const CREATE = /\/agent\/runs?$/
const DEADLINE_MS = 15_000

const before = process.argv[2]
if (!before) {
  console.error('usage: node scripts/bench/dist-size.ts BEFORE_DIST')
  process.exit(2)
}
const bundles = { before, after: join(ROOT, 'dist') }

const BARE_POST = `fetch(process.env.BENCH_URL, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.BENCH_KEY },
  body: process.env.BENCH_BODY,
}).then((r) => r.text()).then(() => {}, (e) => { console.error(e); process.exitCode = 1 })`

function sizes(dist: string): Map<string, number> {
  return new Map(
    readdirSync(dist)
      .filter((file) => !file.endsWith('.map'))
      .map((file) => [file, statSync(join(dist, file)).size]),
  )
}

/** Spawn → create POST at the fake API; with `bare`, a `node -e` fetch sends the same POST. */
async function toCreate(dist: string | 'bare', body = '{}'): Promise<{ ms: number; body: string }> {
  const api = await FakeAgentApi.start({ apiKey: KEY })
  try {
    const inputs = { api_key: KEY, base_url: api.baseUrl, prompt: 'Benchmark' }
    const spawned =
      dist === 'bare'
        ? spawnPrepared(
            prepareStep(inputs, {
              BENCH_URL: `${api.baseUrl}/agent/run`,
              BENCH_KEY: KEY,
              BENCH_BODY: body,
            }),
            { nodeArgs: ['-e', BARE_POST], script: '' },
          )
        : spawnPrepared(prepareStep(inputs), { script: join(dist, 'main.js') })
    const create = await api.waitForRequest('POST', CREATE, DEADLINE_MS)
    spawned.child.kill('SIGKILL')
    await spawned.done
    return { ms: create.receivedAt - spawned.spawnedAt, body: create.body }
  } finally {
    await api.close()
  }
}

/** Spawn → the first request at the fake GitHub, of a step that comments on a pull request. */
async function toGitHub(dist: string): Promise<number> {
  const api = await FakeAgentApi.start({ apiKey: KEY })
  const gh = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  try {
    const event = join(mkdtempSync(join(tmpdir(), 'bench-event-')), 'event.json')
    writeFileSync(
      event,
      JSON.stringify({
        pull_request: { number: 7, head: { sha: 'c0ffee'.padEnd(40, '0') } },
        repository: { full_name: 'octo-org/app' },
      }),
    )
    const step = prepareStep(
      { api_key: KEY, base_url: api.baseUrl, prompt: 'Benchmark', comment: 'true' },
      { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event, GITHUB_API_URL: gh.apiUrl },
    )
    const spawned = spawnPrepared(step, { script: join(dist, 'main.js') })
    const endsAt = Date.now() + DEADLINE_MS
    while (gh.requests.length === 0) {
      if (Date.now() > endsAt) throw new Error('no GitHub request within 15 s')
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    const first = gh.requests[0]?.receivedAt ?? NaN
    spawned.child.kill('SIGKILL')
    await spawned.done
    return first - spawned.spawnedAt
  } finally {
    await Promise.all([api.close(), gh.close()])
  }
}

const samples = {
  createBefore: [] as number[],
  createAfter: [] as number[],
  bare: [] as number[],
  githubBefore: [] as number[],
  githubAfter: [] as number[],
}
const { body } = await toCreate(bundles.after)
for (let i = 0; i < WARMUP + ROUNDS; i += 1) {
  const keep = i >= WARMUP
  const order = i % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)
  const bare = await toCreate('bare', body)
  for (const which of order) {
    const create = await toCreate(bundles[which])
    const github = await toGitHub(bundles[which])
    if (!keep) continue
    ;(which === 'before' ? samples.createBefore : samples.createAfter).push(create.ms)
    ;(which === 'before' ? samples.githubBefore : samples.githubAfter).push(github)
  }
  if (keep) samples.bare.push(bare.ms)
  process.stderr.write(`round ${i + 1 - WARMUP}/${ROUNDS}\r`)
}

const [sizesBefore, sizesAfter] = [sizes(bundles.before), sizes(bundles.after)]
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)
const lines = ['| file | before | after |', '| --- | ---: | ---: |']
for (const file of [...new Set([...sizesBefore.keys(), ...sizesAfter.keys()])].sort()) {
  const show = (m: Map<string, number>) =>
    m.has(file) ? (m.get(file) ?? 0).toLocaleString('en') : '–'
  lines.push(`| ${file} | ${show(sizesBefore)} | ${show(sizesAfter)} |`)
}
lines.push(
  `| **all, without maps** | **${total(sizesBefore).toLocaleString('en')}** | **${total(sizesAfter).toLocaleString('en')}** |`,
)
const fig = (values: number[]) => {
  const s = summarize(values)
  return `${s.median} ms (${s.p25}–${s.p75})`
}
const ratio = (values: number[]) => `${round(median(values) / median(samples.bare), 2)}×`
lines.push(
  '',
  `${ROUNDS} rounds after ${WARMUP} warm-up rounds; medians (p25–p75):`,
  '',
  '| figure | before | after |',
  '| --- | --- | --- |',
  `| spawn → create POST | ${fig(samples.createBefore)}, ${ratio(samples.createBefore)} | ${fig(samples.createAfter)}, ${ratio(samples.createAfter)} |`,
  `| spawn → first GitHub request (\`comment: true\`) | ${fig(samples.githubBefore)} | ${fig(samples.githubAfter)} |`,
  `| bare \`node -e\` fetch → the same POST | ${fig(samples.bare)} | |`,
)
console.log(lines.join('\n'))
