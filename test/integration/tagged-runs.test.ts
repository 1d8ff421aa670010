/**
 * Listing the action's runs by their metadata (a reconcile pass, the credit
 * budgets) against the fake API over loopback: one request a page, and the
 * plans whose service cannot filter by metadata.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { AgentRunsClient } from '../../src/api/client.ts'
import type { Log } from '../../src/log.ts'
import { checkCreditBudgets } from '../../src/run/budget.ts'
import { listTaggedRuns } from '../../src/run/listing.ts'
import { FakeAgentApi, type FakeApiOptions } from '../fake-api/server.ts'

const KEY = 'sk-tagged-runs-1234'
const closers: FakeAgentApi[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((api) => api.close()))
})

async function start(options: FakeApiOptions = {}) {
  const api = await FakeAgentApi.start({ apiKey: KEY, ...options })
  closers.push(api)
  const client = new AgentRunsClient({ baseUrl: api.baseUrl, apiKey: KEY, maxRetries: 0 })
  return { api, client }
}

/** Seeds `count` ended runs tagged with `metadata`, each having used `credits`. */
function seed(api: FakeAgentApi, count: number, metadata: Record<string, string>, credits = 1) {
  for (let i = 0; i < count; i += 1) {
    api.seedRun(
      { prompt: `run ${i}`, metadata },
      {
        script: [
          { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { compute_cost: credits } } },
        ],
      },
    )
  }
}

/** The home of a step on octo-org/app, about pull request `change` when given. */
function home(change: number | undefined) {
  return { forge: 'github' as const, project: 'octo-org/app', thread: change, change }
}

function recorder(): Log & { lines: string[] } {
  const lines: string[] = []
  const push = (line: string) => void lines.push(line)
  return { lines, info: push, warning: push, debug: () => undefined }
}

const OURS = { gh_repository: 'octo-org/app' }
const THEIRS = { gh_repository: 'octo-org/other' }

describe('listTaggedRuns', () => {
  it('asks the service to filter, one request a page however many runs', async () => {
    const { api, client } = await start()
    seed(api, 230, OURS)
    seed(api, 40, THEIRS)

    const listed = await listTaggedRuns(client, OURS, {}, { maxPages: 50 })

    expect(listed.filteredHere).toBe(false)
    expect(listed.runs).toHaveLength(230)
    const lists = api.requestsTo('GET', '/api/v1/agent/runs')
    expect(lists).toHaveLength(3)
    expect(lists[0]?.query.get('metadata[gh_repository]')).toBe('octo-org/app')
    expect(api.requests).toHaveLength(3)
  })

  it('where the plan cannot filter by metadata, lists by time and filters here', async () => {
    const { api, client } = await start({ metadataFilter: false })
    seed(api, 30, OURS)
    seed(api, 30, THEIRS)
    api.seedRun({ prompt: 'untagged' })

    const listed = await listTaggedRuns(client, OURS, {}, { maxPages: 50 })

    expect(listed.filteredHere).toBe(true)
    expect(listed.runs).toHaveLength(30)
    const lists = api.requestsTo('GET', '/api/v1/agent/runs')
    expect(lists.map((r) => r.response?.status)).toEqual([403, 200])
    expect(lists[1]?.query.has('metadata[gh_repository]')).toBe(false)
  })
})

describe('checkCreditBudgets', () => {
  const now = () => Date.now()

  it('sends nothing when no budget is set', async () => {
    const { api, client } = await start()
    const reached = await checkCreditBudgets(
      client,
      { daily: undefined, pullRequest: undefined },
      home(3),
      { now, log: recorder() },
    )
    expect(reached).toEqual({ caps: [] })
    expect(api.requests).toHaveLength(0)
  })

  it("sums this repository's runs of the day, and stops once the sum reaches the budget", async () => {
    const { api, client } = await start()
    seed(api, 4, OURS, 25)
    seed(api, 4, THEIRS, 1_000)
    const log = recorder()
    const scope = home(undefined)

    const under = await checkCreditBudgets(
      client,
      { daily: { value: 101, unit: 'credits' }, pullRequest: undefined },
      scope,
      {
        now,
        log,
      },
    )
    const reached = await checkCreditBudgets(
      client,
      { daily: { value: 100, unit: 'credits' }, pullRequest: undefined },
      scope,
      {
        now,
        log,
      },
    )

    // Under the budget, what it has left caps the step's runs: 1 credit.
    expect(under).toEqual({
      caps: [
        {
          amount: { value: 1, unit: 'credits' },
          input: 'daily_credit_budget',
          limit: { value: 101, unit: 'credits' },
        },
      ],
    })
    expect(log.lines[0]).toMatch(/used 100 credits of 101 credits\.$/)
    expect(reached.reached?.input).toBe('daily_credit_budget')
    expect(reached.reached?.message).toMatch(
      /in the last 24 hours \(since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\) used 100 credits, which has reached the daily_credit_budget of 100 credits\. No run was created\.$/,
    )
    const query = api.requestsTo('GET', '/api/v1/agent/runs')[0]?.query
    expect(query?.get('created_after')).toMatch(/^\d{4}-/)
  })

  it("sums this pull request's runs, by the same tags, even where the plan cannot filter", async () => {
    const { api, client } = await start({ metadataFilter: false })
    seed(api, 3, { ...OURS, gh_thread: '7' }, 40)
    seed(api, 3, { ...OURS, gh_thread: '8' }, 40)
    const log = recorder()

    const reached = await checkCreditBudgets(
      client,
      { daily: undefined, pullRequest: { value: 120, unit: 'credits' } },
      home(7),
      { now, log },
    )

    expect(reached.reached?.input).toBe('pr_credit_budget')
    expect(reached.reached?.message).toContain('pull request #7 of octo-org/app')
    expect(reached.reached?.message).toContain('used 120 credits')
    expect(log.lines.join('\n')).toContain('cannot filter runs by metadata')
  })

  it("counts a dollar budget in the runs' billed dollars, and caps the step in dollars", async () => {
    const { api, client } = await start()
    for (const usd of [1.5, 2]) {
      const usage = { compute_cost: usd * 100, compute_cost_usd: usd }
      api.seedRun(
        { prompt: 'billed', metadata: OURS },
        { script: [{ state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: usage } }] },
      )
    }
    const log = recorder()
    const daily = { value: 5, unit: 'usd' } as const
    const check = await checkCreditBudgets(client, { daily, pullRequest: undefined }, home(3), {
      now,
      log,
    })
    expect(check.caps).toEqual([
      { amount: { value: 1.5, unit: 'usd' }, input: 'daily_credit_budget', limit: daily },
    ])
    expect(log.lines[0]).toMatch(/used \$3\.50 of \$5\.00\.$/)
  })

  it('refuses, before any create, a dollar budget that meets a run reporting only credits', async () => {
    const { api, client } = await start()
    seed(api, 1, { ...OURS, gh_thread: '7' }, 25)
    const check = checkCreditBudgets(
      client,
      { daily: undefined, pullRequest: { value: 5, unit: 'usd' } },
      home(7),
      { now, log: recorder() },
    )
    await expect(check).rejects.toThrow(
      /^pr_credit_budget is in US dollars \(\$5\), and run run_[\w-]+ reports what it spent only in credits \(25 credits\): this account is billed in credits, and the run cannot be counted as free\. Write pr_credit_budget in credits, such as 500 or 500 credits\. No run was created\.$/,
    )
    expect(api.requestsTo('POST', '/api/v1/agent/runs')).toHaveLength(0)
  })

  it('looks at the latest runs, in one request, when only max_credits is in dollars', async () => {
    const { api, client } = await start()
    seed(api, 3, OURS, 10)
    const limits = {
      daily: undefined,
      pullRequest: undefined,
      maxCredits: { value: 2, unit: 'usd' },
    } as const
    await expect(
      checkCreditBudgets(client, limits, home(3), { now, log: recorder() }),
    ).rejects.toThrow(
      /^max_credits is in US dollars \(\$2\), and run run_[\w-]+ reports what it spent only in credits \(10 credits\)/,
    )
    expect(api.requestsTo('GET', '/api/v1/agent/runs')).toHaveLength(1)
    // In credits, nothing is looked at.
    const inCredits = { ...limits, maxCredits: { value: 2, unit: 'credits' } } as const
    expect(await checkCreditBudgets(client, inCredits, home(3), { now, log: recorder() })).toEqual({
      caps: [],
    })
    expect(api.requestsTo('GET', '/api/v1/agent/runs')).toHaveLength(1)
  })

  it('does not apply the pull request budget outside a pull request', async () => {
    const { api, client } = await start()
    const log = recorder()
    const reached = await checkCreditBudgets(
      client,
      { daily: undefined, pullRequest: { value: 1, unit: 'credits' } },
      home(undefined),
      { now, log },
    )
    expect(reached).toEqual({ caps: [] })
    expect(api.requests).toHaveLength(0)
    expect(log.lines).toEqual([
      'pr_credit_budget: this step is about no pull or merge request; it does not apply.',
    ])
  })

  describe('a day of more runs than the check reads (20 pages of 100)', () => {
    /** 2,000 runs of the day that used `each`, and before them one that used `credits`. */
    async function busyDay(credits: number, each = 0) {
      const { api, client } = await start()
      api.seedRun(
        { prompt: 'the expensive one', metadata: OURS },
        {
          createdAt: Date.now() - 60 * 60_000,
          script: [
            {
              state: 'SUCCEEDED',
              afterMs: 0,
              patch: { request_usage: { inference_cost: credits } },
            },
          ],
        },
      )
      seed(api, 2_000, OURS, each)
      return { api, client }
    }
    const scope = home(undefined)

    it('refuses, saying why, rather than count the first pages as the whole day', async () => {
      const { api, client } = await busyDay(500)
      const log = recorder()

      const check = checkCreditBudgets(
        client,
        { daily: { value: 100, unit: 'credits' }, pullRequest: undefined },
        scope,
        {
          now,
          log,
        },
      )

      await expect(check).rejects.toThrow(
        /^daily_credit_budget cannot be checked: the list of the runs this action started for octo-org\/app in the last 24 hours \(since [^)]+\) is longer than the 20 pages the check reads, and the 2,000 runs on them used 0 credits, under the budget of 100 credits; the rest cannot be added up, so the check refuses rather than under-count\. No run was created\.$/,
      )
      expect(log.lines.join('\n')).toContain('used at least 0 credits of 100 credits.')
      expect(api.requestsTo('GET', '/api/v1/agent/runs')).toHaveLength(20)
    })

    it('still reports the budget reached when the pages it read already reach it', async () => {
      const { client } = await busyDay(500, 1)

      const reached = await checkCreditBudgets(
        client,
        { daily: { value: 1_500, unit: 'credits' }, pullRequest: undefined },
        scope,
        { now, log: recorder() },
      )

      expect(reached.reached?.message).toMatch(
        /used at least 2,000 credits, which has reached the daily_credit_budget/,
      )
    })
  })
})
