/**
 * Campaigns (v1.5, issue 49): one instruction over many repositories from one `tasks` step.
 * Each run carries the campaign; a task's repository is its run's project (its tags, the
 * report's rows), `<campaign>/<repository>` its name; `tasks_file` holds a list longer than an
 * input can.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import { FakeAgentApi, type RunScript } from '../fake-api/server.ts'
import { command } from './command.ts'
import { runStep } from './harness.ts'

const KEY = 'sk-e2e-campaign-41f0'
const servers: FakeAgentApi[] = []

afterAll(async () => {
  await Promise.all(servers.splice(0).map((api) => api.close()))
})

const done: RunScript = [
  { state: 'INPROGRESS', afterMs: 0, patch: { request_usage: { inference_cost: 4 } } },
  { state: 'SUCCEEDED', afterMs: 50 },
]

async function fakeApi(): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start({ apiKey: KEY, script: () => done })
  servers.push(api)
  return api
}

/** The metadata of every create, in task order. */
function createdTags(api: FakeAgentApi): Record<string, string>[] {
  return api
    .requestsTo('POST', /\/agent\/runs?$/)
    .map((r) => (r.json as { metadata: Record<string, string> }).metadata)
    .sort((a, b) => Number(a.gh_task) - Number(b.gh_task))
}

describe('campaign: one instruction over many repositories', () => {
  it("tags each run with the campaign and its task's repository, named <campaign>/<repository>", async () => {
    const api = await fakeApi()
    const workspace = mkdtempSync(join(tmpdir(), 'campaign-'))
    const tasks = [
      { repository: 'octo-org/api', prompt: 'Bump lodash to 4.17.23' },
      { repository: 'octo-org/web', prompt: 'Bump lodash to 4.17.23' },
      { repository: 'gitlab:platform/billing', prompt: 'Bump lodash to 4.17.23' },
    ]
    writeFileSync(
      join(workspace, 'campaign.yml'),
      tasks.map((t) => `- ${JSON.stringify(t)}`).join('\n'),
    )
    const result = await runStep({
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        campaign: 'bump-lodash',
        tasks_file: 'campaign.yml',
        timeout: '30s',
        poll_interval: '100ms',
      },
      env: { GITHUB_WORKSPACE: workspace, GITHUB_REPOSITORY: 'octo-org/platform-ops' },
    })
    expect(result.code, result.stdout).toBe(0)
    const tags = createdTags(api)
    expect(tags.map((t) => [t.gh_campaign, t.gh_forge, t.gh_repository, t.gh_key])).toEqual([
      ['bump-lodash', 'github', 'octo-org/api', 'bump-lodash/octo-org/api'],
      ['bump-lodash', 'github', 'octo-org/web', 'bump-lodash/octo-org/web'],
      ['bump-lodash', 'gitlab', 'platform/billing', 'bump-lodash/gitlab:platform/billing'],
    ])
    // The step's own commit and thread are another repository's: no run carries them.
    expect(tags.every((t) => t.gh_head_sha === undefined && t.gh_thread === undefined)).toBe(true)
    // Within the service's 20 metadata keys, with room to spare.
    expect(Math.max(...tags.map((t) => Object.keys(t).length))).toBeLessThanOrEqual(19)
    const names = api
      .requestsTo('POST', /\/agent\/runs?$/)
      .map((r) => (r.json as { config?: { name?: string } }).config?.name)
    expect(names.sort()).toEqual([
      'bump-lodash/gitlab:platform/billing',
      'bump-lodash/octo-org/api',
      'bump-lodash/octo-org/web',
    ])

    // Each repository's report counts its own run, whichever repository's step made it.
    const laptop = await command(
      ['report', '--project', 'octo-org/web', '--base-url', api.baseUrl, '--json'],
      { WARP_API_KEY: KEY },
    ).done
    expect(JSON.parse(laptop.stdout)).toMatchObject({ runs: 1, credits: 4 })

    // The campaign's report: its runs of every repository, by repository, from any repository.
    const report = await runStep({
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl, campaign: 'bump-lodash' },
    })
    expect(report.code, report.stdout).toBe(0)
    const ledger = JSON.parse(report.outputs.report ?? '{}') as {
      campaign: string
      byProject: { name: string; runs: number }[]
    }
    expect(ledger.campaign).toBe('bump-lodash')
    expect(ledger.byProject.map((one) => [one.name, one.runs]).sort()).toEqual([
      ['octo-org/api', 1],
      ['octo-org/web', 1],
      ['platform/billing', 1],
    ])
    expect(report.summary).toContain('| **Scope** | campaign bump-lodash, every repository |')
    expect(report.summary).toContain('#### 🗺️ Campaign bump-lodash: 0 of 0 pull requests merged')
  })

  it('refuses a campaign without tasks before any request, naming the input', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: { api_key: KEY, base_url: api.baseUrl, campaign: 'c', prompt: 'p' },
    })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('Input "campaign" needs tasks (or tasks_file)')
    expect(api.requests).toHaveLength(0)
  })

  it('applied again, starts no run for a repository whose run works or succeeded on this instruction', async () => {
    const api = await fakeApi()
    const apply = (tasks: { repository: string; prompt: string }[]) =>
      runStep({
        inputs: {
          api_key: KEY,
          base_url: api.baseUrl,
          campaign: 'add-lint',
          tasks: JSON.stringify(tasks),
          timeout: '30s',
          poll_interval: '100ms',
        },
      })
    const instruction = 'Add the lint check to CI'
    const repositories = ['octo-org/api', 'octo-org/web', 'octo-org/docs']
    const first = await apply(
      repositories.map((repository) => ({ repository, prompt: instruction })),
    )
    expect(first.code, first.stdout).toBe(0)
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(3)

    // The same campaign again: nothing to pay for.
    const again = await apply(
      repositories.map((repository) => ({ repository, prompt: instruction })),
    )
    expect(again.code, again.stdout).toBe(0)
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(3)
    expect(again.summary).toContain(
      '#### Campaign add-lint: 0 of 3 repositories started, 0 followed up, 3 skipped',
    )
    expect(again.stdout).toMatch(
      /add-lint\/octo-org\/web: skipped, run run_[\w-]+ succeeded on this instruction\./,
    )

    // A changed instruction for one repository starts that one only.
    const changed = await apply([
      { repository: 'octo-org/api', prompt: instruction },
      { repository: 'octo-org/web', prompt: `${instruction}, and fix what it finds` },
      { repository: 'octo-org/docs', prompt: instruction },
    ])
    expect(changed.code, changed.stdout).toBe(0)
    const creates = api.requestsTo('POST', /\/agent\/runs?$/)
    expect(creates).toHaveLength(4)
    expect((creates[3]?.json as { config?: { name?: string } }).config?.name).toBe(
      'add-lint/octo-org/web',
    )
    expect(changed.summary).toContain('1 of 3 repositories started, 0 followed up, 2 skipped')
  })

  it('sends a changed instruction to the run that opened the pull request, once, instead of paying for a new run', async () => {
    const pullRequest = (repository: string): RunScript => [
      { state: 'INPROGRESS', afterMs: 0, patch: { request_usage: { inference_cost: 4 } } },
      {
        state: 'SUCCEEDED',
        afterMs: 50,
        patch: {
          artifacts: [
            {
              artifact_type: 'PULL_REQUEST',
              created_at: new Date().toISOString(),
              data: { url: `https://github.com/${repository}/pull/1`, branch: 'agent/lint' },
            },
          ],
        },
      },
    ]
    const api = await FakeAgentApi.start({
      apiKey: KEY,
      script: (request) => pullRequest(request.metadata?.gh_repository ?? ''),
      // A follow-up's pass: queued first, and each state held until a read has shown the one
      // before it, so the step sees the new pass begin however slowly it polls.
      followupScript: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 100, afterSeen: true },
        { state: 'SUCCEEDED', afterMs: 300, afterSeen: true },
      ],
    })
    servers.push(api)
    const apply = (prompt: string) =>
      runStep({
        inputs: {
          api_key: KEY,
          base_url: api.baseUrl,
          campaign: 'add-lint',
          tasks: JSON.stringify(
            ['octo-org/api', 'octo-org/web'].map((repository) => ({ repository, prompt })),
          ),
          timeout: '30s',
          poll_interval: '100ms',
        },
      })
    const first = await apply('Add the lint check to CI')
    expect(first.code, first.stdout).toBe(0)
    const made = api.allRuns()
    expect(made).toHaveLength(2)

    // The conversations cannot be read: whether the change went already is unknown, so none goes.
    api.injectFault({
      method: 'GET',
      path: /\/conversation$/,
      times: Infinity,
      fault: { kind: 'status', status: 503 },
    })
    const unknown = await apply('Add the lint check to CI, and fix what it finds')
    expect(unknown.code, unknown.stdout).toBe(0)
    expect(made.map((run) => api.followups(run.run_id))).toEqual([[], []])
    expect(api.allRuns()).toHaveLength(2)
    expect(unknown.stdout).toContain('could not read whether run')
    api.clearFaults()

    const changed = await apply('Add the lint check to CI, and fix what it finds')
    expect(changed.code, changed.stdout).toBe(0)
    // No new run: each run that opened a pull request got the change, and was awaited again.
    expect(api.allRuns()).toHaveLength(2)
    for (const run of made) {
      expect(api.followups(run.run_id)).toHaveLength(1)
      expect(api.followups(run.run_id)[0]).toMatch(
        /^Add the lint check to CI, and fix what it finds\n\n---\nCampaign add-lint changed its instruction to the above\. You made https:\/\/github\.com\/octo-org\/\w+\/pull\/1:/,
      )
    }
    expect(changed.summary).toContain('0 of 2 repositories started, 2 followed up, 0 skipped')
    expect(changed.stdout).toMatch(
      /add-lint\/octo-org\/web: followed up, the instruction changed: sent to run [\w-]+, which opened its pull request\./,
    )
    expect(changed.outputs.outcome).toBe('succeeded')

    // The same changed instruction again: sent and done, nothing more to pay for.
    const again = await apply('Add the lint check to CI, and fix what it finds')
    expect(again.code, again.stdout).toBe(0)
    expect(api.allRuns()).toHaveLength(2)
    for (const run of made) expect(api.followups(run.run_id)).toHaveLength(1)
    expect(again.summary).toContain('0 of 2 repositories started, 0 followed up, 2 skipped')
    expect(again.stdout).toContain('succeeded on this instruction, sent as a follow-up')
  })

  it('cancel_only with campaign cancels every working run of the campaign, and no other', async () => {
    const working: RunScript = [{ state: 'INPROGRESS', afterMs: 0 }]
    const api = await FakeAgentApi.start({ apiKey: KEY, script: () => working })
    servers.push(api)
    const start = (campaign: string, repositories: string[]) =>
      runStep({
        inputs: {
          api_key: KEY,
          base_url: api.baseUrl,
          campaign,
          tasks: JSON.stringify(repositories.map((repository) => ({ repository, prompt: 'p' }))),
          wait: 'false',
        },
      })
    expect((await start('bump', ['octo-org/api', 'gitlab:group/app'])).code).toBe(0)
    expect((await start('other', ['octo-org/api'])).code).toBe(0)

    const cleanup = await runStep({
      inputs: { api_key: KEY, base_url: api.baseUrl, cancel_only: 'true', campaign: 'bump' },
    })
    expect(cleanup.code, cleanup.stdout).toBe(0)
    const cancelled = JSON.parse(cleanup.outputs.cancelled ?? '[]') as string[]
    expect(cancelled).toHaveLength(2)
    const states = api.allRuns().map((run) => [run.metadata?.gh_campaign, run.state])
    expect(states.filter(([c]) => c === 'bump').every(([, state]) => state === 'CANCELLED')).toBe(
      true,
    )
    expect(states.filter(([c]) => c === 'other')).toEqual([['other', 'INPROGRESS']])
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(3)
  })
})
