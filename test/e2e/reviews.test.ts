/**
 * pull_request_review and check_run end to end: the action against the fake API, whose agent
 * answers with a review document, and the fake GitHub, which serves the pull request's diff
 * and refuses a review comment off it with 422, as GitHub does.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { conversationStep, type RunScript } from '../fake-api/server.ts'
import type { FakeGitHubOptions } from '../fake-github/server.ts'
import { itNeedsProcess, killWhilePolling, runPostStep, runStep } from './harness.ts'
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

  it('one verdict everywhere: the headlines lead with it, the status agrees with the check, no raw JSON', async () => {
    const { api, gh, env } = await servers(agentSays(REVIEW))
    const result = await runStep({
      inputs: inputsFor(api, {
        // No title: the run is named after the user's prompt, never the action's instruction.
        prompt: 'Review this pull request\nLook at the config first.',
        name: 'agent-review',
        pull_request_review: 'true',
        check_run: 'true',
        commit_status: 'true',
        comment: 'true',
      }),
      env,
    })

    // The run succeeded, so the step passes: a gate reads the check, the status or `verdict`.
    expect(result.code).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    expect(result.summary).toMatch(/^### ❌ Changes requested: Review this pull request$/m)
    expect(result.summary).toContain('The run succeeded; the agent&#39;s review requests changes.')
    expect(result.summary).toContain("The agent's review</summary>")
    expect(result.summary).toContain('Two risky changes.')
    expect(result.summary).not.toContain('"verdict"')
    expect(result.summary).not.toMatch(/Your result is a review/)
    const [comment] = gh.comments(OWNER, REPO, PR)
    expect(comment?.body).toMatch(/### ❌ Review this pull request/)
    expect(comment?.body).toContain('**Changes requested**')
    expect(comment?.body).not.toContain('"verdict"')
    const [check] = gh.checkRuns(OWNER, REPO, HEAD)
    const statuses = gh.statuses(OWNER, REPO, HEAD)
    expect(check?.name).toBe(statuses.at(-1)?.context)
    expect(check?.conclusion).toBe('failure')
    expect(statuses.at(-1)?.state).toBe('failure')
    expect(statuses.at(-1)?.description).toBe('Changes requested')
    const created = api.requests.find((request) => request.method === 'POST')
    expect((created?.json as { title?: string }).title).toBe('Review this pull request')
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

  it("a review whose correction the run refuses ends invalid_output, naming the review's schema", async () => {
    const { api, env } = await servers(agentSays({ summary: 'Fine.', verdict: 'maybe' }))
    api.injectFault({
      method: 'POST',
      path: /\/followups$/,
      fault: { kind: 'status', status: 422, body: { detail: 'The run takes no follow-up.' } },
    })
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', pull_request_review: 'true' }),
      env,
    })
    expect(result.code, result.stdout).toBe(1)
    expect(result.outputs.outcome).toBe('invalid_output')
    expect(result.stdout).toMatch(/::warning::Run \S+ refused the correction:/)
    expect(result.stdout).toMatch(
      /::error::Run \S+: the agent's result did not validate against the review's schema \(pull_request_review\): the run refused the correction/,
    )
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

  itNeedsProcess(
    'after a hard kill, the post step completes the check run the main step left in progress',
    async () => {
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
    },
  )

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
    expect(check?.conclusion, `${main.stdout}\n${post.stdout}`).toBe('failure')
    expect(check?.output.title).toBe('The step stopped')
  })
})

/** Issue 25: a GitHub that fails once, or loses an answer, loses nothing and leaves nothing open. */
describe('pull_request_review and check_run against a GitHub that fails', () => {
  it('a completion GitHub never accepted is not recorded as done: the post step completes it with the outcome', async () => {
    const { api, gh, env } = await servers(agentSays(REVIEW))
    // More 502s than the main step's attempts: only the post step can complete the check.
    gh.failNext('PATCH', /\/check-runs\/\d+$/, 502, { times: 20 })
    const options = {
      inputs: inputsFor(api, { prompt: 'Review', pull_request_review: 'true', check_run: 'true' }),
      env,
    }
    const main = await runStep(options)
    expect(main.code, main.stdout).toBe(0)
    // The cause: the state says done only once GitHub took the completion.
    expect(main.state['check_run_done']).toBeUndefined()
    expect(main.stdout).toMatch(
      /::warning::GitHub: could not complete the check run cloud-agent\/.+ \(Server Error[^)]*\)\. GitHub failed \(HTTP 502\) on each of 3 attempts\. The post step completes it\./,
    )
    expect(gh.checkRuns(OWNER, REPO, HEAD)[0]?.status).toBe('in_progress')

    gh.clearFaults()
    const post = await runPostStep(main, options)
    expect(post.code, post.stdout).toBe(0)
    const checks = gh.checkRuns(OWNER, REPO, HEAD)
    expect(checks).toHaveLength(1)
    expect(checks[0]?.status).toBe('completed')
    // The outcome the main step reached, not "the step stopped".
    expect(checks[0]?.conclusion).toBe('failure')
    expect(checks[0]?.output.title).toBe('Changes requested')
  })

  it('a check run whose create answer was lost is found by its external_id, completed, and never duplicated', async () => {
    const { api, gh, env } = await servers(agentSays(REVIEW))
    gh.failNext('POST', /\/check-runs$/, 502, { afterEffect: true })
    const main = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', pull_request_review: 'true', check_run: 'true' }),
      env,
    })
    expect(main.code, main.stdout).toBe(0)
    expect(main.stdout).not.toContain('could not create the check run')
    const checks = gh.checkRuns(OWNER, REPO, HEAD)
    expect(checks).toHaveLength(1)
    expect(checks[0]?.status).toBe('completed')
    expect(checks[0]?.conclusion).toBe('failure')
    expect(main.state['check_run_id']).toBe(String(checks[0]?.id))
    expect(main.state['check_run_done']).toBe('true')
  })

  it('comments outside the diff past the 65,536 characters of a review body go on in a second review, linked', async () => {
    const comments = Array.from({ length: 40 }, (_, i) => ({
      path: 'src/other.ts',
      line: i + 1,
      body: `Remark ${i + 1}. ${'This function does too much and should be split. '.repeat(55)}`,
    }))
    const { api, gh, env } = await servers(
      agentSays({ summary: 'Many remarks.', verdict: 'comment', comments }),
    )
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', pull_request_review: 'true' }),
      env,
    })
    expect(result.code, result.stdout).toBe(0)
    const reviews = gh.reviews(OWNER, REPO, PR)
    expect(reviews.length).toBeGreaterThan(1)
    const bodies = reviews.map((review) => review.body)
    for (const body of bodies) expect(body.length).toBeLessThanOrEqual(65_536)
    for (let line = 1; line <= 40; line++) {
      const where = `<code>src/other.ts:${line}</code>`
      expect(
        bodies.filter((body) => body.includes(where)),
        where,
      ).toHaveLength(1)
      expect(bodies.join('\n')).toContain(`Remark ${line}. `)
    }
    const [first, second] = reviews
    expect(first?.body).toMatch(/\d+ more comments outside the diff are in the next review/)
    expect(second?.state).toBe('COMMENTED')
    expect(second?.body).toContain(`continued from [the review](${first?.html_url})`)
    expect(result.stdout).toContain('0 inline comment(s), 40 in its body')
  })

  it('one 502 on reading the pull request files is retried: the review is posted, and no permission is blamed', async () => {
    const { api, gh, env } = await servers(agentSays(REVIEW))
    gh.failNext('GET', `/repos/${OWNER}/${REPO}/pulls/${PR}/files`, 502)
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', pull_request_review: 'true' }),
      env,
    })
    expect(result.code, result.stdout).toBe(0)
    expect(result.stdout).not.toContain('pull-requests: write')
    expect(gh.requestsTo('GET', `/repos/${OWNER}/${REPO}/pulls/${PR}/files`)).toHaveLength(2)
    const [review] = gh.reviews(OWNER, REPO, PR)
    expect(review?.comments).toHaveLength(3)
  })
})
