/**
 * The screenshot of a campaign's tracking summary (scripts/screenshots.ts): twelve repositories
 * of one campaign, as the fake API and the fake GitHub hold them two weeks in (pull requests
 * merged, open with failing checks, a draft, one closed, a run that failed), reported by the
 * bundle's report step with `campaign` and a token that reads them.
 */
import { FakeAgentApi, type RunScript } from '../test/fake-api/server.ts'
import { FakeGitHub } from '../test/fake-github/server.ts'
import { DEFAULT_GITHUB_TOKEN, runStep } from '../test/e2e/harness.ts'

const DAY = 24 * 60 * 60_000
const CAMPAIGN = 'lodash-4-17-23'

type Fate = 'merged' | 'open' | 'failing' | 'changes' | 'draft' | 'closed' | 'no-pr' | 'failed'

/** Each repository, the day its run was made (days ago) and where its pull request stands. */
const REPOSITORIES: [string, number, Fate, number?][] = [
  ['api', 13, 'merged', 11],
  ['web', 13, 'merged', 9],
  ['billing', 12, 'merged', 6],
  ['search', 12, 'merged', 4],
  ['gateway', 11, 'merged', 2],
  ['mobile', 11, 'failing'],
  ['docs', 10, 'open'],
  ['admin', 10, 'changes'],
  ['cli', 9, 'draft'],
  ['legacy', 9, 'closed', 5],
  ['infra', 8, 'no-pr'],
  ['worker', 8, 'failed'],
]

const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString().slice(0, 19) + 'Z'

/** The report step's job summary of that campaign. */
export async function captureCampaign(key: string): Promise<string> {
  const api = await FakeAgentApi.start({ apiKey: key })
  const github = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  try {
    for (const [index, [repo, daysAgo, fate, closedDaysAgo]] of REPOSITORIES.entries()) {
      const number = 200 + index
      const opened = fate !== 'no-pr' && fate !== 'failed'
      const artifacts = opened
        ? [
            {
              artifact_type: 'PULL_REQUEST' as const,
              created_at: ago(daysAgo),
              data: {
                url: `https://github.com/octo-org/${repo}/pull/${number}`,
                branch: 'agent/lodash',
              },
            },
          ]
        : []
      const script: RunScript = [
        {
          state: fate === 'failed' ? 'FAILED' : 'SUCCEEDED',
          afterMs: 0,
          patch: {
            artifacts,
            request_usage: {
              inference_cost: 18 + ((index * 7) % 23),
              inference_cost_usd: (18 + ((index * 7) % 23)) * 0.05,
            },
            session_link: `https://app.warp.dev/session/${repo}`,
          },
        },
      ]
      api.seedRun(
        {
          prompt: 'Bump lodash to 4.17.23 and fix what breaks',
          metadata: {
            gh_invocation: `inv-${index}`,
            gh_campaign: CAMPAIGN,
            gh_forge: 'github',
            gh_repository: `octo-org/${repo}`,
            gh_key: `${CAMPAIGN}/octo-org/${repo}`,
          },
        },
        { script, createdAt: Date.now() - daysAgo * DAY },
      )
      if (!opened) continue
      const sha = `${repo}-head`
      github.setPullRequest('octo-org', repo, number, {
        headSha: sha,
        createdAt: ago(daysAgo),
        draft: fate === 'draft',
        ...(fate === 'merged' ? { mergedAt: ago(closedDaysAgo ?? 0) } : {}),
        ...(fate === 'closed' ? { state: 'closed', closedAt: ago(closedDaysAgo ?? 0) } : {}),
      })
      github.addCheckRun('octo-org', repo, {
        name: 'test',
        headSha: sha,
        conclusion: fate === 'failing' ? 'failure' : 'success',
      })
      if (fate === 'draft')
        github.addCheckRun('octo-org', repo, {
          name: 'e2e',
          headSha: sha,
          status: 'in_progress',
          conclusion: null,
        })
      if (fate === 'changes')
        github.addReview('octo-org', repo, number, { login: 'mona', state: 'CHANGES_REQUESTED' })
      if (fate === 'open')
        github.addReview('octo-org', repo, number, { login: 'mona', state: 'APPROVED' })
    }
    const step = await runStep({
      target: 'bundle',
      action: 'report',
      inputs: {
        api_key: key,
        base_url: api.baseUrl,
        campaign: CAMPAIGN,
        period: '14d',
        github_token: DEFAULT_GITHUB_TOKEN,
      },
      env: { GITHUB_SERVER_URL: 'https://github.com', GITHUB_API_URL: github.apiUrl },
    })
    if (step.code !== 0) throw new Error(`report: the step failed:\n${step.stdout}`)
    return step.summary
  } finally {
    await Promise.all([api.close(), github.close()])
  }
}
