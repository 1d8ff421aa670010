/**
 * Tracking a campaign to merged pull requests (v1.5, "Campaigns", 3): the report with
 * `campaign` reads each pull request the campaign's runs opened from GitHub (`github_token`):
 * its state, its head's checks and its review; the totals, the burndown chart, one line per
 * repository in the summary and one row per repository in runs.csv. Without a token, the link
 * and "state unknown".
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { FakeAgentApi, RunScript } from '../fake-api/server.ts'
import type { FakeGitHub } from '../fake-github/server.ts'
import { DEFAULT_GITHUB_TOKEN, runStep } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-e2e-campaign-track-5c2e'
const { fakeApi, fakeGitHub } = e2eServers(KEY)
const DAY = 24 * 60 * 60_000
const CAMPAIGN = 'bump-lodash'

/** A campaign run of `repository` made `daysAgo`, that ended `state`, having opened `pull`. */
function seedRun(
  api: FakeAgentApi,
  run: { repository: string; daysAgo: number; state?: string; pull?: number; credits?: number },
) {
  const [forge, project] = run.repository.startsWith('gitlab:')
    ? ['gitlab', run.repository.slice('gitlab:'.length)]
    : ['github', run.repository]
  const url =
    run.pull === undefined
      ? undefined
      : forge === 'gitlab'
        ? `https://gitlab.example.test/${project}/-/merge_requests/${run.pull}`
        : `https://github.com/${project}/pull/${run.pull}`
  const artifacts = url
    ? [
        {
          artifact_type: 'PULL_REQUEST' as const,
          created_at: new Date().toISOString(),
          data: { url, branch: 'agent/bump' },
        },
      ]
    : []
  const script: RunScript = [
    {
      state: run.state ?? 'SUCCEEDED',
      afterMs: 0,
      patch: {
        artifacts,
        request_usage: { inference_cost: run.credits ?? 10 },
        session_link: `https://app.example.test/sessions/${run.repository.replace(/\W/g, '-')}`,
      },
    },
  ]
  return api.seedRun(
    {
      prompt: 'Bump lodash to 4.17.23',
      metadata: {
        gh_invocation: `inv-${Math.random()}`,
        gh_campaign: CAMPAIGN,
        gh_forge: forge ?? 'github',
        gh_repository: project ?? '',
        gh_key: `${CAMPAIGN}/${run.repository}`,
      },
    },
    { script, createdAt: Date.now() - run.daysAgo * DAY - 60_000 },
  )
}

/** Five repositories: merged, open with a failing check, draft approved, closed, no pull request. */
async function seedCampaign(api: FakeAgentApi, github: FakeGitHub): Promise<void> {
  seedRun(api, { repository: 'octo-org/api', daysAgo: 6, pull: 11, credits: 30 })
  seedRun(api, { repository: 'octo-org/web', daysAgo: 5, pull: 12 })
  seedRun(api, { repository: 'octo-org/docs', daysAgo: 5, pull: 13 })
  seedRun(api, { repository: 'octo-org/old', daysAgo: 4, pull: 14 })
  seedRun(api, { repository: 'octo-org/cli', daysAgo: 3, state: 'FAILED' })
  // A second run of a repository: the line shows the newest and counts both.
  seedRun(api, { repository: 'octo-org/api', daysAgo: 2, pull: 11, credits: 5 })
  const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString().slice(0, 19) + 'Z'
  github.setPullRequest('octo-org', 'api', 11, {
    headSha: 'a1',
    createdAt: ago(6),
    mergedAt: ago(1),
  })
  github.setPullRequest('octo-org', 'web', 12, { headSha: 'b1', createdAt: ago(5) })
  github.addCheckRun('octo-org', 'web', { name: 'test', headSha: 'b1', conclusion: 'failure' })
  github.addCheckRun('octo-org', 'web', { name: 'lint', headSha: 'b1' })
  github.addReview('octo-org', 'web', 12, { login: 'maintainer', state: 'CHANGES_REQUESTED' })
  github.setPullRequest('octo-org', 'docs', 13, { headSha: 'c1', createdAt: ago(5), draft: true })
  github.addCheckRun('octo-org', 'docs', { name: 'test', headSha: 'c1', status: 'in_progress' })
  github.addReview('octo-org', 'docs', 13, { login: 'maintainer', state: 'APPROVED' })
  github.setPullRequest('octo-org', 'old', 14, {
    headSha: 'd1',
    createdAt: ago(4),
    state: 'closed',
    closedAt: ago(3),
  })
}

interface TrackingJson {
  repositories: number
  pullRequests: Record<string, number>
  checksFailing: number
  changesRequested: number
  burndown: { day: string; open: number; merged: number }[]
  lines: {
    repository: string
    runs: number
    credits: number
    outcome: string
    pullRequest: string
    status?: { state?: string; checks?: string; review?: string; unknown?: string }
  }[]
}

describe('campaign tracking: from runs to merged pull requests', () => {
  it("reads each pull request's state, checks and review, and shows one line per repository, the totals and the burndown", async () => {
    const api = await fakeApi()
    const github = await fakeGitHub()
    await seedCampaign(api, github)
    const workspace = mkdtempSync(join(tmpdir(), 'campaign-track-'))
    const result = await runStep({
      action: 'report',
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        campaign: CAMPAIGN,
        github_token: DEFAULT_GITHUB_TOKEN,
        report_dir: 'campaign-report',
      },
      env: {
        GITHUB_WORKSPACE: workspace,
        GITHUB_API_URL: github.apiUrl,
        GITHUB_REPOSITORY: 'octo-org/platform-ops',
      },
    })
    expect(result.code, result.stdout).toBe(0)
    const { tracking } = JSON.parse(result.outputs.report ?? '') as { tracking: TrackingJson }
    expect(tracking.repositories).toBe(5)
    expect(tracking.pullRequests).toEqual({ draft: 1, open: 1, merged: 1, closed: 1, unknown: 0 })
    expect(tracking.checksFailing).toBe(1)
    expect(tracking.changesRequested).toBe(1)
    const byName = new Map(tracking.lines.map((line) => [line.repository, line]))
    expect(byName.get('octo-org/api')).toMatchObject({
      runs: 2,
      credits: 35,
      status: { state: 'merged' },
    })
    expect(byName.get('octo-org/web')?.status).toMatchObject({
      state: 'open',
      checks: 'failing',
      review: 'changes_requested',
    })
    expect(byName.get('octo-org/docs')?.status).toMatchObject({
      state: 'draft',
      checks: 'pending',
      review: 'approved',
    })
    expect(byName.get('octo-org/cli')).toMatchObject({ outcome: 'failed', pullRequest: '' })
    // The week before yesterday: four opened over days, one closed, one merged yesterday.
    const burndown = tracking.burndown.slice(-8)
    expect(burndown.at(-1)).toMatchObject({ open: 2, merged: 1 })
    expect(burndown.at(-3)).toMatchObject({ open: 3, merged: 0 })
    // A merged or closed pull request costs one read; an open one three.
    expect(github.requestsTo('GET', /\/pulls\/\d+$/)).toHaveLength(4)
    expect(github.requestsTo('GET', /\/check-runs/)).toHaveLength(2)

    expect(result.summary).toContain(`#### 🗺️ Campaign ${CAMPAIGN}: 1 of 4 pull requests merged`)
    expect(result.summary).toContain('| **Pull requests** | 1 merged, 1 open, 1 draft, 1 closed |')
    expect(result.summary).toContain('bar [')
    expect(result.summary).toMatch(
      /\| octo-org\/web \| \[succeeded\]\([^)]*\) \| \[#12\]\(https:\/\/github\.com\/octo-org\/web\/pull\/12\) \| open \| failing \| changes requested \|/,
    )
    // Five repositories: the table stays open.
    expect(result.summary).not.toContain('<details>')

    const csv = readFileSync(join(workspace, 'campaign-report', 'runs.csv'), 'utf8')
    const rows = csv.trimEnd().split('\r\n')
    expect(rows[0]).toBe(
      'repository,forge,runs,outcome,run_id,link,credits,cost_usd,pull_request,pr_state,checks,review,pr_created,pr_merged,pr_closed',
    )
    expect(rows).toHaveLength(6)
    expect(rows.find((row) => row.startsWith('octo-org/web,'))).toContain(
      ',https://github.com/octo-org/web/pull/12,open,failing,changes_requested,',
    )
    const json = JSON.parse(
      readFileSync(join(workspace, 'campaign-report', 'runs.json'), 'utf8'),
    ) as { repository: string; runRows: unknown[] }[]
    expect(json.find((line) => line.repository === 'octo-org/api')?.runRows).toHaveLength(2)
  })

  it('without github_token, shows each pull request with "state unknown" and reads nothing from GitHub', async () => {
    const api = await fakeApi()
    const github = await fakeGitHub()
    await seedCampaign(api, github)
    seedRun(api, { repository: 'gitlab:platform/billing', daysAgo: 1, pull: 3 })
    const result = await runStep({
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl, campaign: CAMPAIGN, github_token: '' },
      env: { GITHUB_API_URL: github.apiUrl },
    })
    expect(result.code, result.stdout).toBe(0)
    expect(github.requests).toHaveLength(0)
    const { tracking } = JSON.parse(result.outputs.report ?? '') as { tracking: TrackingJson }
    expect(tracking.pullRequests.unknown).toBe(5)
    expect(result.summary).toContain('state unknown (no github&#95;token to read it)')
    expect(result.summary).toContain('state unknown (a merge request is not read)')
    expect(result.summary).toContain(
      '[!3](https://gitlab.example.test/platform/billing/-/merge_requests/3)',
    )
    // Nothing known, nothing to chart.
    expect(result.summary).not.toContain('merged (bars)')
  })

  it('says a pull request GitHub would not show is unknown', async () => {
    const api = await fakeApi()
    const github = await fakeGitHub()
    await seedCampaign(api, github)
    seedRun(api, { repository: 'octo-org/secret', daysAgo: 1, pull: 99 })
    const result = await runStep({
      action: 'report',
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        campaign: CAMPAIGN,
        github_token: DEFAULT_GITHUB_TOKEN,
      },
      env: { GITHUB_API_URL: github.apiUrl },
    })
    expect(result.code, result.stdout).toBe(0)
    const { tracking } = JSON.parse(result.outputs.report ?? '') as { tracking: TrackingJson }
    const secret = tracking.lines.find((line) => line.repository === 'octo-org/secret')
    expect(secret?.status).toEqual({ unknown: 'github_token cannot read it' })
    expect(tracking.pullRequests.unknown).toBe(1)
  })

  it("stops reading at GitHub's rate limit: the pull requests not read are unknown, and why", async () => {
    const api = await fakeApi()
    const github = await fakeGitHub()
    for (let pull = 1; pull <= 20; pull += 1) {
      seedRun(api, { repository: `octo-org/service-${pull}`, daysAgo: 1, pull })
      github.setPullRequest('octo-org', `service-${pull}`, pull, { headSha: `s${pull}` })
    }
    github.failNext('GET', /\/pulls\/\d+$/, 403, {
      message: 'API rate limit exceeded',
      headers: { 'x-ratelimit-remaining': '0' },
      times: 100,
    })
    const result = await runStep({
      action: 'report',
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        campaign: CAMPAIGN,
        github_token: DEFAULT_GITHUB_TOKEN,
      },
      env: { GITHUB_API_URL: github.apiUrl },
    })
    expect(result.code, result.stdout).toBe(0)
    const { tracking } = JSON.parse(result.outputs.report ?? '') as { tracking: TrackingJson }
    expect(tracking.pullRequests.unknown).toBe(20)
    expect(new Set(tracking.lines.map((line) => line.status?.unknown))).toEqual(
      new Set(["GitHub's rate limit was reached"]),
    )
    // Eight reads go out at once; once one meets the limit, no other starts.
    expect(github.requestsTo('GET', /\/pulls\/\d+$/)).toHaveLength(8)
  })
})
