/**
 * One number per project (v1.5, issue 48): a run belongs to a step's project when its path is
 * the same and its forge is the same, or either names none. The command with a bare `--project`
 * tags its runs with no forge, so a budget on GitHub counts them, and the report through every
 * door (the action, `scope: all`, `cloud-agent-run report --project`) gives one total; two
 * forges' projects of one path stay apart when both are named.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { AgentRunsClient } from '../../src/api/client.ts'
import type { FakeAgentApi, RunScript } from '../fake-api/server.ts'
import { command } from './command.ts'
import { runStep } from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'

const KEY = 'sk-one-project-e2e'
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY)

/** A run that ends at once having used `credits`. */
const costing = (credits: number): RunScript => [
  { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: credits } } },
]

/** The command outside any CI, as a person runs it on a laptop. */
function onLaptop(api: FakeAgentApi, args: string[]) {
  return command([...args, '--base-url', api.baseUrl, '--json'], { WARP_API_KEY: KEY }).done
}

/** A week's report of octo-org/app through the action (the harness's repository). */
async function actionReport(api: FakeAgentApi, scope = 'project') {
  const result = await runStep({
    action: 'report',
    inputs: { api_key: KEY, base_url: api.baseUrl, scope },
  })
  expect(result.code, result.stdout).toBe(0)
  return result
}

describe('one number per project, whichever door made the runs', () => {
  it("a laptop's bare --project runs count toward the action's budget and report, and scope: all agrees", async () => {
    let credits = [35, 1.2, 0.96]
    const api = await fakeApi({ script: () => costing(credits.shift() ?? 0) })
    const laptop = await onLaptop(api, [
      '--project',
      'octo-org/app',
      '--prompt',
      'Upgrade the parser',
    ])
    expect(laptop.code, laptop.stderr).toBe(0)
    const [made] = api.requestsTo('POST', /\/agent\/runs?$/)
    const tags = (made?.json as { metadata?: Record<string, string> }).metadata
    expect(tags).toMatchObject({ gh_forge: 'none', gh_repository: 'octo-org/app' })
    for (const prompt of ['Review', 'Review again']) {
      const step = await runStep({ inputs: inputsFor(api, { prompt }) })
      expect(step.outputs.outcome).toBe('succeeded')
    }

    // The action's daily budget for octo-org/app counts the laptop's 35 credits.
    const budgeted = await runStep({
      inputs: inputsFor(api, { prompt: 'One more', daily_credit_budget: '30' }),
    })
    expect(budgeted.outputs.outcome, budgeted.stdout).toBe('over_budget')
    expect(budgeted.stdout).toContain('used 37.16 credits')

    // Three doors, one total.
    const action = await actionReport(api)
    expect([action.outputs.runs, action.outputs.credits]).toEqual(['3', '37.16'])
    const all = await actionReport(api, 'all')
    const byProject = (JSON.parse(all.outputs.report ?? '{}') as { byProject: unknown[] }).byProject
    expect(byProject).toEqual([expect.objectContaining({ name: 'octo-org/app', runs: 3 })])
    const report = await onLaptop(api, ['report', '--project', 'octo-org/app'])
    expect(report.code, report.stderr).toBe(0)
    expect(JSON.parse(report.stdout)).toMatchObject({ runs: 3, credits: 37.16 })
    credits = []
  })

  it('--project github:owner/repo tags the run as GitHub’s; gitlab: of the same path stays apart', async () => {
    const api = await fakeApi({ script: () => costing(50) })
    const github = await onLaptop(api, ['--project', 'github:octo-org/app', '--prompt', 'Fix'])
    const gitlab = await onLaptop(api, ['--project', 'gitlab:octo-org/app', '--prompt', 'Fix'])
    expect([github.code, gitlab.code]).toEqual([0, 0])
    const forges = api
      .requestsTo('POST', /\/agent\/runs?$/)
      .map((r) => (r.json as { metadata?: Record<string, string> }).metadata?.gh_forge)
    expect(forges).toEqual(['github', 'gitlab'])

    const step = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', daily_credit_budget: '60' }),
    })
    // Only GitHub's 50 credits count: the step starts, and then its own run is counted.
    expect(step.outputs.outcome, step.stdout).toBe('succeeded')
    expect(step.stdout).toContain('used 50 credits of 60 credits')
    const report = await onLaptop(api, ['report', '--project', 'gitlab:octo-org/app'])
    expect(JSON.parse(report.stdout)).toMatchObject({ runs: 1, credits: 50 })
    const bare = await onLaptop(api, ['report', '--project', 'octo-org/app'])
    expect(JSON.parse(bare.stdout)).toMatchObject({ runs: 3, credits: 150 })
    const all = await actionReport(api, 'all')
    const names = (
      JSON.parse(all.outputs.report ?? '{}') as { byProject: { name: string }[] }
    ).byProject.map((group) => group.name)
    expect(names.sort()).toEqual(['github:octo-org/app', 'gitlab:octo-org/app'])
  })

  it('refuses a --project that is not a path, naming the flag, before any request', async () => {
    const api = await fakeApi()
    const result = await onLaptop(api, ['--project', 'bitbucket:o/r', '--prompt', 'x'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--project names a project as a path')
    expect(api.requests).toHaveLength(0)
  })
})

describe('a budget caps the runs it admits', () => {
  it('a run admitted with 10 credits of its pull request’s budget left is stopped over_budget once it passes them', async () => {
    const spend: RunScript[] = [
      costing(90),
      [
        { state: 'INPROGRESS', afterMs: 0, patch: { request_usage: { inference_cost: 4 } } },
        { state: 'INPROGRESS', afterMs: 300, patch: { request_usage: { inference_cost: 25 } } },
        { state: 'SUCCEEDED', afterMs: 60_000, patch: { request_usage: { inference_cost: 60 } } },
      ],
    ]
    const api = await fakeApi({ script: () => spend.shift() ?? costing(0) })
    const gh = await fakeGitHub()
    const event = eventEnv(gh, 'pull_request', { action: 'opened', pull_request: { number: 7 } })
    const first = await runStep({ inputs: inputsFor(api, { prompt: 'Review' }), env: event })
    expect(first.outputs.outcome).toBe('succeeded')

    const second = await runStep({
      inputs: inputsFor(api, { prompt: 'Review again', pr_credit_budget: '100' }),
      env: event,
    })
    expect(second.outputs.outcome, second.stdout).toBe('over_budget')
    expect(second.stdout).toContain(
      'more than the 10 credits pr_credit_budget had left when the step started (of 100 credits)',
    )
    const [, capped] = api.requestsTo('POST', /\/agent\/runs?$/)
    expect(capped).toBeDefined()
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(1)
    // Overrun by what one poll let the run spend, never by the whole run (60 credits).
    expect(second.outputs.credits).toBe('25')
  })
})

describe("the step's ending, not only the service's state", () => {
  it('the report tells a timeout and an overrun from a cancel, by the limits each run carries', async () => {
    const long: RunScript = [
      { state: 'INPROGRESS', afterMs: 0, patch: { request_usage: { inference_cost: 2 } } },
      { state: 'INPROGRESS', afterMs: 200, patch: { request_usage: { inference_cost: 9 } } },
      { state: 'SUCCEEDED', afterMs: 60_000 },
    ]
    const api = await fakeApi({ script: () => long })
    const timedOut = await runStep({ inputs: inputsFor(api, { prompt: 'a', timeout: '1s' }) })
    expect(timedOut.outputs.outcome).toBe('timed_out')
    const capped = await runStep({ inputs: inputsFor(api, { prompt: 'b', max_credits: '5' }) })
    expect(capped.outputs.outcome).toBe('over_budget')
    const detached = await runStep({ inputs: inputsFor(api, { prompt: 'c', wait: 'false' }) })
    // A person cancels it in the web app.
    await new AgentRunsClient({ baseUrl: api.baseUrl, apiKey: KEY }).cancelRun(
      detached.outputs.run_id ?? '',
    )
    const tags = api
      .requestsTo('POST', /\/agent\/runs?$/)
      .map((r) => (r.json as { metadata?: Record<string, string> }).metadata?.gh_limits)
    expect(tags[0]).toMatch(/^deadline=\d{4}-[^;]+Z$/)
    expect(tags[1]).toMatch(/^deadline=[^;]+;cap=5$/)
    expect(tags[2]).toBeUndefined()

    const report = await actionReport(api)
    const outcomes = (
      JSON.parse(report.outputs.report ?? '{}') as { byOutcome: { name: string; runs: number }[] }
    ).byOutcome.map((one) => one.name)
    expect(outcomes.sort()).toEqual(['cancelled', 'over_budget', 'timed_out'])
  })
})

describe("the report checks each run's tags itself", () => {
  it("with a service that ignores the metadata filter, scope: project never shows another project's runs", async () => {
    const api = await fakeApi({ metadataFilter: 'ignored', script: () => costing(7) })
    await onLaptop(api, ['--project', 'octo-org/other', '--prompt', 'Secret plans'])
    await onLaptop(api, ['--project', 'octo-org/app', '--prompt', 'Fix'])
    const report = await actionReport(api)
    expect([report.outputs.runs, report.outputs.credits]).toEqual(['1', '7'])
    expect(report.summary).not.toContain('octo-org/other')
  })
})

describe('dollars: budgets in the unit the account is billed in', () => {
  /** A run that works, spending, until the step stops it; its usage in both units. */
  const spending = (usd: number): RunScript => [
    {
      state: 'INPROGRESS',
      afterMs: 0,
      patch: { request_usage: { inference_cost: usd * 100, inference_cost_usd: usd } },
    },
    { state: 'SUCCEEDED', afterMs: 60_000 },
  ]

  it('max_credits: $N stops a run past its dollars; the report shows dollars and over_budget', async () => {
    const api = await fakeApi({ script: () => spending(0.42) })
    const capped = await runStep({
      inputs: inputsFor(api, { prompt: 'Fix the parser', max_credits: '$0.25', timeout: '30s' }),
    })
    expect(capped.outputs.outcome, capped.stdout).toBe('over_budget')
    expect(capped.outputs.cost_usd).toBe('0.42')
    expect(capped.stdout).toContain('The run used $0.42, more than the max_credits cap of $0.25')
    const [made] = api.requestsTo('POST', /\/agent\/runs?$/)
    const tags = (made?.json as { metadata?: Record<string, string> }).metadata
    expect(tags?.gh_limits).toMatch(/;cap_usd=0\.25$/)

    const report = await actionReport(api)
    expect([report.outputs.credits, report.outputs.cost_usd]).toEqual(['42', '0.42'])
    const ledger = JSON.parse(report.outputs.report ?? '{}') as {
      unit: string
      byOutcome: { name: string }[]
    }
    expect(ledger.unit).toBe('usd')
    expect(ledger.byOutcome.map((one) => one.name)).toEqual(['over_budget'])
    expect(report.summary).toContain('### 💳 Agent runs: $0.42 in the last 7 days')
  })

  it('a dollar budget on an account billed in credits fails before any create, naming the unit', async () => {
    const api = await fakeApi({ script: () => costing(30) })
    const first = await runStep({ inputs: inputsFor(api, { prompt: 'Review' }) })
    expect(first.outputs.outcome).toBe('succeeded')

    const budgeted = await runStep({
      inputs: inputsFor(api, { prompt: 'Review again', daily_credit_budget: '$5' }),
    })
    expect(budgeted.code).toBe(1)
    expect(budgeted.stdout).toContain('daily_credit_budget is in US dollars ($5), and run ')
    expect(budgeted.stdout).toContain(
      'reports what it spent only in credits (30 credits): this account is billed in credits, and the run cannot be counted as free. Write daily_credit_budget in credits, such as 500 or 500 credits. No run was created.',
    )
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(1)
    // In credits, the same budget counts the run.
    const inCredits = await runStep({
      inputs: inputsFor(api, { prompt: 'Review again', daily_credit_budget: '25 credits' }),
    })
    expect(inCredits.outputs.outcome).toBe('over_budget')
    expect(inCredits.stdout).toContain('reached the daily_credit_budget of 25 credits')
  })

  it('a dollar max_credits stops a first run that reports only credits: never counted as free', async () => {
    const credits: RunScript = [
      { state: 'INPROGRESS', afterMs: 0, patch: { request_usage: { inference_cost: 3 } } },
      { state: 'SUCCEEDED', afterMs: 60_000 },
    ]
    const api = await fakeApi({ script: () => credits })
    const capped = await runStep({
      inputs: inputsFor(api, { prompt: 'Fix', max_credits: '$5', timeout: '30s' }),
    })
    expect(capped.outputs.outcome, capped.stdout).toBe('over_budget')
    expect(capped.stdout).toContain(
      'The run used 3 credits and no figure in US dollars, more than the max_credits cap of $5.00',
    )
    // The next step knows before it creates anything.
    const next = await runStep({ inputs: inputsFor(api, { prompt: 'Fix', max_credits: '$5' }) })
    expect(next.code).toBe(1)
    expect(next.stdout).toContain('max_credits is in US dollars ($5)')
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(1)
  })
})
