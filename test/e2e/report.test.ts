/**
 * The ledger (contract v1.4, "The ledger: report"): the report action run as the runner runs it,
 * and `cloud-agent-run report`, against the fake API holding runs the action made (its tags)
 * over several days, projects, pull requests, keys and outcomes, beside runs it did not make.
 */
import { mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { checkCreditBudgets } from '../../src/run/budget.ts'
import { AgentRunsClient } from '../../src/api/client.ts'
import { steeringMessage } from '../../src/run/steer.ts'
import type { FakeAgentApi, RunScript } from '../fake-api/server.ts'
import { command } from './command.ts'
import { describeNeedsProcess, runStep } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-report-e2e-77a1'
const { fakeApi } = e2eServers(KEY)
const DAY = 24 * 60 * 60_000

/** A run that ended `state` having used `credits`, made by the action with `tags`. */
function seed(
  api: FakeAgentApi,
  run: { daysAgo: number; credits: number; state?: string; tags?: Record<string, string> },
) {
  const script: RunScript = [
    {
      state: run.state ?? 'SUCCEEDED',
      afterMs: 0,
      patch: { request_usage: { inference_cost: run.credits } },
    },
  ]
  const metadata = run.tags && { gh_invocation: `inv-${Math.random()}`, ...run.tags }
  return api.seedRun(
    { prompt: 'p', ...(metadata ? { metadata } : {}) },
    { script, createdAt: Date.now() - run.daysAgo * DAY - 60_000 },
  )
}

/** What changed between two heads, for a steering message: nothing listed. */
const AHEAD = { kind: 'ahead', commits: [] } as const

const APP = { gh_forge: 'github', gh_repository: 'octo-org/app', gh_workflow: 'Agent review' }

/** A week of octo-org/app's runs, and runs the report must leave out. */
function seedWeek(api: FakeAgentApi): void {
  seed(api, { daysAgo: 0, credits: 40, tags: { ...APP, gh_thread: '7', gh_key: 'review' } })
  seed(api, { daysAgo: 0, credits: 10, tags: { ...APP, gh_thread: '7', gh_key: 'review' } })
  seed(api, {
    daysAgo: 2,
    credits: 25,
    state: 'FAILED',
    tags: { ...APP, gh_thread: '8', gh_key: 'fix-ci', gh_workflow: 'Fix CI' },
  })
  seed(api, { daysAgo: 5, credits: 5, tags: { ...APP, gh_key: 'nightly' } })
  // Left out: another project, a run the action did not make, and a run older than the week.
  seed(api, { daysAgo: 1, credits: 999, tags: { ...APP, gh_repository: 'octo-org/other' } })
  seed(api, { daysAgo: 1, credits: 500 })
  seed(api, { daysAgo: 9, credits: 300, tags: { ...APP, gh_thread: '7', gh_key: 'review' } })
}

interface LedgerJson {
  totals: { runs: number; credits: number; notSucceeded: { runs: number; credits: number } }
  byDay: { day: string; credits: number }[]
  byThread: { thread: number; credits: number }[]
  byKey: { key: string; credits: number }[]
  byOutcome: { name: string; runs: number }[]
  budgets: { daily?: { reached: number } }
}

describe('report: what the runs of a period did and cost', () => {
  it("reports this repository's runs of the week: outputs, a chart, the costliest threads and keys, and the files", async () => {
    const api = await fakeApi()
    seedWeek(api)
    const workspace = mkdtempSync(join(tmpdir(), 'report-ws-'))
    const result = await runStep({
      action: 'report',
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        report_dir: 'agent-report',
        daily_credit_budget: '45',
      },
      env: { GITHUB_WORKSPACE: workspace },
    })

    expect(result.code, result.stdout).toBe(0)
    expect(result.outputs.credits).toBe('80')
    expect(result.outputs.runs).toBe('4')
    const ledger = JSON.parse(result.outputs.report ?? '') as LedgerJson
    expect(ledger.totals.notSucceeded).toEqual({ runs: 1, credits: 25, costUsd: 0 })
    // An account on credit billing: the runs report no dollars, so neither does the report.
    expect(result.outputs.cost_usd).toBe('')
    expect(ledger.byThread.map((one) => [one.thread, one.credits])).toEqual([
      [7, 50],
      [8, 25],
    ])
    expect(ledger.byKey[0]).toMatchObject({ key: 'review', credits: 50 })
    expect(ledger.byDay).toHaveLength(8)
    expect(ledger.budgets.daily?.reached).toBe(1)
    expect(result.summary).toContain('```mermaid\nxychart-beta')
    expect(result.summary).toContain('(https://github.com/octo-org/app/issues/7)')
    expect(result.summary).not.toContain('octo-org/other')
    const csv = readFileSync(join(workspace, 'agent-report', 'runs.csv'), 'utf8')
    expect(csv.split('\r\n')[0]).toBe(
      'run_id,created,ended,project,thread,workflow,key,outcome,credits,link,root_run_id,parent_run_id,title,forge,pull_request,cost_usd',
    )
    expect(csv.trimEnd().split('\r\n')).toHaveLength(5)
    expect(readFileSync(join(workspace, 'agent-report', 'report.md'), 'utf8')).toBe(
      result.summary.trimEnd() + '\n',
    )
  })

  it('counts a run whose agent started runs as one run with their spend, and writes a row per run of the tree', async () => {
    const api = await fakeApi()
    const root = seed(api, {
      daysAgo: 0,
      credits: 10,
      tags: { ...APP, gh_thread: '7', gh_key: 'review' },
    })
    const spent = (credits: number): RunScript => [
      { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: credits } } },
    ]
    const child = api.seedRun(
      { prompt: 'worker', parent_run_id: root.run_id },
      { script: spent(3) },
    )
    const grandchild = api.seedRun(
      { prompt: 'critic', parent_run_id: child.run_id },
      { script: spent(2) },
    )
    const workspace = mkdtempSync(join(tmpdir(), 'report-tree-'))
    const result = await runStep({
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl, report_dir: 'out', pr_credit_budget: '12' },
      env: { GITHUB_WORKSPACE: workspace },
    })

    expect(result.code, result.stdout).toBe(0)
    expect(result.outputs).toMatchObject({ runs: '1', credits: '15' })
    const ledger = JSON.parse(result.outputs.report ?? '') as LedgerJson & {
      totals: { children: number }
      budgets: { pullRequest?: { reached: number } }
    }
    expect(ledger.totals.children).toBe(2)
    expect(ledger.byThread.map((one) => [one.thread, one.credits])).toEqual([[7, 15]])
    expect(ledger.budgets.pullRequest?.reached).toBe(1)
    expect(result.summary).toContain('| **Runs** | 1, with 2 runs their agents started |')
    const csv = readFileSync(join(workspace, 'out', 'runs.csv'), 'utf8')
      .trimEnd()
      .split('\r\n')
    const header = csv[0]?.split(',') ?? []
    const at = header.indexOf('root_run_id')
    expect(header.slice(at, at + 2)).toEqual(['root_run_id', 'parent_run_id'])
    const tree = (id: string) =>
      csv
        .find((line) => line.startsWith(`${id},`))
        ?.split(',')
        .slice(at, at + 2)
    expect(tree(root.run_id)).toEqual([root.run_id, ''])
    expect(tree(child.run_id)).toEqual([root.run_id, root.run_id])
    expect(tree(grandchild.run_id)).toEqual([root.run_id, child.run_id])
  })

  it("adds up spend as the budgets do: the report's day and a budget's used agree", async () => {
    const api = await fakeApi()
    seedWeek(api)
    const result = await runStep({
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl, period: '24h' },
    })
    const lines: string[] = []
    const client = new AgentRunsClient({ baseUrl: api.baseUrl, apiKey: KEY })
    const home = { forge: 'github' as const, project: 'octo-org/app', thread: 7, change: 7 }
    const log = { info: (line: string) => lines.push(line), warning: () => {}, debug: () => {} }
    await checkCreditBudgets(
      client,
      { daily: { value: 1_000, unit: 'credits' }, pullRequest: undefined },
      home,
      {
        now: Date.now,
        log,
      },
    )

    expect(result.outputs.credits).toBe('50')
    expect(lines.join('\n')).toContain('used 50 credits of 1,000 credits')
  })

  it('scope all: every project the key lists, grouped by project; untagged runs still left out', async () => {
    const api = await fakeApi()
    seedWeek(api)
    const result = await runStep({
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl, scope: 'all' },
    })

    expect(result.outputs.credits).toBe('1079')
    expect(result.summary).toContain('#### By project')
    expect(result.summary).toContain('octo-org/other')
  })

  it('says what steering saved: the follow-ups a steered run took, at what a run that was not steered costs', async () => {
    const api = await fakeApi()
    const steered = seed(api, {
      daysAgo: 1,
      credits: 30,
      tags: { ...APP, gh_thread: '7', gh_key: 'review', gh_steer: 'true' },
    })
    for (const credits of [10, 20, 30]) {
      seed(api, { daysAgo: 2, credits, tags: { ...APP, gh_thread: '8', gh_key: 'other' } })
    }
    const client = new AgentRunsClient({ baseUrl: api.baseUrl, apiKey: KEY })
    // Two pushes steered the run; a third message was a person's, not a steer.
    for (const message of [
      steeringMessage('Review', { old: 'a'.repeat(40), now: 'b'.repeat(40) }, AHEAD),
      steeringMessage('Review', { old: 'b'.repeat(40), now: 'c'.repeat(40) }, AHEAD),
      'thanks',
    ]) {
      await client.sendFollowup(steered.run_id, message)
    }
    const result = await runStep({
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl },
    })

    const ledger = JSON.parse(result.outputs.report ?? '') as { steering?: unknown }
    expect(ledger.steering).toEqual({
      runs: 1,
      followups: 2,
      restartCredits: 20,
      savedCredits: 40,
      restartCostUsd: 0,
      savedCostUsd: 0,
      complete: true,
    })
    expect(result.summary).toContain(
      '1 steered run took 2 follow-ups in place of as many new runs: about 40 credits saved',
    )
    expect(api.requestsTo('GET', /\/conversation$/)).toHaveLength(1)
  })

  it('refuses a bad period or scope before any request, naming the input', async () => {
    const api = await fakeApi()
    for (const [inputs, says] of [
      [{ period: '7 days' }, /Input "period" must be a duration/],
      [{ scope: 'everything' }, /Input "scope" must be project or all/],
      [{ report_dir: '../outside' }, /Input "report_dir" must be a folder inside the workspace/],
    ] as const) {
      const result = await runStep({
        action: 'report',
        inputs: { api_key: KEY, base_url: api.baseUrl, ...inputs },
      })
      expect(result.code).toBe(1)
      expect(result.stdout).toMatch(says)
    }
    expect(api.requests).toHaveLength(0)
  })

  it('refuses a report_dir that leads out of the workspace through a link, before any request', async () => {
    const api = await fakeApi()
    const workspace = mkdtempSync(join(tmpdir(), 'report-workspace-'))
    const outside = mkdtempSync(join(tmpdir(), 'report-outside-'))
    symlinkSync(outside, join(workspace, 'reports'))
    const result = await runStep({
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl, report_dir: 'reports/ledger' },
      env: { GITHUB_WORKSPACE: workspace },
    })
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/Input "report_dir" must be a plain folder inside the workspace/)
    expect(api.requests).toHaveLength(0)
    expect(readdirSync(outside)).toEqual([])
  })

  it('lists a page of 500 runs a request', async () => {
    const api = await fakeApi()
    for (let i = 0; i < 1_200; i += 1) {
      seed(api, { daysAgo: i % 7, credits: 1, tags: { ...APP, gh_key: 'nightly' } })
    }
    const result = await runStep({
      action: 'report',
      inputs: { api_key: KEY, base_url: api.baseUrl },
    })

    expect(result.outputs.runs).toBe('1200')
    expect(api.requestsTo('GET', '/agent/runs')).toHaveLength(3)
  })
})

describe('cloud-agent-run report', () => {
  it('reports a GitLab project in a CI job, as JSON with --json', async () => {
    const api = await fakeApi()
    const gitlab = {
      gh_forge: 'gitlab',
      gh_repository: 'group/app',
      gh_workflow: 'cloud-agent-run',
    }
    seed(api, { daysAgo: 0, credits: 12, tags: { ...gitlab, gh_thread: '3', gh_key: 'review' } })
    seed(api, { daysAgo: 0, credits: 99, tags: { ...APP, gh_repository: 'group/app' } })
    const result = await command(['report', '--base-url', api.baseUrl, '--json'], {
      WARP_API_KEY: KEY,
      GITLAB_CI: 'true',
      CI_PROJECT_PATH: 'group/app',
      CI_SERVER_URL: 'https://gitlab.example.test',
    }).done

    expect(result.code, result.stderr).toBe(0)
    const answer = JSON.parse(result.stdout) as {
      credits: number
      runs: number
      report: LedgerJson
    }
    expect(answer).toMatchObject({ credits: 12, runs: 1, exit_code: 0 })
    expect(answer.report.byThread[0]).toMatchObject({ thread: 3, credits: 12 })
    expect(result.stderr).toContain('1 run in the last 7 days used 12 credits.')
  })

  it('refuses a bad --period before any request (exit 2)', async () => {
    const api = await fakeApi()
    const result = await command(
      ['report', '--base-url', api.baseUrl, '--period', '7 days', '--json'],
      {
        WARP_API_KEY: KEY,
        GITLAB_CI: 'true',
        CI_PROJECT_PATH: 'group/app',
      },
    ).done

    expect(result.code).toBe(2)
    expect(JSON.parse(result.stdout)).toMatchObject({ exit_code: 2 })
    expect(result.stderr).toContain('--period must be a duration')
    expect(api.requests).toHaveLength(0)
  })
})

// A signal is a process's own.
describeNeedsProcess('cloud-agent-run report, stopped by a signal (a process)', () => {
  it('exits 143 with one JSON object while the service has not answered the list', async () => {
    const api = await fakeApi({}, { method: 'GET', path: '/agent/runs', fault: { kind: 'hang' } })
    const reading = command(
      ['report', '--base-url', api.baseUrl, '--project', 'acme/tools', '--json'],
      {
        WARP_API_KEY: KEY,
      },
    )
    await api.waitForRequest('GET', '/agent/runs')
    reading.kill('SIGTERM')
    const result = await reading.done

    expect(result.code, result.stderr).toBe(143)
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'interrupted', exit_code: 143 })
  })
})
