/**
 * A campaign's budgets (v1.5: a task's repository is its project for its budgets):
 * `daily_credit_budget` counts each task's repository on its own, whatever door made its runs.
 * A repository over it starts nothing, said why; one under it starts, and its run alone is
 * cancelled past what its repository had left; the others work on.
 */
import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import type { CreateRunRequest } from '../../src/api/types.ts'
import { FakeAgentApi, type RunScript } from '../fake-api/server.ts'
import { runStep } from './harness.ts'

const KEY = 'sk-e2e-campaign-budgets-7c2e'
const servers: FakeAgentApi[] = []

afterAll(async () => {
  await Promise.all(servers.splice(0).map((api) => api.close()))
})

/** A run that has spent `credits` and works on until it is cancelled (or a minute passes). */
const spending = (credits: number): RunScript => [
  { state: 'INPROGRESS', afterMs: 0, patch: { request_usage: { inference_cost: credits } } },
  { state: 'SUCCEEDED', afterMs: 60_000 },
]

/** A run that spends `credits` and succeeds. */
const finishing = (credits: number): RunScript => [
  { state: 'INPROGRESS', afterMs: 0, patch: { request_usage: { inference_cost: credits } } },
  { state: 'SUCCEEDED', afterMs: 200 },
]

const repositoryOf = (request: CreateRunRequest) => request.metadata?.gh_repository

describe('campaign: daily_credit_budget counts each repository', () => {
  it('skips a repository over it, and cancels a run past its repository’s rest; the others work on', async () => {
    const api = await FakeAgentApi.start({
      apiKey: KEY,
      script: (request) => (repositoryOf(request) === 'octo-org/web' ? spending(4) : finishing(4)),
    })
    servers.push(api)
    // Earlier today: octo-org/api spent 12 credits (a laptop's run), octo-org/web 8.
    for (const [repository, credits] of [
      ['octo-org/api', 12],
      ['octo-org/web', 8],
    ] as const) {
      api.seedRun(
        { prompt: 'earlier', metadata: { gh_repository: repository, gh_forge: 'none' } },
        {
          script: [
            {
              state: 'SUCCEEDED',
              afterMs: 0,
              patch: { request_usage: { inference_cost: credits } },
            },
          ],
        },
      )
    }
    const tasks = ['octo-org/api', 'octo-org/web', 'octo-org/docs'].map((repository) => ({
      repository,
      prompt: 'Add the lint check',
    }))
    const result = await runStep({
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        campaign: 'lint',
        tasks: JSON.stringify(tasks),
        daily_credit_budget: '10',
        pass_when: '1',
        timeout: '30s',
        poll_interval: '100ms',
      },
      env: { GITHUB_REPOSITORY: 'octo-org/platform-ops' },
    })

    const created = api.requestsTo('POST', /\/agent\/runs?$/)
    const repositories = created.map((r) => repositoryOf(r.json as CreateRunRequest))
    // octo-org/api has used 12 of its 10: no run; the step's own project counts for nothing here.
    expect(repositories.sort()).toEqual(['octo-org/docs', 'octo-org/web'])
    expect(result.stdout).toContain(
      'lint/octo-org/api: skipped, its daily_credit_budget is reached: the runs this action started for octo-org/api in the last 24 hours',
    )
    expect(result.stdout).toContain(
      'used 12 credits, which has reached the daily_credit_budget of 10 credits',
    )
    // octo-org/web had 2 credits left: its run, at 4, is cancelled; octo-org/docs had 10.
    const byRepository = new Map(
      api
        .allRuns()
        .filter((run) => run.metadata?.gh_campaign === 'lint')
        .map((run) => [run.metadata?.gh_repository, run.state]),
    )
    expect(Object.fromEntries(byRepository)).toEqual({
      'octo-org/web': 'CANCELLED',
      'octo-org/docs': 'SUCCEEDED',
    })
    expect(result.stdout).toMatch(
      /the run used 4 credits, past the 2 credits daily_credit_budget had left when the step started \(of 10 credits\); its run is cancelled/,
    )
    expect(result.code, result.stdout).toBe(0)
  })

  it('refuses pr_credit_budget with campaign before any request', async () => {
    const api = await FakeAgentApi.start({ apiKey: KEY, script: () => finishing(1) })
    servers.push(api)
    const result = await runStep({
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        campaign: 'lint',
        tasks: JSON.stringify([{ repository: 'octo-org/api', prompt: 'Add the lint check' }]),
        pr_credit_budget: '$5',
      },
    })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      'Input "pr_credit_budget" cannot be combined with campaign: a campaign\'s runs are each on their own repository',
    )
    expect(api.requests).toHaveLength(0)
  })
})
