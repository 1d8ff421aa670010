/**
 * `node scripts/bench/report.ts` (after `npm run build`): `cloud-agent-run report` (dist/cli.js)
 * over a week of 1,000 and of 10,000 runs the fake API holds (a tenth of them another project's,
 * or untagged): the list requests it makes and its wall time, spawn → exit, median of
 * `BENCH_ROUNDS` (default 5) runs each.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from '../../test/e2e/harness.ts'
import { FakeAgentApi } from '../../test/fake-api/server.ts'
import { summarize } from './stats.ts'

const KEY = 'sk-bench-report'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const DAY = 24 * 60 * 60_000

async function oneSize(runs: number): Promise<void> {
  const api = await FakeAgentApi.start({ apiKey: KEY })
  try {
    for (let i = 0; i < runs; i += 1) {
      const ours = i % 10 !== 0
      const metadata: Record<string, string> = ours
        ? {
            gh_invocation: `inv-${i}`,
            gh_forge: 'none',
            gh_repository: 'acme/app',
            gh_key: `k${i % 40}`,
          }
        : { gh_repository: 'acme/other' }
      api.seedRun(
        { prompt: 'p', metadata },
        {
          script: [
            { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: 1 } } },
          ],
          createdAt: Date.now() - (i % 7) * DAY - 60_000,
        },
      )
    }
    const times: number[] = []
    let requests = 0
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = api.requestsTo('GET', '/agent/runs').length
      const started = performance.now()
      const child = spawn(
        process.execPath,
        [
          join(ROOT, 'dist', 'cli.js'),
          'report',
          '--base-url',
          api.baseUrl,
          '--project',
          'acme/app',
          '--json',
        ],
        {
          env: { PATH: process.env.PATH ?? '', WARP_API_KEY: KEY },
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      )
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      times.push(performance.now() - started)
      requests = api.requestsTo('GET', '/agent/runs').length - before
      const answer = JSON.parse(out) as { runs: number }
      if (code !== 0 || answer.runs !== Math.ceil(runs * 0.9)) {
        throw new Error(`report over ${runs} runs: exit ${code}, ${answer.runs} runs`)
      }
    }
    const s = summarize(times)
    console.log(
      `${runs.toLocaleString('en-US')} runs: ${requests} list requests, wall median ${s.median.toFixed(0)} ms (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)})`,
    )
  } finally {
    await api.close()
  }
}

for (const runs of [1_000, 10_000]) await oneSize(runs)
