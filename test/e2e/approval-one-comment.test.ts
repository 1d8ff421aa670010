/**
 * `approval` keeps one comment per key, as `comment: true` promises: the approval (who may
 * approve, then who approved what) heads the key's comment, and the run's or set's report is
 * written below it in the same comment. A step that waited, was approved and ran, then waited
 * again after a push, leaves the action's identity one comment on the thread, whose approval
 * record still admits one run per approval, whichever step of the key wrote it last.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseApprovalMarker } from '../../src/github/approval-comment.ts'
import { parseMarker } from '../../src/github/run-marker.ts'
import { parseSetMarker } from '../../src/github/set-comment.ts'
import type { FakeAgentApi, RunScript } from '../fake-api/server.ts'
import type { FakeGitHub } from '../fake-github/server.ts'
import { runStep, until, type StepResult } from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'

const KEY = 'sk-approval-one-comment-e2e'
const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
/** The fork's first head, and the head after its second push (the fixtures' SHAs). */
const HEAD_A = '5c1e2d4f7a9b0c3e6f8a1b2c4d5e7f9a0b1c2d3e'
const HEAD_B = '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432'
const NAME = 'fork-review-7'
const BOT = 'github-actions[bot]'
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY)

type Fixture =
  | 'pull_request_target.opened.fork'
  | 'pull_request_target.synchronize.fork'
  | 'issue_comment.created.approve'

interface Payload {
  action: string
  issue: { number: number }
  comment: { id: number; body: string; user: { login: string; type: string } } & Record<
    string,
    unknown
  >
}

/**
 * The runner's view of one of GitHub's payloads. A comment is made a second after what the test
 * set up (GitHub orders only whole seconds) and is on the thread when its workflow run starts.
 */
function env(gh: FakeGitHub, name: Fixture, change: (payload: Payload) => void = () => {}) {
  const payload = JSON.parse(
    readFileSync(new URL(`./fixtures/events/${name}.json`, import.meta.url), 'utf8'),
  ) as Payload
  change(payload)
  if (name === 'issue_comment.created.approve') {
    gh.advance(1000)
    const { body, user } = payload.comment
    const stored = gh.addComment(OWNER, REPO, PR, body, user.login)
    Object.assign(payload.comment, {
      id: stored.id,
      created_at: stored.created_at,
      updated_at: stored.updated_at,
    })
  }
  return eventEnv(gh, name.split('.')[0] ?? '', payload, {
    GITHUB_SERVER_URL: 'https://github.com',
  })
}

/** A maintainer's `/approve` of `head`, as its own workflow run gets it. */
const approve = (gh: FakeGitHub, head: string) =>
  env(gh, 'issue_comment.created.approve', (payload) => {
    payload.comment.body = `/approve ${head.slice(0, 7)}`
  })

/** "hold …" works until the test cancels it; anything else succeeds at once. */
function byPrompt(create: { prompt?: string }): RunScript {
  const held = (create.prompt ?? '').startsWith('hold')
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 50 },
    ...(held ? [] : [{ state: 'SUCCEEDED', afterMs: 300 }]),
  ]
}

/** A fork's pull request at HEAD_A, a maintainer with write, the fork's author with read. */
async function servers(): Promise<{ agents: FakeAgentApi; gh: FakeGitHub }> {
  const agents = await fakeApi({ script: byPrompt })
  const gh = await fakeGitHub()
  gh.setPullRequest(OWNER, REPO, PR, { headSha: HEAD_A, headRepo: 'forker/app', author: 'forker' })
  gh.setRole(OWNER, REPO, 'maintainer', 'write')
  gh.setRole(OWNER, REPO, 'forker', 'read')
  return { agents, gh }
}

const inputs = (agents: FakeAgentApi, extra: Record<string, string> = {}) =>
  inputsFor(agents, {
    prompt: 'Review pull request #7.',
    name: NAME,
    approval: 'forks',
    comment: 'true',
    ...extra,
  })

const creates = (agents: FakeAgentApi) => agents.requestsTo('POST', '/agent/run')

/** The comments the action's own identity wrote on the pull request. */
const botComments = (gh: FakeGitHub) =>
  gh.comments(OWNER, REPO, PR).filter((comment) => comment.user.login === BOT)

/** The key's one comment: exactly one by the action's identity, whatever it shows. */
function theComment(gh: FakeGitHub): string {
  const comments = botComments(gh)
  expect(comments.map((comment) => comment.body.slice(0, 80))).toHaveLength(1)
  return comments[0]?.body ?? ''
}

function expectOutcome(result: StepResult, outcome: string) {
  expect([result.code, result.outputs.outcome], result.stdout).toEqual([0, outcome])
}

describe('approval: one comment per key', () => {
  it('waited, approved and run: one comment holds the approval and the run; a push waits in it again', async () => {
    const { agents, gh } = await servers()
    expectOutcome(
      await runStep({ inputs: inputs(agents), env: env(gh, 'pull_request_target.opened.fork') }),
      'awaiting_approval',
    )
    const waiting = theComment(gh)
    expect(waiting).toContain('Waiting for approval')

    const approved = await runStep({ inputs: inputs(agents), env: approve(gh, HEAD_A) })
    expectOutcome(approved, 'succeeded')
    const ran = theComment(gh)
    expect(parseApprovalMarker(ran)).toMatchObject({ key: NAME, head: HEAD_A, approved: true })
    expect(ran).toContain('**maintainer** approved commit `5c1e2d4f7a9b` in a comment')
    expect(parseMarker(ran)).toMatchObject({ key: NAME, runId: approved.outputs.run_id })
    expect(ran).toContain('**Succeeded**')
    expect(ran).not.toContain('Waiting for approval')

    // The same head again (reopened): the approval admitted its run; the comment waits again.
    gh.advance(1000)
    expectOutcome(
      await runStep({ inputs: inputs(agents), env: env(gh, 'pull_request_target.opened.fork') }),
      'awaiting_approval',
    )
    expect(creates(agents)).toHaveLength(1)
    const again = theComment(gh)
    expect(parseApprovalMarker(again)).toMatchObject({ head: HEAD_A, approved: false })
    // The run it admitted stays shown below the wait.
    expect(parseMarker(again)?.runId).toBe(approved.outputs.run_id)
    expect(again.indexOf('Waiting for approval')).toBeLessThan(again.indexOf('**Succeeded**'))

    // A push waits for a new approval, which starts a second run: still one comment.
    gh.moveHead(OWNER, REPO, PR, HEAD_B)
    expectOutcome(
      await runStep({
        inputs: inputs(agents),
        env: env(gh, 'pull_request_target.synchronize.fork'),
      }),
      'awaiting_approval',
    )
    expect(theComment(gh)).toContain(`/approve ${HEAD_B}`)
    const second = await runStep({ inputs: inputs(agents), env: approve(gh, HEAD_B) })
    expectOutcome(second, 'succeeded')
    const last = theComment(gh)
    expect(parseApprovalMarker(last)).toMatchObject({ head: HEAD_B, approved: true })
    expect(parseMarker(last)?.runs.map((run) => run.runId)).toEqual([
      second.outputs.run_id,
      approved.outputs.run_id,
    ])
    expect(creates(agents)).toHaveLength(2)
  })

  it('an approving review and a re-run of the waiting job: one comment', async () => {
    const { agents, gh } = await servers()
    const opened = env(gh, 'pull_request_target.opened.fork')
    expectOutcome(await runStep({ inputs: inputs(agents), env: opened }), 'awaiting_approval')
    gh.advance(1000)
    gh.addReview(OWNER, REPO, PR, { login: 'maintainer', state: 'APPROVED', commitId: HEAD_A })
    expectOutcome(await runStep({ inputs: inputs(agents), env: opened }), 'succeeded')
    const body = theComment(gh)
    expect(body).toContain('**maintainer** approved commit `5c1e2d4f7a9b` in a review')
    expect(parseMarker(body)).toBeDefined()
  })

  it('a set with the key writes into the comment and keeps the approval record: the approval still admits one run', async () => {
    const { agents, gh } = await servers()
    await runStep({ inputs: inputs(agents), env: env(gh, 'pull_request_target.opened.fork') })
    expectOutcome(await runStep({ inputs: inputs(agents), env: approve(gh, HEAD_A) }), 'succeeded')
    // A maintainer's own set with the same key (approval is refused with tasks: it needs none).
    const set = await runStep({
      inputs: inputsFor(agents, {
        tasks: JSON.stringify(['Check the docs.', 'Check the tests.']),
        name: NAME,
        comment: 'true',
      }),
      env: env(gh, 'issue_comment.created.approve', (payload) => {
        payload.comment.body = 'Run the checks, please.'
      }),
    })
    expectOutcome(set, 'succeeded')
    const body = theComment(gh)
    expect(parseSetMarker(body)?.key).toBe(NAME)
    expect(parseApprovalMarker(body)).toMatchObject({ head: HEAD_A, approved: true })
    expect(body).toContain('### ✅ Cloud agent tasks: succeeded')
    // The approval that admitted the run admits no other.
    gh.advance(1000)
    expectOutcome(
      await runStep({ inputs: inputs(agents), env: env(gh, 'pull_request_target.opened.fork') }),
      'awaiting_approval',
    )
    expect(creates(agents)).toHaveLength(3)
    expect(parseSetMarker(theComment(gh))?.key).toBe(NAME)
  })

  it("a wait and a maintainer's run of the key making their comments at the same moment end in one", async () => {
    const { agents, gh } = await servers()
    // A pull request of this repository: a maintainer's event needs no approval, a stranger's does.
    gh.setPullRequest(OWNER, REPO, PR, { headSha: HEAD_A, author: 'forker' })
    gh.setRole(OWNER, REPO, 'passer-by', 'read')
    // Both creates reach GitHub before either is answered: neither step can see the other's.
    gh.holdUntil('POST', /\/issues\/7\/comments$/, 2)
    const [waited, ran] = await Promise.all([
      runStep({
        inputs: inputs(agents),
        env: env(gh, 'issue_comment.created.approve', (payload) => {
          payload.comment.body = 'Could the agent look at this?'
          payload.comment.user = { login: 'passer-by', type: 'User' }
        }),
      }),
      runStep({
        inputs: inputs(agents),
        env: env(gh, 'pull_request_target.opened.fork', (payload) => {
          const event = payload as unknown as {
            pull_request: { head: { repo: unknown } }
            repository: unknown
          }
          event.pull_request.head.repo = event.repository
        }),
      }),
    ])
    expectOutcome(waited, 'awaiting_approval')
    expectOutcome(ran, 'succeeded')
    // Two comments were made, and one is left: the approval above the run's report.
    expect(
      gh.requestsTo('POST', /\/issues\/7\/comments$/).filter((r) => r.body.includes('cloud-agent')),
    ).toHaveLength(2)
    const body = theComment(gh)
    expect(parseApprovalMarker(body)).toMatchObject({ head: HEAD_A, approved: false })
    expect(parseMarker(body)).toMatchObject({ runId: ran.outputs.run_id })
  })

  it('a run of the key still going keeps the wait a push wrote above it as it writes its end', async () => {
    const { agents, gh } = await servers()
    const held = { prompt: 'hold: review pull request #7.' }
    await runStep({ inputs: inputs(agents, held), env: env(gh, 'pull_request_target.opened.fork') })
    const first = runStep({ inputs: inputs(agents, held), env: approve(gh, HEAD_A) })
    await until(
      () => /\*\*In progress\*\*/.test(botComments(gh)[0]?.body ?? ''),
      'the approved run shows in progress in the comment',
    )
    gh.moveHead(OWNER, REPO, PR, HEAD_B)
    const waiting = runStep({
      inputs: inputs(agents, held),
      env: env(gh, 'pull_request_target.synchronize.fork'),
    })
    // The wait is written above the run still going, whose step may write the comment any
    // moment: the waiting step looks until that step can no longer put back what it read before.
    await until(
      () => parseApprovalMarker(botComments(gh)[0]?.body ?? '')?.head === HEAD_B,
      'the wait shows in the comment',
    )
    // The first run ends now (cancelled in the app): its step writes its end into the comment,
    // from a read after the wait landed; the waiting step, seeing it, is done.
    const runId = agents.allRuns()[0]?.run_id ?? 'none'
    const cancelled = await fetch(`${agents.baseUrl}/agent/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
    })
    expect(cancelled.status).toBe(200)
    expect((await first).outputs.run_id).toBe(runId)
    expectOutcome(await waiting, 'awaiting_approval')
    const body = theComment(gh)
    expect(parseApprovalMarker(body)).toMatchObject({ head: HEAD_B, approved: false })
    expect(body).toContain(`/approve ${HEAD_B}`)
    expect(parseMarker(body)?.runs[0]).toMatchObject({ runId, state: 'CANCELLED' })
  })
})
