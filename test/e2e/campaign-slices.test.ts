/**
 * Past one job's reach (v1.5, "Campaigns", 5): the forge's own engine fans a campaign out over
 * slices of its list, each slice a `tasks` step of the same campaign, and one report covers them
 * all. Tested as far as this machine allows: a GitLab parent-child pipeline's child jobs as
 * separate command runs, and a GitHub matrix's legs as separate steps, against one fake service.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunScript } from '../fake-api/server.ts'
import { command } from './command.ts'
import { runStep } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-e2e-campaign-slices-4b7a'
const done: RunScript = [
  { state: 'INPROGRESS', afterMs: 0, patch: { request_usage: { inference_cost: 3 } } },
  { state: 'SUCCEEDED', afterMs: 50 },
]
const { fakeApi } = e2eServers(KEY)

/** Twelve repositories' tasks, sliced `count` ways as the docs' jq line slices them (index mod count). */
function slices(count: number, prompt: string): { repository: string; prompt: string }[][] {
  const tasks = Array.from({ length: 12 }, (_, index) => ({
    repository: index % 3 === 2 ? `gitlab:platform/svc-${index}` : `octo-org/svc-${index}`,
    prompt,
  }))
  return Array.from({ length: count }, (_, slice) =>
    tasks.filter((_, index) => index % count === slice),
  )
}

interface Tracking {
  report: {
    tracking: { repositories: number; lines: { runs: number }[] }
    totals: { runs: number }
  }
}

describe('a campaign over slices, each a step of its own', () => {
  it('GitLab child jobs: each slice a command run of the campaign, then one status over all', async () => {
    const api = await fakeApi({ script: () => done })
    const dir = mkdtempSync(join(tmpdir(), 'campaign-slices-'))
    const child = (slice: number) => ({
      WARP_API_KEY: KEY,
      GITLAB_CI: 'true',
      CI_PROJECT_PATH: 'platform/campaigns',
      CI_PIPELINE_ID: '7700',
      CI_JOB_ID: String(9100 + slice),
      CI_JOB_NAME: `slice ${slice}`,
    })
    const parts = slices(3, 'Bump lodash to 4.17.23')
    const results = await Promise.all(
      parts.map((part, slice) => {
        const file = join(dir, `slice-${slice}.json`)
        writeFileSync(file, JSON.stringify(part))
        const args = ['--campaign', 'lodash', '--tasks-file', file, '--base-url', api.baseUrl]
        return command([...args, '--poll-interval', '100ms', '--json'], child(slice), dir).done
      }),
    )
    for (const result of results) expect(result.code, result.stderr).toBe(0)
    expect(api.allRuns()).toHaveLength(12)

    const status = await command(
      ['campaign', 'status', 'lodash', '--json', '--base-url', api.baseUrl],
      { WARP_API_KEY: KEY },
    ).done
    expect(status.code, status.stderr).toBe(0)
    const { report } = JSON.parse(status.stdout) as Tracking
    expect(report.tracking.repositories).toBe(12)
    expect(report.totals.runs).toBe(12)
    expect(report.tracking.lines.every((line) => line.runs === 1)).toBe(true)

    // A child job run again (a retried slice) pays for nothing: its repositories are done.
    const file = join(dir, 'slice-0.json')
    const again = await command(
      ['--campaign', 'lodash', '--tasks-file', file, '--base-url', api.baseUrl, '--json'],
      child(0),
      dir,
    ).done
    expect(again.code, again.stderr).toBe(0)
    expect(api.allRuns()).toHaveLength(12)
  })

  it("GitHub matrix legs: each slice a step of the campaign, and the report's one number", async () => {
    const api = await fakeApi({ script: () => done })
    const parts = slices(4, 'Add the lint check')
    const legs = await Promise.all(
      parts.map((part) =>
        runStep({
          inputs: {
            api_key: KEY,
            base_url: api.baseUrl,
            campaign: 'lint',
            tasks: JSON.stringify(part),
            poll_interval: '100ms',
          },
          env: { GITHUB_REPOSITORY: 'octo-org/platform-ops' },
        }),
      ),
    )
    for (const leg of legs) expect(leg.code, leg.stdout).toBe(0)
    const report = await runStep({
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl, campaign: 'lint', github_token: '' },
    })
    expect(report.code, report.stdout).toBe(0)
    const ledger = JSON.parse(report.outputs.report ?? '') as Tracking['report'] & {
      totals: { credits: number }
    }
    expect(ledger.tracking.repositories).toBe(12)
    expect(ledger.totals).toMatchObject({ runs: 12, credits: 36 })
  })
})
