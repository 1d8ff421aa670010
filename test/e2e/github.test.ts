/**
 * The pull-request features end to end: the bundle against the fake Cloud Agent
 * Runs API and a fake GitHub REST API (GITHUB_API_URL points at it).
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import type { FakeApiOptions, RunScript } from '../fake-api/server.ts'
import type { FakeGitHub, FakeGitHubOptions } from '../fake-github/server.ts'
import { ConnectProxy } from '../support/connect-proxy.ts'
import {
  DEFAULT_GITHUB_TOKEN,
  describeNeedsProcess,
  itNeedsProcess,
  runPostStep,
  runStep,
  startStep,
  until,
} from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'
import { savedRun } from './saved-runs.ts'

const KEY = 'sk-github-e2e'
const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY)

async function servers(api: FakeApiOptions = {}, github: FakeGitHubOptions = {}) {
  const agents = await fakeApi(api)
  const gh = await fakeGitHub(github)
  gh.setRole(OWNER, REPO, 'octo-writer', 'write')
  return { agents, gh }
}

const pullRequestEvent = {
  pull_request: { number: PR },
  repository: { full_name: `${OWNER}/${REPO}` },
}
const issueCommentEvent = {
  issue: { number: PR, pull_request: { url: 'x' } },
  comment: {
    body: '@agent please also fix the typo',
    user: { login: 'octo-writer', type: 'User' },
  },
}

/** Waits until the step's comment on the thread shows `pattern`. */
function settledComment(gh: FakeGitHub, pattern: RegExp): Promise<void> {
  return until(
    () => pattern.test(gh.comments(OWNER, REPO, PR)[0]?.body ?? ''),
    `the comment shows ${pattern}`,
  )
}

const marker = (runId: string) =>
  `<!-- cloud-agent-run: {"run_id":"${runId}","step":"review/agent"} -->`

describe('comment: one comment per step, kept up to date', () => {
  it('creates the comment once, then updates it to the outcome, with the marker', async () => {
    const { agents, gh } = await servers()
    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Review', comment: 'true' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })

    expect(result.code).toBe(0)
    const runId = result.outputs.run_id ?? ''
    expect(gh.requestsTo('POST', /\/issues\/7\/comments$/)).toHaveLength(1)
    expect(gh.requestsTo('PATCH', /\/issues\/comments\/\d+$/).length).toBeGreaterThanOrEqual(1)
    const comments = gh.comments(OWNER, REPO, PR)
    expect(comments).toHaveLength(1)
    expect(comments[0]?.body).toContain(`<!-- cloud-agent-run: {"run_id":"${runId}"`)
    expect(comments[0]?.body).toContain('**Succeeded**')
    expect(comments[0]?.body).toContain('[Session](https://app.example.test/')
    expect(
      gh.requests.every((request) => request.headers.authorization?.includes(DEFAULT_GITHUB_TOKEN)),
    ).toBe(true)
  })

  itNeedsProcess(
    'after a hard kill, the post step cancels the run and finishes the comment',
    async () => {
      const { agents, gh } = await servers({
        script: () => [
          { state: 'QUEUED', afterMs: 0 },
          { state: 'INPROGRESS', afterMs: 50 },
        ],
      })
      const inputs = inputsFor(agents, { prompt: 'Review', comment: 'true' })
      const env = eventEnv(gh, 'pull_request', pullRequestEvent)
      const step = startStep({ inputs, env })
      await step.printed(/is INPROGRESS/)
      await settledComment(gh, /In progress/)
      step.child.kill('SIGKILL')
      const main = await step.result
      expect(main.state.comment_id).toMatch(/^\d+$/)

      const post = await runPostStep(main, { inputs, env })

      expect(post.code).toBe(0)
      const runId = savedRun(main.state)?.runId ?? ''
      expect(agents.run(runId)?.state).toBe('CANCELLED')
      const comments = gh.comments(OWNER, REPO, PR)
      expect(comments).toHaveLength(1)
      expect(comments[0]?.body).toContain('### ⛔ Review\n\n**Cancelled**')
      expect(comments[0]?.body).toContain(
        'The step stopped before the run ended; the run was cancelled.',
      )
      expect(comments[0]?.body).toContain(`"run_id":"${runId}"`)
    },
  )

  it('shows the status message of a failed run', async () => {
    const failing: RunScript = [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'FAILED', afterMs: 150, patch: { status_message: { message: 'Out of disk' } } },
    ]
    const { agents, gh } = await servers({ script: () => failing })
    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Review', comment: 'true' }),
      env: eventEnv(gh, 'pull_request_target', pullRequestEvent),
    })

    expect(result.code).toBe(1)
    expect(gh.comments(OWNER, REPO, PR)[0]?.body).toMatch(/\*\*Failed\*\*[\s\S]*> Out of disk/)
  })

  it('only warns when GitHub refuses the comment; the run step still passes', async () => {
    const { agents, gh } = await servers()
    gh.failNext('POST', /\/comments$/, 403, { times: 10 })
    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Review', comment: 'true' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })

    expect(result.code).toBe(0)
    expect(result.outputs.state).toBe('SUCCEEDED')
    expect(result.stdout).toMatch(
      /::warning::GitHub: could not update the comment on octo-org\/app#7/,
    )
  })

  it('says why it does nothing on an event without a thread, and goes on', async () => {
    const { agents, gh } = await servers()
    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Nightly', comment: 'true' }),
      env: eventEnv(gh, 'schedule', {}),
    })

    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      'No comment thread: the schedule event has no pull request or issue',
    )
    expect(gh.requests).toHaveLength(0)
  })

  it('does not load or call GitHub when no comment is asked for', async () => {
    const { agents, gh } = await servers()
    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Review' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })

    expect(result.code).toBe(0)
    expect(gh.requests).toHaveLength(0)
  })

  it("nor on a comment's event, which names a pull request without its head (docs/pull-requests.md)", async () => {
    const { agents, gh } = await servers()
    gh.setPullRequest(OWNER, REPO, PR, { headSha: 'ab'.repeat(20) })
    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Review' }),
      env: eventEnv(gh, 'issue_comment', issueCommentEvent),
    })

    expect(result.code).toBe(0)
    expect(agents.allRuns()).toHaveLength(1)
    expect(gh.requests).toHaveLength(0)
  })
})

// The proxy is the process's environment's, read by @actions/http-client itself.
describeNeedsProcess("the runner's proxy", () => {
  it("HTTP_PROXY: the step's GitHub requests go through it", async () => {
    const { agents, gh } = await servers()
    const proxy = await ConnectProxy.start()
    // A name that is not loopback: http-client never sends loopback through a proxy.
    const apiUrl = `http://api.github.test:${new URL(gh.apiUrl).port}`
    try {
      const result = await runStep({
        inputs: inputsFor(agents, { prompt: 'Review', comment: 'true' }),
        env: eventEnv({ apiUrl }, 'pull_request', pullRequestEvent, { HTTP_PROXY: proxy.url }),
      })

      expect(result.code).toBe(0)
      expect(gh.comments(OWNER, REPO, PR)).toHaveLength(1)
      const viaProxy = proxy.targets.filter((target) => target.startsWith('api.github.test:'))
      expect(viaProxy.length).toBe(gh.requests.length)
      expect(viaProxy.length).toBeGreaterThan(0)
    } finally {
      await proxy.close()
    }
  })
})

describe('continue_run: the conversation goes on in the same run', () => {
  // The follow-up's pass ends once a poll has shown it at work: a step starved of the CPU waited
  // out the grace for a pass never seen (30 s) when the pass went by between two polls.
  const seenPasses = { followupPassSeen: true }

  it('finds the run in its own marker and sends the follow-up to it', async () => {
    const { agents, gh } = await servers(seenPasses)
    const earlier = agents.seedRun({ prompt: 'Review' }, { createdAt: Date.now() - 60_000 })
    gh.addComment(OWNER, REPO, PR, `${marker(earlier.run_id)}\nOld status`, 'github-actions[bot]')

    const result = await runStep({
      inputs: inputsFor(agents, {
        prompt: 'Review',
        followup: 'please also fix the typo',
        continue_run: 'true',
        comment: 'true',
      }),
      env: eventEnv(gh, 'issue_comment', issueCommentEvent),
    })

    expect(result.code).toBe(0)
    expect(result.outputs.run_id).toBe(earlier.run_id)
    expect(agents.followups(earlier.run_id)).toEqual(['please also fix the typo'])
    expect(agents.allRuns()).toHaveLength(1)
    expect(result.stdout).toContain(`continue_run: this thread's run is ${earlier.run_id}`)
    // The new step keeps its own comment, which carries the marker on for the next turn.
    const comments = gh.comments(OWNER, REPO, PR)
    expect(comments).toHaveLength(2)
    expect(comments[1]?.body).toContain(earlier.run_id)
  })

  it('ignores a marker typed by someone else, and creates a run', async () => {
    const { agents, gh } = await servers()
    const victim = agents.seedRun({ prompt: 'Someone else' }, { createdAt: Date.now() - 60_000 })
    gh.addComment(OWNER, REPO, PR, marker(victim.run_id), { login: 'mallory', type: 'User' })

    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Answer the comment', continue_run: 'true' }),
      env: eventEnv(gh, 'issue_comment', issueCommentEvent),
    })

    expect(result.code).toBe(0)
    expect(agents.followups(victim.run_id)).toEqual([])
    expect(agents.allRuns()).toHaveLength(2)
    expect(result.outputs.run_id).not.toBe(victim.run_id)
    expect(result.stdout).toContain('no earlier run on this thread; creating one')
  })

  it('trusts the markers of the token user when the token can read its own identity', async () => {
    const { agents, gh } = await servers(seenPasses, {
      identity: { login: 'agent-bot-user', type: 'User' },
    })
    const earlier = agents.seedRun({ prompt: 'Review' }, { createdAt: Date.now() - 60_000 })
    gh.addComment(OWNER, REPO, PR, marker('run_older'), { login: 'agent-bot-user', type: 'User' })
    gh.addComment(OWNER, REPO, PR, marker(earlier.run_id), {
      login: 'agent-bot-user',
      type: 'User',
    })
    gh.addComment(OWNER, REPO, PR, marker('run_forged'), 'github-actions[bot]')

    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Go on', continue_run: 'true' }),
      env: eventEnv(gh, 'issue_comment', issueCommentEvent),
    })

    expect(result.code).toBe(0)
    expect(result.outputs.run_id).toBe(earlier.run_id)
    expect(agents.followups(earlier.run_id)).toEqual(['Go on'])
  })
})

describe('cancel_previous', () => {
  it('cancels only the active runs with the same name, then creates the new one', async () => {
    const longRun: RunScript = [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 10 },
    ]
    const { agents, gh } = await servers()
    // Runs as a step of this pull request tags them (a step before v1.4 wrote no gh_forge).
    const metadata = { gh_repository: `${OWNER}/${REPO}`, gh_thread: String(PR) }
    const stale = agents.seedRun(
      { prompt: 'old', config: { name: 'pr-7' }, metadata },
      { script: longRun },
    )
    const staleQueued = agents.seedRun(
      { prompt: 'older', config: { name: 'pr-7' }, metadata },
      { script: [{ state: 'QUEUED', afterMs: 0 }] },
    )
    const finished = agents.seedRun(
      { prompt: 'done', config: { name: 'pr-7' }, metadata },
      { createdAt: Date.now() - 60_000 },
    )
    const otherPr = agents.seedRun(
      { prompt: 'other', config: { name: 'pr-8' }, metadata },
      { script: longRun },
    )

    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Review', name: 'pr-7', cancel_previous: 'true' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })

    expect(result.code).toBe(0)
    expect(agents.run(stale.run_id)?.state).toBe('CANCELLED')
    expect(agents.run(staleQueued.run_id)?.state).toBe('CANCELLED')
    expect(agents.run(finished.run_id)?.state).toBe('SUCCEEDED')
    expect(agents.run(otherPr.run_id)?.state).toBe('INPROGRESS')
    expect(agents.requestsTo('POST', /\/cancel$/)).toHaveLength(2)
    expect(result.stdout.match(/cancel_previous: Run run_\S+ was cancelled\./g)).toHaveLength(2)
    const [list] = agents.requestsTo('GET', '/agent/runs')
    expect(list?.query.get('name')).toBe('pr-7')
    expect(list?.query.getAll('state')).toEqual(['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS'])
    expect(list?.query.get('metadata[gh_repository]')).toBe(`${OWNER}/${REPO}`)
    expect(list?.query.get('metadata[gh_thread]')).toBe(String(PR))
  })

  it("with a constant name, never cancels another pull request's or another project's run", async () => {
    const longRun: RunScript = [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 10 },
    ]
    const { agents, gh } = await servers()
    const ours = { gh_forge: 'github', gh_repository: `${OWNER}/${REPO}` }
    const name = { name: 'agent-review' }
    const mine = agents.seedRun(
      { prompt: 'mine', config: name, metadata: { ...ours, gh_thread: String(PR) } },
      { script: longRun },
    )
    const otherPr = agents.seedRun(
      { prompt: 'other', config: name, metadata: { ...ours, gh_thread: String(PR + 1) } },
      { script: longRun },
    )
    const otherProject = agents.seedRun(
      {
        prompt: 'elsewhere',
        config: name,
        metadata: { ...ours, gh_repository: 'someone/else', gh_thread: String(PR) },
      },
      { script: longRun },
    )

    const result = await runStep({
      inputs: inputsFor(agents, { prompt: 'Review', name: 'agent-review', previous_run: 'cancel' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })

    expect(result.code).toBe(0)
    expect(agents.run(mine.run_id)?.state).toBe('CANCELLED')
    expect(agents.run(otherPr.run_id)?.state).toBe('INPROGRESS')
    expect(agents.run(otherProject.run_id)?.state).toBe('INPROGRESS')
  })
})

describe('prompt_file and richer outputs', () => {
  it('reads the prompt from a workspace file and reports the run and its pull request', async () => {
    const { agents, gh } = await servers({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        {
          state: 'SUCCEEDED',
          afterMs: 150,
          patch: {
            artifacts: [
              {
                artifact_type: 'PULL_REQUEST',
                created_at: '2026-01-01T00:00:00Z',
                data: { url: 'https://github.com/octo-org/app/pull/99', branch: 'deps' },
              },
            ],
            request_usage: { inference_cost: 3 },
          },
        },
      ],
    })
    const workspace = mkdtempSync(join(tmpdir(), 'workspace-'))
    writeFileSync(join(workspace, 'task.md'), 'Upgrade the dependencies\n')

    const result = await runStep({
      inputs: inputsFor(agents, { prompt_file: 'task.md' }),
      env: { ...eventEnv(gh, 'schedule', {}), GITHUB_WORKSPACE: workspace },
    })

    expect(result.code).toBe(0)
    expect(agents.requestsTo('POST', '/agent/run')[0]?.json).toMatchObject({
      prompt: 'Upgrade the dependencies',
    })
    expect(result.outputs.pull_request_url).toBe('https://github.com/octo-org/app/pull/99')
    const run = JSON.parse(result.outputs.run ?? '{}') as { run_id?: string; state?: string }
    expect(run).toMatchObject({ run_id: result.outputs.run_id, state: 'SUCCEEDED' })
    expect(result.summary).toContain('| **Cost** | 3 credits |')
    expect(result.summary).toContain('(https://github.com/octo-org/app/pull/99)')
  })
})
