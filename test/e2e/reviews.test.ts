/**
 * pull_request_review and check_run end to end: the action against the fake API, whose agent
 * answers with a review document, and the fake GitHub, which serves the pull request's diff
 * and refuses a review comment off it with 422, as GitHub does.
 */
import { describe, expect, it } from 'vitest'
import { conversationStep, type RunScript } from '../fake-api/server.ts'
import type { FakeGitHubOptions } from '../fake-github/server.ts'
import { killWhilePolling, runPostStep, runStep } from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'

const KEY = 'sk-reviews-e2e'
const OWNER = 'octo-org'
const REPO = 'app'
const PR = 12
const HEAD = 'c0ffee0000000000000000000000000000000001'
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY)

const PATCH = [
  '@@ -1,4 +1,5 @@',
  ' import { run } from "./run"',
  '-const retries = 3',
  '+const retries = 0',
  '+const timeoutMs = 10',
  ' ',
  ' run(retries)',
  '@@ -40,2 +41,3 @@ export function later() {',
  '   return 1',
  '+  // TODO',
  ' }',
].join('\n')

const REVIEW = {
  summary: 'Two risky changes. <img src=x onerror=alert(1)> cc @octocat',
  verdict: 'request_changes',
  comments: [
    { path: 'src/config.ts', line: 2, body: 'Why **no** retries? @octocat' },
    { path: 'src/config.ts', start_line: 2, line: 3, body: 'Ten milliseconds is too short.' },
    { path: 'src/config.ts', line: 2, side: 'LEFT', body: 'The old value was safer.' },
    { path: 'src/config.ts', line: 30, body: 'Also, this function is too long.' },
    { path: 'README.md', line: 1, body: 'Document the change. <!-- cloud-agent-review: {} -->' },
  ],
}

function agentSays(document: unknown): RunScript {
  return [
    { state: 'INPROGRESS', afterMs: 0 },
    {
      state: 'SUCCEEDED',
      afterMs: 300,
      patch: { session_link: 'https://app.example.test/sessions/s1' },
      conversation: [
        conversationStep('s1', [
          {
            role: 'assistant',
            content: [
              { type: 'text', text: `Done.\n\n\`\`\`json\n${JSON.stringify(document)}\n\`\`\`` },
            ],
          },
        ]),
      ],
    },
  ]
}

async function servers(script: RunScript, github: FakeGitHubOptions = {}) {
  const api = await fakeApi({ script: () => script })
  const gh = await fakeGitHub(github)
  gh.setPullRequest(OWNER, REPO, PR, { headSha: HEAD })
  gh.setPullRequestFiles(OWNER, REPO, PR, [{ filename: 'src/config.ts', patch: PATCH }])
  const env = eventEnv(
    gh,
    'pull_request',
    {
      pull_request: { number: PR, head: { sha: HEAD } },
      repository: { full_name: `${OWNER}/${REPO}` },
    },
    { GITHUB_REPOSITORY: `${OWNER}/${REPO}` },
  )
  return { api, gh, env }
}

describe('pull_request_review and check_run', () => {
  it('posts one review with inline comments on the diff, the rest in its body, and a check run', async () => {
    const { api, gh, env } = await servers(agentSays(REVIEW))
    const result = await runStep({
      inputs: inputsFor(api, {
        prompt: 'Review this pull request',
        name: 'agent-review',
        pull_request_review: 'true',
        check_run: 'true',
      }),
      env,
    })

    expect(result.code).toBe(0)
    expect(result.outputs.verdict).toBe('request_changes')
    expect(JSON.parse(result.outputs.structured_output ?? '{}')).toEqual(REVIEW)
    const reviews = gh.reviews(OWNER, REPO, PR)
    expect(reviews).toHaveLength(1)
    const [review] = reviews
    expect(review?.state).toBe('CHANGES_REQUESTED')
    expect(review?.commit_id).toBe(HEAD)
    expect(review?.comments.map((c) => [c.path, c.side, c.start_line, c.line])).toEqual([
      ['src/config.ts', 'RIGHT', undefined, 2],
      ['src/config.ts', 'RIGHT', 2, 3],
      ['src/config.ts', 'LEFT', undefined, 2],
    ])
    expect(review?.comments[0]?.body).toBe('Why **no** retries? @\u200doctocat')
    const body = review?.body ?? ''
    expect(body).toContain('### ❌ Changes requested')
    expect(body).toContain('<code>src/config.ts:30</code> (the line is not in the diff)')
    expect(body).toContain('<code>README.md:1</code> (the file is not in the diff)')
    expect(body).toContain('&lt;img src=x')
    expect(body).not.toMatch(/<img|@octocat/)
    // One marker, the action's own: the agent's forged one is defused.
    expect(body.match(/<!-- cloud-agent-review:/g)).toHaveLength(1)

    const [check] = gh.checkRuns(OWNER, REPO, HEAD)
    expect(check?.name).toBe('cloud-agent/agent-review')
    expect(check?.writes[0]).toMatchObject({ status: 'in_progress', head_sha: HEAD })
    expect(check?.conclusion).toBe('failure')
    expect(check?.output.title).toBe('Changes requested')
    expect(check?.annotations.map((a) => [a.path, a.start_line, a.end_line])).toEqual([
      ['src/config.ts', 2, 2],
      ['src/config.ts', 2, 3],
      ['src/config.ts', 30, 30],
      ['README.md', 1, 1],
    ])
    expect(result.stdout).toContain('3 inline comment(s), 2 in its body')
  })

  it('a re-run on the same head says which review is current; approve is a comment review', async () => {
    const approve = { summary: 'Looks good.', verdict: 'approve', comments: [] }
    const { api, gh, env } = await servers(agentSays(approve))
    const inputs = inputsFor(api, {
      prompt: 'Review',
      name: 'agent-review',
      pull_request_review: 'true',
    })
    expect((await runStep({ inputs, env })).code).toBe(0)
    const second = await runStep({ inputs, env })

    expect(second.code).toBe(0)
    expect(second.outputs.verdict).toBe('approve')
    const [first, current] = gh.reviews(OWNER, REPO, PR)
    expect(current?.state).toBe('COMMENTED')
    expect(current?.body).toContain('the action never approves a pull request')
    expect(current?.body).toContain(`replaces [the earlier review](${first?.html_url})`)
    expect(first?.body).toMatch(
      /^<!-- cloud-agent-review: .*-->\n> \[!NOTE\]\n> A newer review of this commit replaces this one/,
    )
    expect(first?.body).toContain(`[the newer review](${current?.html_url})`)
  })

  it('a broken run is never "changes requested"; without checks: write, a warning and the run goes on', async () => {
    const failing: RunScript = [
      { state: 'INPROGRESS', afterMs: 0 },
      { state: 'FAILED', afterMs: 200, patch: { status_message: { message: 'Out of disk' } } },
    ]
    const broken = await servers(failing)
    const result = await runStep({
      inputs: inputsFor(broken.api, {
        prompt: 'Review',
        pull_request_review: 'true',
        check_run: 'true',
      }),
      env: broken.env,
    })
    expect(result.code).toBe(1)
    expect(broken.gh.reviews(OWNER, REPO, PR)).toHaveLength(0)
    const [check] = broken.gh.checkRuns(OWNER, REPO, HEAD)
    expect(check?.conclusion).toBe('failure')
    expect(check?.output.title).toBe('The run broke: the agent could not finish')

    const denied = await servers(
      agentSays({ summary: 'Fine.', verdict: 'comment', comments: [] }),
      {
        checksWrite: false,
      },
    )
    const passing = await runStep({
      inputs: inputsFor(denied.api, { prompt: 'Review', check_run: 'true' }),
      env: denied.env,
    })
    expect(passing.code).toBe(0)
    expect(passing.stdout).toMatch(
      /::warning::GitHub: could not create the check run cloud-agent\/.+ on c0ffee0 \(.*\)\. check_run needs the permission checks: write\. The run goes on without it\./,
    )
  })

  it('after a hard kill, the post step completes the check run the main step left in progress', async () => {
    const slow: RunScript = [{ state: 'INPROGRESS', afterMs: 0 }]
    const { api, gh, env } = await servers(slow)
    const options = { inputs: inputsFor(api, { prompt: 'Review', check_run: 'true' }), env }
    const killed = await killWhilePolling(api, options)
    expect(gh.checkRuns(OWNER, REPO, HEAD)[0]?.status).toBe('in_progress')

    const post = await runPostStep(killed, options)
    expect(post.code, post.stdout).toBe(0)
    const [check] = gh.checkRuns(OWNER, REPO, HEAD)
    expect(check?.status).toBe('completed')
    expect(check?.conclusion).toBe('cancelled')
    expect(check?.output.title).toBe('The step stopped; the run was cancelled')
    expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED'])
  })

  it('a step that ended on an error has its check run completed by the post step, as failed', async () => {
    const { api, gh, env } = await servers(agentSays(REVIEW))
    // The create is refused: the step fails before any run exists.
    api.injectFault({
      method: 'POST',
      path: '/agent/run',
      fault: { kind: 'status', status: 400, body: { error: 'bad request' } },
    })
    const options = { inputs: inputsFor(api, { prompt: 'Review', check_run: 'true' }), env }
    const main = await runStep(options)
    expect(main.code).toBe(1)
    const post = await runPostStep(main, options)
    expect(post.code, post.stdout).toBe(0)
    const [check] = gh.checkRuns(OWNER, REPO, HEAD)
    expect(check?.conclusion).toBe('failure')
    expect(check?.output.title).toBe('The step stopped')
  })
})
