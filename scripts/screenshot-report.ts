/**
 * The screenshot of the `report` action's summary (scripts/screenshots.ts): a week of a
 * repository's runs, as the fake API holds them, reported by the bundle's report step, on an
 * account billed in US dollars (most are): the summary is in dollars, the credits beside them.
 */
import { FakeAgentApi, type RunScript } from '../test/fake-api/server.ts'
import { runStep } from '../test/e2e/harness.ts'

const DAY = 24 * 60 * 60_000
const APP = { gh_forge: 'github', gh_repository: 'octo-org/app' }
/** What a credit was billed at, for the picture. */
const USD_PER_CREDIT = 0.05

/** A week: reviews of five pull requests, CI fixes, nightly updates; some failed, one going. */
const WEEK: { daysAgo: number; credits: number; state: string; tags: Record<string, string> }[] = [
  ...[0, 0, 1, 1, 1, 2, 3, 3, 4, 5, 5, 6].map((daysAgo, i) => ({
    daysAgo,
    credits: 8 + ((i * 7) % 13),
    state: i === 4 ? 'FAILED' : 'SUCCEEDED',
    tags: { gh_workflow: 'Agent review', gh_key: 'agent-review', gh_thread: String(140 + (i % 5)) },
  })),
  ...[1, 2, 4, 6].map((daysAgo, i) => ({
    daysAgo,
    credits: 25 + i * 9,
    state: i === 2 ? 'CANCELLED' : 'SUCCEEDED',
    tags: { gh_workflow: 'Fix CI', gh_key: 'fix-ci', gh_thread: String(141 + i) },
  })),
  ...[0, 1, 2, 3, 4, 5, 6].map((daysAgo) => ({
    daysAgo,
    credits: 14 + daysAgo,
    state: daysAgo === 0 ? 'INPROGRESS' : 'SUCCEEDED',
    tags: { gh_workflow: 'Nightly dependencies', gh_key: 'nightly-deps' },
  })),
]

/** The report step's job summary over that week. */
export async function captureReport(key: string): Promise<string> {
  const api = await FakeAgentApi.start({ apiKey: key })
  try {
    for (const [index, run] of WEEK.entries()) {
      const script: RunScript = [
        {
          state: run.state,
          afterMs: 0,
          patch: {
            request_usage: {
              inference_cost: run.credits,
              inference_cost_usd: run.credits * USD_PER_CREDIT,
            },
          },
        },
      ]
      const metadata = { gh_invocation: `inv-${index}`, ...APP, ...run.tags }
      api.seedRun(
        { prompt: 'p', metadata },
        { script, createdAt: Date.now() - run.daysAgo * DAY - 3_600_000 },
      )
    }
    const step = await runStep({
      target: 'bundle',
      action: 'report',
      inputs: {
        api_key: key,
        base_url: api.baseUrl,
        daily_credit_budget: '$6',
        pr_credit_budget: '60 credits',
      },
      env: { GITHUB_SERVER_URL: 'https://github.com' },
    })
    if (step.code !== 0) throw new Error(`report: the step failed:\n${step.stdout}`)
    return step.summary
  } finally {
    await api.close()
  }
}
