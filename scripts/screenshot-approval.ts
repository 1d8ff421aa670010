/**
 * The screenshots of `approval` (scripts/screenshots.ts): a fork's pull request waits for a
 * maintainer's approval of its head (the comment, the job summary, the check run), then a
 * maintainer's `/approve <sha>` starts the run (the same comment once approved, with the run).
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FakeAgentApi, type RunScript } from '../test/fake-api/server.ts'
import { FakeGitHub } from '../test/fake-github/server.ts'
import { DEFAULT_GITHUB_TOKEN, runStep } from '../test/e2e/harness.ts'

const HEAD = '5c1e2d4f7a9b0c3e6f8a1b2c4d5e7f9a0b1c2d3e'
const PULL_REQUEST = { owner: 'octo-org', repo: 'app', number: 7 }

export interface ApprovalShots {
  /** The comment while the run waits. */
  waiting: string
  /** The job summary of the waiting step. */
  summary: string
  /** The check run on the head while it waits, as GitHub's checks page shows it. */
  check: string
  /** The same comment once a maintainer's approval started the run: the approval, the run. */
  approved: string
}

export async function captureApproval(key: string, script: RunScript): Promise<ApprovalShots> {
  const api = await FakeAgentApi.start({ apiKey: key, script: () => script })
  const github = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  const { owner, repo, number } = PULL_REQUEST
  try {
    github.setPullRequest(owner, repo, number, {
      headSha: HEAD,
      headRepo: 'forker/app',
      author: 'forker',
    })
    github.setRole(owner, repo, 'maintainer', 'write')
    const dir = mkdtempSync(join(tmpdir(), 'screenshot-event-'))
    const event = (name: string, payload: object) => {
      const path = join(dir, `${name}.json`)
      writeFileSync(path, JSON.stringify(payload))
      return {
        GITHUB_EVENT_NAME: name,
        GITHUB_EVENT_PATH: path,
        GITHUB_API_URL: github.apiUrl,
        GITHUB_SERVER_URL: 'https://github.com',
      }
    }
    const step = {
      target: 'bundle' as const,
      inputs: {
        api_key: key,
        base_url: api.baseUrl,
        poll_interval: '100ms',
        name: 'fork-review-7',
        prompt: 'Review pull request #7 in octo-org/app and flag risky changes.',
        title: 'Fork-safe review of PR #7',
        approval: 'forks',
        comment: 'true',
        check_run: 'true',
      },
    }
    const waited = await runStep({
      ...step,
      env: event('pull_request_target', {
        action: 'opened',
        pull_request: {
          number,
          head: { sha: HEAD, repo: { full_name: 'forker/app' } },
          base: { repo: { full_name: `${owner}/${repo}` } },
        },
      }),
    })
    const [waiting] = github.comments(owner, repo, number)
    const [check] = github.checkRuns(owner, repo, HEAD)
    if (!waiting || !check) throw new Error(`approval: nothing was shown:\n${waited.stdout}`)
    const waitingBody = waiting.body
    // The maintainer's comment, on the thread a second after the wait (GitHub orders seconds).
    github.advance(1000)
    const approve = github.addComment(owner, repo, number, `/approve ${HEAD}`, 'maintainer')
    const approvedStep = await runStep({
      ...step,
      env: event('issue_comment', {
        action: 'created',
        issue: { number, pull_request: { url: 'x' } },
        comment: approve,
      }),
    })
    // One comment for the key: the approval at its head, the run's report below it.
    const approved = github.comment(waiting.id)?.body
    if (!approved?.includes('**Approved**')) {
      throw new Error(`approval: no approved comment:\n${approvedStep.stdout}`)
    }
    return {
      waiting: waitingBody,
      summary: waited.summary,
      check: [`## ${check.output.title ?? ''}`, check.output.summary ?? ''].join('\n\n'),
      approved,
    }
  } finally {
    await Promise.all([api.close(), github.close()])
  }
}
