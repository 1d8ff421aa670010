/**
 * A campaign of 1,000 repositories from one step, through the committed bundle as the runner
 * starts it: its peak memory stays under the 150 MB the contract promises (v1.5, "Campaigns",
 * item 5). The runs all end in one poll, the step's heaviest moment: a thousand answers to read
 * and a thousand tasks' work to bring back. Before the young generation was held and the answers
 * read a few at a time, this step peaked at 184 to 208 MB; after, 107 to 120 MB.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FakeAgentApi, type RunScript } from '../fake-api/server.ts'
import { ROOT, runStep } from '../e2e/harness.ts'

const KEY = 'sk-campaign-memory'
const REPOSITORIES = 1_000
const PEAK_RSS_LIMIT_MB = 150

const script: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 500, patch: { request_usage: { inference_cost: 1 } } },
  { state: 'SUCCEEDED', afterMs: 5_000 },
]

describe('load: a campaign of 1,000 repositories from one step', () => {
  let api: FakeAgentApi | undefined
  afterAll(async () => api?.close())

  it(`peaks under ${PEAK_RSS_LIMIT_MB} MB`, async () => {
    api = await FakeAgentApi.start({ apiKey: KEY, script: () => script })
    const workspace = mkdtempSync(join(tmpdir(), 'campaign-memory-'))
    const tasks = Array.from({ length: REPOSITORIES }, (_, i) => ({
      repository: `octo-org/service-${i}`,
      prompt: 'Add the lint check to CI',
    }))
    writeFileSync(join(workspace, 'campaign.json'), JSON.stringify(tasks))
    const peakFile = join(workspace, 'maxrss')
    const preload = join(ROOT, 'scripts', 'bench', 'maxrss-preload.mjs')

    const result = await runStep({
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        campaign: 'add-lint',
        tasks_file: 'campaign.json',
        max_parallel: '1000',
        poll_interval: '1s',
        timeout: '5m',
      },
      env: {
        GITHUB_WORKSPACE: workspace,
        NODE_OPTIONS: `--import ${preload}`,
        BENCH_MAXRSS_FILE: peakFile,
      },
    })

    expect(result.code, result.stdout.slice(-2_000)).toBe(0)
    expect(api.allRuns()).toHaveLength(REPOSITORIES)
    expect(api.allRuns().every((run) => run.state === 'SUCCEEDED')).toBe(true)
    const peakMb = Number(readFileSync(peakFile, 'utf8')) / 1024
    console.log(`campaign of ${REPOSITORIES}: peak RSS ${peakMb.toFixed(0)} MB`)
    expect(peakMb).toBeLessThan(PEAK_RSS_LIMIT_MB)
  }, 120_000)
})
