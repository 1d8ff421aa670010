/**
 * `cloud-agent-run campaign status|cancel|close NAME` (v1.5, "Campaigns", 3 and 4): a
 * campaign's tracking, stop and close from any CI, each saying what it did, `--json` as data.
 */
import { describe, expect, it } from 'vitest'
import type { FakeAgentApi, RunScript } from '../fake-api/server.ts'
import { command } from './command.ts'
import { DEFAULT_GITHUB_TOKEN } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-e2e-campaign-cmd-83d1'
const { fakeApi, fakeGitHub } = e2eServers(KEY)
const CAMPAIGN = 'add-lint'

/** A campaign run of octo-org/`repo`, ended `state` (or still working), having opened `pull`. */
function seedRun(api: FakeAgentApi, repo: string, state: string, pull?: number) {
  const artifacts =
    pull === undefined
      ? []
      : [
          {
            artifact_type: 'PULL_REQUEST' as const,
            created_at: new Date().toISOString(),
            data: { url: `https://github.com/octo-org/${repo}/pull/${pull}`, branch: 'agent/lint' },
          },
        ]
  const script: RunScript = [
    { state, afterMs: 0, patch: { artifacts, request_usage: { inference_cost: 7 } } },
  ]
  return api.seedRun(
    {
      prompt: 'Add the lint check',
      metadata: {
        gh_invocation: `inv-${repo}`,
        gh_campaign: CAMPAIGN,
        gh_forge: 'github',
        gh_repository: `octo-org/${repo}`,
        gh_key: `${CAMPAIGN}/octo-org/${repo}`,
      },
    },
    { script, createdAt: Date.now() - 3_600_000 },
  )
}

describe('cloud-agent-run campaign', () => {
  it('status: the campaign by repository, with its pull requests read with GITHUB_TOKEN, as JSON', async () => {
    const api = await fakeApi()
    const github = await fakeGitHub()
    seedRun(api, 'api', 'SUCCEEDED', 3)
    seedRun(api, 'web', 'FAILED')
    github.setPullRequest('octo-org', 'api', 3, { headSha: 'h3' })
    const result = await command(
      ['campaign', 'status', CAMPAIGN, '--json', '--base-url', api.baseUrl],
      {
        WARP_API_KEY: KEY,
        GITHUB_TOKEN: DEFAULT_GITHUB_TOKEN,
        GITHUB_API_URL: github.apiUrl,
      },
    ).done
    expect(result.code, result.stderr).toBe(0)
    const answer = JSON.parse(result.stdout) as {
      report: {
        tracking: { repositories: number; lines: { repository: string; status?: unknown }[] }
      }
    }
    expect(answer.report.tracking.repositories).toBe(2)
    expect(answer.report.tracking.lines[0]).toMatchObject({
      repository: 'octo-org/api',
      status: { state: 'open', checks: 'none', review: 'none' },
    })
    // The token is read from the environment and never printed.
    expect(result.stdout + result.stderr).not.toContain(DEFAULT_GITHUB_TOKEN)
  })

  it('cancel: every working run of the campaign, and no other, listed in the JSON', async () => {
    const api = await fakeApi()
    const working = seedRun(api, 'api', 'INPROGRESS')
    seedRun(api, 'web', 'SUCCEEDED')
    const other = api.seedRun(
      { prompt: 'p', metadata: { gh_invocation: 'x', gh_campaign: 'another' } },
      { script: [{ state: 'INPROGRESS', afterMs: 0 }] },
    )
    const result = await command(
      ['campaign', 'cancel', CAMPAIGN, '--json', '--base-url', api.baseUrl],
      {
        WARP_API_KEY: KEY,
      },
    ).done
    expect(result.code, result.stderr).toBe(0)
    expect((JSON.parse(result.stdout) as { cancelled: string[] }).cancelled).toEqual([
      working.run_id,
    ])
    expect(api.allRuns().find((run) => run.run_id === other.run_id)?.state).toBe('INPROGRESS')
  })

  it('close: comments on and closes each open pull request, leaves merged ones, and says which', async () => {
    const api = await fakeApi()
    const github = await fakeGitHub()
    seedRun(api, 'api', 'SUCCEEDED', 3)
    seedRun(api, 'web', 'SUCCEEDED', 4)
    seedRun(api, 'cli', 'SUCCEEDED', 5)
    github.setPullRequest('octo-org', 'api', 3, { headSha: 'h3' })
    github.setPullRequest('octo-org', 'web', 4, { headSha: 'h4', draft: true })
    github.setPullRequest('octo-org', 'cli', 5, { headSha: 'h5', mergedAt: github.nowIso() })
    const result = await command(
      [
        'campaign',
        'close',
        CAMPAIGN,
        '--comment',
        'Superseded by the org-wide config.',
        '--json',
        '--base-url',
        api.baseUrl,
      ],
      {
        WARP_API_KEY: KEY,
        GITHUB_TOKEN: DEFAULT_GITHUB_TOKEN,
        GITHUB_API_URL: github.apiUrl,
      },
    ).done
    expect(result.code, result.stderr).toBe(0)
    const answer = JSON.parse(result.stdout) as {
      closed: string[]
      left: { pull_request: string; why: string }[]
    }
    expect(answer.closed.sort()).toEqual([
      'https://github.com/octo-org/api/pull/3',
      'https://github.com/octo-org/web/pull/4',
    ])
    expect(answer.left).toEqual([
      { pull_request: 'https://github.com/octo-org/cli/pull/5', why: 'already merged' },
    ])
    expect(github.pullRequest('octo-org', 'api', 3)?.state).toBe('closed')
    expect(github.pullRequest('octo-org', 'cli', 5)?.state).toBe('closed')
    expect(github.comments('octo-org', 'web', 4).map((c) => c.body)).toEqual([
      'Superseded by the org-wide config.',
    ])
    expect(github.comments('octo-org', 'cli', 5)).toEqual([])

    // Again: nothing is open, nothing is written twice.
    const again = await command(
      [
        'campaign',
        'close',
        CAMPAIGN,
        '--comment',
        'Superseded by the org-wide config.',
        '--base-url',
        api.baseUrl,
      ],
      {
        WARP_API_KEY: KEY,
        GITHUB_TOKEN: DEFAULT_GITHUB_TOKEN,
        GITHUB_API_URL: github.apiUrl,
      },
    ).done
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain(
      '- left octo-org/api#3 (https://github.com/octo-org/api/pull/3): already closed',
    )
    expect(github.comments('octo-org', 'api', 3)).toHaveLength(1)
  })

  it('close: a pull request GitHub refuses to close fails the command (1), saying which', async () => {
    const api = await fakeApi()
    const github = await fakeGitHub()
    seedRun(api, 'api', 'SUCCEEDED', 3)
    github.setPullRequest('octo-org', 'api', 3, { headSha: 'h3' })
    github.failNext('PATCH', /\/pulls\/3$/, 403, {
      message: 'Resource not accessible by integration',
    })
    const result = await command(
      ['campaign', 'close', CAMPAIGN, '--comment', 'Closing.', '--json', '--base-url', api.baseUrl],
      {
        WARP_API_KEY: KEY,
        GITHUB_TOKEN: DEFAULT_GITHUB_TOKEN,
        GITHUB_API_URL: github.apiUrl,
      },
    ).done
    expect(result.code).toBe(1)
    const answer = JSON.parse(result.stdout) as { left: { why: string }[]; error: string }
    expect(answer.left[0]?.why).toContain('commented, but the close failed')
    expect(answer.error).toContain('https://github.com/octo-org/api/pull/3')
  })

  it('refuses before any request: no verb, no name, close without --comment or GITHUB_TOKEN, a token as a flag', async () => {
    const api = await fakeApi()
    const env = { WARP_API_KEY: KEY }
    const cases: [string[], Record<string, string>, string][] = [
      [['campaign', 'stop', 'x'], env, 'campaign takes status, cancel or close; got "stop"'],
      [['campaign', 'status'], env, "campaign status needs the campaign's name"],
      [['campaign', 'close', 'x', '--comment', 'c'], env, 'GITHUB_TOKEN is not set'],
      [
        ['campaign', 'status', 'x', '--github-token', 'ghp_secret'],
        env,
        'reads the GitHub token from GITHUB_TOKEN',
      ],
      [
        ['campaign', 'close', 'x'],
        { ...env, GITHUB_TOKEN: DEFAULT_GITHUB_TOKEN },
        'comment is the comment each pull request is closed with',
      ],
      [['campaign', 'status', 'bad name!'], env, 'campaign must be a name'],
    ]
    for (const [args, environment, said] of cases) {
      const result = await command([...args, '--base-url', api.baseUrl], environment).done
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toContain(said)
      expect(result.stderr).not.toContain('ghp_secret')
    }
    expect(api.requests).toHaveLength(0)
  })

  it('--help lists the three verbs, and the command’s --help lists campaign', async () => {
    const help = await command(['campaign', '--help']).done
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('status NAME')
    expect(help.stdout).toContain('cancel NAME')
    expect(help.stdout).toContain('close NAME --comment TEXT')
    const main = await command(['--help']).done
    expect(main.stdout).toContain('campaign status|cancel|close NAME')
  })
})
