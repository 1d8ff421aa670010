/**
 * `node scripts/bench/report.ts` (after `npm run build`): `cloud-agent-run report` (dist/cli.js)
 * over a week of 1,000 and of 10,000 runs the fake API holds (a tenth of them another project's,
 * or untagged): the list requests it makes and its wall time, spawn → exit, median of
 * `BENCH_ROUNDS` (default 5) runs each; then one repository's total through the three doors.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { ROOT, runStep } from '../../test/e2e/harness.ts'
import { FakeAgentApi } from '../../test/fake-api/server.ts'
import { summarize } from './stats.ts'

const KEY = 'sk-bench-report'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const DAY = 24 * 60 * 60_000

/** `cloud-agent-run report --project acme/app --json` from the bundle, as on a laptop. */
async function laptopReport(api: FakeAgentApi): Promise<{ code: number | null; out: string }> {
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
  return { code, out }
}

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
      const { code, out } = await laptopReport(api)
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

/**
 * One repository's total through the three doors (v1.5, "one number per project"): the `report`
 * action in the repository (dist/report.js, as the runner runs it), its row under `scope: all`,
 * and `cloud-agent-run report --project` on a laptop, over the same runs: some made by the action
 * on GitHub, some by the command with a bare `--project` (no forge), on an account billed in
 * dollars; another repository's runs are left out.
 */
async function threeDoors(): Promise<void> {
  const api = await FakeAgentApi.start({ apiKey: KEY })
  try {
    const tagsOf = (i: number): Record<string, string> => {
      const forge = i % 3 === 0 ? 'none' : 'github'
      const repository = i % 11 === 0 ? 'acme/other' : 'acme/app'
      return { gh_invocation: `inv-${i}`, gh_forge: forge, gh_repository: repository }
    }
    for (let i = 0; i < 300; i += 1) {
      const credits = 1 + (i % 9)
      const usage = { inference_cost: credits, inference_cost_usd: credits / 100 }
      api.seedRun(
        { prompt: 'p', metadata: tagsOf(i) },
        {
          script: [{ state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: usage } }],
          createdAt: Date.now() - (i % 7) * DAY - 60_000,
        },
      )
    }
    const env = { GITHUB_REPOSITORY: 'acme/app' }
    const action = await runStep({
      target: 'bundle',
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl },
      env,
    })
    const all = await runStep({
      target: 'bundle',
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl, scope: 'all' },
      env,
    })
    const row = (
      JSON.parse(all.outputs.report ?? '{}') as {
        byProject: { name: string; runs: number; credits: number; costUsd: number }[]
      }
    ).byProject.find((one) => one.name === 'acme/app')
    const command = JSON.parse((await laptopReport(api)).out) as {
      runs: number
      credits: number
      cost_usd: number
    }
    const doors = [
      ['the report action', action.outputs.runs, action.outputs.credits, action.outputs.cost_usd],
      ['its row under scope: all', row?.runs, row?.credits, row?.costUsd],
      ['cloud-agent-run report --project', command.runs, command.credits, command.cost_usd],
    ] as const
    console.log('| door | runs | credits | cost_usd |\n| --- | ---: | ---: | ---: |')
    for (const [door, runs, credits, usd] of doors) {
      console.log(`| ${door} | ${String(runs)} | ${String(credits)} | ${String(usd)} |`)
    }
    const totals = new Set(doors.map(([, ...figures]) => figures.map(Number).join(' ')))
    if (totals.size !== 1) throw new Error('the three doors disagree')
    console.log('The three doors agree.')
  } finally {
    await api.close()
  }
}

await threeDoors()
