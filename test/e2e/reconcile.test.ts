/**
 * Runs that outlive their step, end to end: a detached step (wait: false) and
 * the `reconcile` action (reconcile/action.yml, the same bundle) against the
 * fake API and the fake GitHub; and the credit budgets checked before a create.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import type { FakeAgentApi, RunScript } from '../fake-api/server.ts'
import type { FakeGitHub } from '../fake-github/server.ts'
import {
  describeNeedsProcess,
  itNeedsProcess,
  runStep,
  startStep,
  type StepResult,
  until,
} from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'
import { savedRun } from './saved-runs.ts'

const KEY = 'sk-reconcile-e2e'
const OWNER = 'octo-org'
const REPO = 'app'
const PR = 12
const SHA = 'c'.repeat(40)
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY)

const pullRequestEvent = { pull_request: { number: PR, head: { sha: SHA } } }

/** What GitHub was asked to change: every write, in order. */
function writes(gh: FakeGitHub): string[] {
  return gh.requests
    .filter((request) => request.method !== 'GET')
    .map((request) => `${request.method} ${request.path}`)
}

function reconcile(api: FakeAgentApi, gh: FakeGitHub, extra: Record<string, string> = {}) {
  return runStep({
    action: 'reconcile',
    inputs: { api_key: KEY, base_url: api.baseUrl, ...extra },
    env: eventEnv(gh, 'schedule', {}),
  })
}

function statusOf(gh: FakeGitHub) {
  return gh.statuses(OWNER, REPO, SHA).at(-1)
}

const commentBody = (gh: FakeGitHub) => gh.comments(OWNER, REPO, PR)[0]?.body ?? ''

describe('a detached run, finished by a reconcile pass', () => {
  it("brings the comment and the status to the run's end in one pass; a second pass writes nothing", async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const detached = await runStep({
      inputs: inputsFor(api, {
        prompt: 'Review this pull request',
        title: 'Agent review',
        wait: 'false',
        comment: 'true',
        commit_status: 'true',
      }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })
    expect(detached.code).toBe(0)
    expect(detached.outputs.outcome).toBe('started')
    const runId = detached.outputs.run_id ?? ''
    expect(commentBody(gh)).toContain('a `reconcile` pass brings what it shows on GitHub')
    expect(statusOf(gh)).toMatchObject({
      state: 'pending',
      context: 'cloud-agent/Agent review/review',
    })
    const create = api.requestsTo('POST', '/api/v1/agent/run')[0]?.json as {
      metadata: Record<string, string>
    }
    expect(create.metadata).toMatchObject({
      gh_repository: `${OWNER}/${REPO}`,
      gh_thread: String(PR),
      gh_wait: 'false',
      gh_report: 'comment,status',
      gh_head_sha: SHA,
    })
    await until(() => api.run(runId)?.state === 'SUCCEEDED', 'the run has succeeded')

    const first = await reconcile(api, gh)

    expect(first.code).toBe(0)
    expect(JSON.parse(first.outputs.finalized ?? '')).toEqual([runId])
    expect(JSON.parse(first.outputs.swept ?? '')).toEqual([])
    expect(commentBody(gh)).toContain('### ✅ Agent review\n\n**Succeeded**')
    expect(commentBody(gh)).toContain('Done.')
    expect(commentBody(gh)).toContain('[Session](https://app.example.test/sessions/')
    expect(commentBody(gh)).toContain(
      '[Workflow run](https://github.com/octo-org/app/actions/runs/',
    )
    expect(statusOf(gh)).toMatchObject({ state: 'success' })
    expect(first.summary).toMatch(
      /\| 🏁 Finalized \| it ended SUCCEEDED; its comment and commit status/,
    )
    expect(gh.comments(OWNER, REPO, PR)).toHaveLength(1)

    const writesBefore = writes(gh)
    const githubBefore = gh.requests.length
    const requestsBefore = api.requests.length
    const second = await reconcile(api, gh)

    expect(second.code).toBe(0)
    expect(JSON.parse(second.outputs.finalized ?? '')).toEqual([])
    expect(writes(gh)).toEqual(writesBefore)
    expect(second.summary).toMatch(/\| Up to date \| GitHub already shows its end/)
    // Listing is one request a page; an unchanged run costs no request of its own.
    const listed = api.requests.slice(requestsBefore).map((r) => `${r.method} ${r.path}`)
    expect(listed).toEqual(['GET /api/v1/agent/runs'])
    // GitHub: who the token is, and the repository's comments a page at a time; the comment at
    // its end vouches for the status, so no commit is read.
    expect(gh.requests.slice(githubBefore).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /user',
      'GET /repos/octo-org/app/issues/comments',
    ])
  })

  it('an agent that orchestrates: one pass finishes its run alone, never a child carrying its tags', async () => {
    const done: RunScript = [{ state: 'SUCCEEDED', afterMs: 0 }]
    const api = await fakeApi({
      script: (create) =>
        create.parent_run_id
          ? done
          : [
              { state: 'INPROGRESS', afterMs: 0, spawn: [{ script: done }, { script: done }] },
              { state: 'SUCCEEDED', afterMs: 100 },
            ],
    })
    const gh = await fakeGitHub()
    const detached = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', wait: 'false', comment: 'true' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })
    const runId = detached.outputs.run_id ?? ''
    await until(() => api.tree(runId).every((run) => run.state === 'SUCCEEDED'), 'the tree ended')
    expect(api.tree(runId)).toHaveLength(3)

    const pass = await reconcile(api, gh)

    expect(pass.code, pass.stdout).toBe(0)
    expect(JSON.parse(pass.outputs.finalized ?? '')).toEqual([runId])
    expect(gh.comments(OWNER, REPO, PR)).toHaveLength(1)
    expect(commentBody(gh)).toContain('<details><summary>The agent started 2 runs</summary>')
    for (const child of api.tree(runId).slice(1)) {
      expect(pass.stdout).not.toContain(`Run ${child.run_id}:`)
    }
  })

  it('dry_run: reports what it would finalize, and changes nothing', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const detached = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', wait: 'false', comment: 'true' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })
    const runId = detached.outputs.run_id ?? ''
    await until(() => api.run(runId)?.state === 'SUCCEEDED', 'the run has succeeded')
    const before = writes(gh)

    const dry = await reconcile(api, gh, { dry_run: 'true' })

    expect(dry.code).toBe(0)
    expect(writes(gh)).toEqual(before)
    expect(dry.summary).toContain('(dry run: nothing was changed)')
    expect(dry.summary).toMatch(/\| 🏁 Would finalize \|/)
    expect(JSON.parse(dry.outputs.finalized ?? '')).toEqual([])
    expect(commentBody(gh)).toContain('**Started**')
  })
})

describe('a detached set (tasks with wait: false), finished by a reconcile pass', () => {
  /** "quick …" succeeds at once; any other task works until it is cancelled. */
  const script = (create: { prompt?: string }) =>
    (create.prompt ?? '').startsWith('quick')
      ? [
          { state: 'QUEUED', afterMs: 0 },
          { state: 'SUCCEEDED', afterMs: 30 },
        ]
      : [
          { state: 'QUEUED', afterMs: 0 },
          { state: 'INPROGRESS', afterMs: 30 },
        ]

  it("leaves the set while a run goes; once the last ended, writes the set's end exactly once", async () => {
    const api = await fakeApi({ script })
    const gh = await fakeGitHub()
    const detached = await runStep({
      inputs: inputsFor(api, {
        tasks: JSON.stringify([{ prompt: 'quick: package a', title: 'Package a' }, 'long: b']),
        wait: 'false',
        pass_when: 'any',
        comment: 'true',
        commit_status: 'true',
        name: 'nightly',
      }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })
    expect(detached.code, detached.stdout).toBe(0)
    expect(detached.outputs.outcome).toBe('started')
    expect(commentBody(gh)).toContain('### 🚀 Cloud agent tasks: started')
    expect(statusOf(gh)).toMatchObject({ state: 'pending', context: 'cloud-agent/nightly' })
    const idOf = (prefix: string) =>
      api.allRuns().find((run) => run.prompt?.startsWith(prefix))?.run_id ?? ''
    const quickId = idOf('quick')
    const longId = idOf('long')
    await until(() => api.run(quickId)?.state === 'SUCCEEDED', 'the quick run has succeeded')
    await until(() => api.run(longId)?.state === 'INPROGRESS', 'the long run is working')

    const early = await reconcile(api, gh)

    expect(early.code, early.stdout).toBe(0)
    expect(JSON.parse(early.outputs.finalized ?? '')).toEqual([])
    expect(JSON.parse(early.outputs.swept ?? '')).toEqual([])
    expect(api.run(longId)?.state).toBe('INPROGRESS')
    expect(early.stdout).toContain(
      `Run ${quickId}: left: its set is still going (1 of its 2 runs): the pass that finds the last ended finishes the set`,
    )
    expect(early.stdout).toContain(
      `Run ${longId}: left: it is still running; a later pass finishes its set`,
    )
    expect(commentBody(gh)).toContain('### 🚀 Cloud agent tasks: started')
    expect(statusOf(gh)?.state).toBe('pending')

    // The long run ends (someone cancels it in its session).
    const cancelled = await fetch(`${api.baseUrl}/agent/runs/${longId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
    })
    expect(cancelled.ok).toBe(true)
    await until(() => api.run(longId)?.state === 'CANCELLED', 'the long run has ended')

    const pass = await reconcile(api, gh)

    expect(pass.code, pass.stdout).toBe(0)
    // The set is taken up once, by the first of its runs the pass lists.
    const finalized = JSON.parse(pass.outputs.finalized ?? '') as string[]
    expect(finalized).toHaveLength(1)
    expect([quickId, longId]).toContain(finalized[0])
    expect(pass.stdout).toMatch(
      /: finalized: its set ended succeeded \(1 of 2 runs succeeded\); its comment and commit status still showed the set started/,
    )
    expect(pass.stdout).toContain(
      `: up-to-date: its set's end was written in this pass, with run ${finalized[0]}`,
    )
    // The comment and status, as the step would have written them had it waited.
    const body = commentBody(gh)
    expect(body).toContain('### ✅ Cloud agent tasks: succeeded')
    expect(body).toContain('1 of 2 runs succeeded')
    expect(body).toContain('The step asked for at least one of 2 runs.')
    expect(body).toMatch(/\| 1 \| Package a \| ✅ succeeded \| SUCCEEDED \|/)
    expect(body).toMatch(/\| 2 \| long: b \| ⛔ cancelled \| CANCELLED \|/)
    expect(body).toContain('[Workflow run](https://github.com/octo-org/app/actions/runs/')
    expect(body).toMatch(/"outcome":"succeeded","done":2,"total":2/)
    expect(gh.comments(OWNER, REPO, PR)).toHaveLength(1)
    expect(statusOf(gh)).toMatchObject({
      state: 'success',
      context: 'cloud-agent/nightly',
      description: 'Succeeded: the step asked for at least one of 2 runs',
    })

    const writesBefore = writes(gh)
    const again = await reconcile(api, gh)

    expect(again.code).toBe(0)
    expect(JSON.parse(again.outputs.finalized ?? '')).toEqual([])
    expect(writes(gh)).toEqual(writesBefore)
    for (const runId of [quickId, longId]) {
      expect(again.stdout).toContain(`Run ${runId}: up-to-date: GitHub already shows its set's end`)
    }
  })
})

describeNeedsProcess('the sweep of a detached set', () => {
  /** Every run works until it is cancelled. */
  const working = () => [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 30 },
  ]
  const WORKFLOW_RUN = 9876543210

  it("cancels the runs a detached set's step created before its runner was lost, once its workflow run completed", async () => {
    const api = await fakeApi({ script: working })
    const gh = await fakeGitHub()
    const creates = /\/agent\/runs?$/
    // One create of the three is never answered: the step is still starting the set.
    api.injectFault({ method: 'POST', path: creates, fault: { kind: 'hang' } })
    const step = startStep({
      inputs: inputsFor(api, {
        tasks: '["long: a", "long: b", "long: c"]',
        wait: 'false',
        comment: 'true',
        commit_status: 'true',
        name: 'nightly',
      }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })
    await until(
      () => api.requestsTo('POST', creates).length === 3 && api.allRuns().length === 2,
      'two runs are created and the third create is held',
    )
    // The runner is lost while it starts the set: no hand-over, no post step.
    step.child.kill('SIGKILL')
    await step.result
    const runIds = api.allRuns().map((run) => run.run_id)
    await until(
      () => runIds.every((runId) => api.run(runId)?.state === 'INPROGRESS'),
      'both runs are working',
    )
    gh.setWorkflowRun(OWNER, REPO, WORKFLOW_RUN, { status: 'in_progress' })

    const early = await reconcile(api, gh)

    expect(early.code, early.stdout).toBe(0)
    expect(JSON.parse(early.outputs.swept ?? '')).toEqual([])
    for (const runId of runIds) {
      expect(api.run(runId)?.state).toBe('INPROGRESS')
      expect(early.stdout).toContain(
        `Run ${runId}: left: its step is still starting its set (workflow run in_progress)`,
      )
    }

    gh.setWorkflowRun(OWNER, REPO, WORKFLOW_RUN, { status: 'completed', conclusion: 'failure' })
    const pass = await reconcile(api, gh)

    expect(pass.code, pass.stdout).toBe(0)
    expect([...(JSON.parse(pass.outputs.swept ?? '') as string[])].sort()).toEqual(
      [...runIds].sort(),
    )
    for (const runId of runIds) {
      expect(api.run(runId)?.state).toBe('CANCELLED')
      expect(pass.stdout).toContain(
        `Run ${runId}: swept: it was still INPROGRESS after the workflow run of its set's step (${WORKFLOW_RUN}) completed before that step handed the set over: its runner was lost while it started the set`,
      )
    }
    const after = await reconcile(api, gh)
    expect(after.code, after.stdout).toBe(0)
    expect(JSON.parse(after.outputs.swept ?? '')).toEqual([])
  })
})

describeNeedsProcess('the sweep', () => {
  it("cancels a run whose waiting step's runner was lost, and says so in its comment", async () => {
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 50 },
      ],
    })
    const gh = await fakeGitHub()
    const env = eventEnv(gh, 'pull_request', pullRequestEvent)
    const step = startStep({
      inputs: inputsFor(api, { prompt: 'Review', comment: 'true', commit_status: 'true' }),
      env,
    })
    await step.printed(/is INPROGRESS/)
    await until(() => /In progress/.test(commentBody(gh)), 'the comment shows the run going')
    // The runner is lost: no signal, no post step.
    step.child.kill('SIGKILL')
    const main: StepResult = await step.result
    const runId = savedRun(main.state)?.runId ?? ''
    gh.setWorkflowRun(OWNER, REPO, 9876543210, { status: 'in_progress' })

    const early = await reconcile(api, gh)
    expect(early.code).toBe(0)
    expect(api.run(runId)?.state).toBe('INPROGRESS')
    expect(early.stdout).toContain(
      `Run ${runId}: left: its step waits for it (workflow run in_progress)`,
    )

    gh.setWorkflowRun(OWNER, REPO, 9876543210, { status: 'completed', conclusion: 'failure' })
    const pass = await reconcile(api, gh)

    expect(pass.code).toBe(0)
    expect(JSON.parse(pass.outputs.swept ?? '')).toEqual([runId])
    expect(api.run(runId)?.state).toBe('CANCELLED')
    expect(commentBody(gh)).toContain('**Cancelled**')
    expect(commentBody(gh)).toContain('The step that waited for this run lost its runner')
    expect(statusOf(gh)).toMatchObject({ state: 'error' })
    expect(pass.stdout).toContain(`Run ${runId}: swept:`)
  })

  it('an agent that orchestrates: its children are no runs of their own to sweep; the sweep cancels the tree', async () => {
    const working: RunScript = [{ state: 'INPROGRESS', afterMs: 0 }]
    const api = await fakeApi({
      script: (create) =>
        create.parent_run_id
          ? working
          : [
              {
                state: 'INPROGRESS',
                afterMs: 0,
                spawn: [{ script: working }, { script: working }],
              },
            ],
    })
    const gh = await fakeGitHub()
    const env = eventEnv(gh, 'pull_request', pullRequestEvent)
    const step = startStep({ inputs: inputsFor(api, { prompt: 'Review', comment: 'true' }), env })
    await step.printed(/is INPROGRESS/)
    step.child.kill('SIGKILL')
    const main: StepResult = await step.result
    const runId = savedRun(main.state)?.runId ?? ''
    gh.setWorkflowRun(OWNER, REPO, 9876543210, { status: 'completed', conclusion: 'failure' })

    const pass = await reconcile(api, gh)

    expect(pass.code, pass.stdout).toBe(0)
    expect(JSON.parse(pass.outputs.swept ?? '')).toEqual([runId])
    const [root, ...children] = api.tree(runId)
    expect(children).toHaveLength(2)
    expect([root, ...children].map((run) => run?.state)).toEqual([
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
    ])
    for (const child of children) expect(pass.stdout).not.toContain(`Run ${child.run_id}:`)
  })
})

describe('the sweep judges by the step that waits now', () => {
  const issueCommentEvent = {
    issue: { number: PR, pull_request: { url: 'x' } },
    comment: { body: '@agent once more', user: { login: 'octo-writer', type: 'User' } },
  }
  const FIRST_WORKFLOW_RUN = 9876543210
  const NEWER_WORKFLOW_RUN = 9876543299

  itNeedsProcess(
    "leaves a run a continue_run step in a newer workflow run awaits, and sweeps it once that step's runner is lost",
    async () => {
      const api = await fakeApi({
        script: () => [
          { state: 'QUEUED', afterMs: 0 },
          { state: 'SUCCEEDED', afterMs: 50 },
        ],
        followupScript: () => [{ state: 'INPROGRESS', afterMs: 0 }],
      })
      const gh = await fakeGitHub()
      gh.setRole(OWNER, REPO, 'octo-writer', 'write')
      const first = await runStep({
        inputs: inputsFor(api, { prompt: 'Review', comment: 'true' }),
        env: eventEnv(gh, 'pull_request', pullRequestEvent),
      })
      const runId = first.outputs.run_id ?? ''
      expect(first.outputs.outcome).toBe('succeeded')
      // The first step's workflow run is over (another of its jobs failed): it waits for nothing.
      gh.setWorkflowRun(OWNER, REPO, FIRST_WORKFLOW_RUN, {
        status: 'completed',
        conclusion: 'failure',
      })
      const answer = startStep({
        inputs: inputsFor(api, {
          prompt: 'Answer',
          followup: 'Once more',
          continue_run: 'true',
          comment: 'true',
        }),
        env: eventEnv(gh, 'issue_comment', issueCommentEvent, {
          GITHUB_RUN_ID: String(NEWER_WORKFLOW_RUN),
        }),
      })
      gh.setWorkflowRun(OWNER, REPO, NEWER_WORKFLOW_RUN, { status: 'in_progress' })
      await answer.printed(new RegExp(`Run ${runId} is INPROGRESS`))
      const reply = () => gh.comments(OWNER, REPO, PR)[1]?.body ?? ''
      await until(() => /In progress/.test(reply()), 'the answer shows the run going')

      const pass = await reconcile(api, gh)

      expect(pass.code).toBe(0)
      expect(api.run(runId)?.state).toBe('INPROGRESS')
      expect(JSON.parse(pass.outputs.swept ?? '')).toEqual([])
      expect(pass.stdout).toContain(
        `Run ${runId}: left: its step waits for it (workflow run in_progress)`,
      )

      // Now the continue_run step's runner is lost.
      answer.child.kill('SIGKILL')
      await answer.result
      gh.setWorkflowRun(OWNER, REPO, NEWER_WORKFLOW_RUN, {
        status: 'completed',
        conclusion: 'failure',
      })
      const sweep = await reconcile(api, gh)

      expect(JSON.parse(sweep.outputs.swept ?? '')).toEqual([runId])
      expect(api.run(runId)?.state).toBe('CANCELLED')
      expect(sweep.stdout).toContain(
        `Run ${runId}: swept: it was still INPROGRESS after the workflow run of the step waiting for it (${NEWER_WORKFLOW_RUN}) completed`,
      )
      expect(reply()).toContain('The step that waited for this run lost its runner')
      expect(reply()).toContain(`/actions/runs/${NEWER_WORKFLOW_RUN}`)
      expect(commentBody(gh)).toContain('**Succeeded**')
    },
  )

  it('leaves a run its step handed to a person (on_blocked: pass), once the person sets it working again', async () => {
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'BLOCKED', afterMs: 50 },
      ],
      followupScript: () => [{ state: 'INPROGRESS', afterMs: 0 }],
    })
    const gh = await fakeGitHub()
    const main = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', comment: 'true', on_blocked: 'pass' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })
    expect(main.code).toBe(0)
    expect(main.outputs.outcome).toBe('blocked')
    const runId = main.outputs.run_id ?? ''
    // Its job went on, and a later step of it failed.
    gh.setWorkflowRun(OWNER, REPO, FIRST_WORKFLOW_RUN, {
      status: 'completed',
      conclusion: 'failure',
    })
    // The person answers in the session: the run works again.
    const answered = await fetch(`${api.baseUrl}/agent/runs/${runId}/followups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Yes, go ahead' }),
    })
    expect(answered.status).toBe(200)
    expect(api.run(runId)?.state).toBe('INPROGRESS')

    const pass = await reconcile(api, gh)

    expect(pass.code).toBe(0)
    expect(api.run(runId)?.state).toBe('INPROGRESS')
    expect(JSON.parse(pass.outputs.swept ?? '')).toEqual([])
    expect(pass.stdout).toContain(
      `Run ${runId}: left: its latest step (workflow run ${FIRST_WORKFLOW_RUN}) ended on purpose (blocked) and let it run on`,
    )
  })

  it("leaves a set's task its step handed to a person (on_blocked: fail), once the person sets it working again", async () => {
    const api = await fakeApi({
      script: (create) =>
        (create.prompt ?? '').startsWith('ask')
          ? [
              { state: 'QUEUED', afterMs: 0 },
              { state: 'BLOCKED', afterMs: 50 },
            ]
          : [
              { state: 'QUEUED', afterMs: 0 },
              { state: 'SUCCEEDED', afterMs: 50 },
            ],
      followupScript: () => [{ state: 'INPROGRESS', afterMs: 0 }],
    })
    const gh = await fakeGitHub()
    const main = await runStep({
      inputs: inputsFor(api, {
        tasks: '["done: package a", "ask: package b"]',
        on_blocked: 'fail',
        comment: 'true',
      }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })
    // The set fails, as on_blocked: fail asks; its blocked task is left BLOCKED for a person.
    expect(main.code, main.stdout).toBe(1)
    expect(main.outputs.outcome).toBe('failed')
    const blocked = api.allRuns().find((run) => run.prompt?.startsWith('ask'))?.run_id ?? ''
    expect(api.run(blocked)?.state).toBe('BLOCKED')
    // Its job failed with it; a person then answers in the session, and the run works again.
    gh.setWorkflowRun(OWNER, REPO, FIRST_WORKFLOW_RUN, {
      status: 'completed',
      conclusion: 'failure',
    })
    const answered = await fetch(`${api.baseUrl}/agent/runs/${blocked}/followups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Yes, go ahead' }),
    })
    expect(answered.status).toBe(200)
    expect(api.run(blocked)?.state).toBe('INPROGRESS')

    const pass = await reconcile(api, gh)

    expect(pass.code, pass.stdout).toBe(0)
    expect(JSON.parse(pass.outputs.swept ?? '')).toEqual([])
    expect(api.run(blocked)?.state).toBe('INPROGRESS')
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    expect(pass.stdout).toContain(
      `Run ${blocked}: left: its set's step (workflow run ${FIRST_WORKFLOW_RUN}) handed it to a person (BLOCKED) and ended: it was not left behind`,
    )
  })

  itNeedsProcess(
    'sweeps the runs of a tasks step whose runner was lost, and tells the truth about them after',
    async () => {
      const api = await fakeApi({
        script: () => [
          { state: 'QUEUED', afterMs: 0 },
          { state: 'INPROGRESS', afterMs: 20 },
        ],
      })
      const gh = await fakeGitHub()
      const step = startStep({
        inputs: inputsFor(api, { tasks: '["one", "two"]', comment: 'true' }),
        env: eventEnv(gh, 'pull_request', pullRequestEvent),
      })
      await until(
        () => api.allRuns().filter((run) => run.state === 'INPROGRESS').length === 2,
        'both runs are working',
      )
      await until(
        () =>
          /Cloud agent tasks/.test(commentBody(gh)) &&
          /INPROGRESS|In progress/.test(commentBody(gh)),
        "the set's comment shows its runs going",
      )
      step.child.kill('SIGKILL')
      await step.result
      const runIds = api.allRuns().map((run) => run.run_id)
      gh.setWorkflowRun(OWNER, REPO, FIRST_WORKFLOW_RUN, {
        status: 'completed',
        conclusion: 'failure',
      })

      const pass = await reconcile(api, gh)

      expect([...(JSON.parse(pass.outputs.swept ?? '') as string[])].sort()).toEqual(
        [...runIds].sort(),
      )
      for (const runId of runIds) expect(api.run(runId)?.state).toBe('CANCELLED')
      expect(commentBody(gh)).toContain('Cloud agent tasks: interrupted')
      expect(commentBody(gh)).toContain('The step of this set lost its runner')
      expect(gh.comments(OWNER, REPO, PR)).toHaveLength(1)

      const after = await reconcile(api, gh)
      expect(after.stdout).not.toContain('older version')
      for (const runId of runIds) {
        expect(after.stdout).toContain(`Run ${runId}: left: it is a run of a \`tasks\` step`)
      }
    },
  )
})

describe('credit budgets', () => {
  it('creates nothing once the daily budget is reached, and names the budget, the sum and the window', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    for (const credits of [120, 90]) {
      api.seedRun(
        { prompt: 'earlier', metadata: { gh_repository: `${OWNER}/${REPO}` } },
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
    api.seedRun(
      { prompt: 'another repository', metadata: { gh_repository: 'octo-org/other' } },
      {
        script: [
          { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: 900 } } },
        ],
      },
    )

    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Nightly', daily_credit_budget: '200' }),
      env: eventEnv(gh, 'schedule', {}),
    })

    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('over_budget')
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(0)
    expect(result.stdout).toMatch(
      /::error::Over budget: the runs this action started for octo-org\/app in the last 24 hours \(since [^)]+\) used 210 credits, which has reached the daily_credit_budget of 200 credits/,
    )
    expect(result.summary).toContain('Over budget: no run was created')
  })

  it("counts a tree's spend, each run once: the children an agent started carry the project's tag", async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const spent = (credits: number): RunScript => [
      { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: credits } } },
    ]
    const root = api.seedRun(
      { prompt: 'lead', metadata: { gh_repository: `${OWNER}/${REPO}` } },
      { script: spent(100) },
    )
    for (const credits of [60, 60]) {
      api.seedRun({ prompt: 'worker', parent_run_id: root.run_id }, { script: spent(credits) })
    }

    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Nightly', daily_credit_budget: '200' }),
      env: eventEnv(gh, 'schedule', {}),
    })

    expect(result.code).toBe(1)
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(0)
    expect(result.stdout).toMatch(/used 220 credits, which has reached the daily_credit_budget/)
  })

  it('holds for a set of tasks too: nothing of the set is created', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    api.seedRun(
      { prompt: 'earlier', metadata: { gh_repository: `${OWNER}/${REPO}` } },
      {
        script: [
          { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: 300 } } },
        ],
      },
    )

    const result = await runStep({
      inputs: inputsFor(api, { tasks: '["one", "two"]', daily_credit_budget: '250' }),
      env: eventEnv(gh, 'schedule', {}),
    })

    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('over_budget')
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(0)
    expect(result.stdout).toContain('reached the daily_credit_budget of 250 credits')
  })
})

describe('pr_credit_budget counts every run the action started for the pull request', () => {
  /** Every run the fake starts ends at once, having used `credits`. */
  const spending = (credits: number) => ({
    script: () => [
      {
        state: 'SUCCEEDED',
        afterMs: 0,
        patch: { request_usage: { inference_cost: credits } },
      },
    ],
  })

  /** A step on the pull request with a pr_credit_budget of 100 credits. */
  function budgetedStep(api: FakeAgentApi, gh: FakeGitHub) {
    return runStep({
      inputs: inputsFor(api, { prompt: 'Another look', pr_credit_budget: '100' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })
  }

  it('the runs of a tasks step on the pull request', async () => {
    const api = await fakeApi(spending(60))
    const gh = await fakeGitHub()
    const set = await runStep({
      inputs: inputsFor(api, { tasks: '["one", "two"]' }),
      env: eventEnv(gh, 'pull_request', pullRequestEvent),
    })
    expect(set.outputs.outcome).toBe('succeeded')

    const result = await budgetedStep(api, gh)

    expect(result.outputs.outcome).toBe('over_budget')
    expect(result.stdout).toContain(
      `the runs this action started for pull request #${PR} of ${OWNER}/${REPO} (all of them, whenever they ran) used 120 credits, which has reached the pr_credit_budget of 100 credits`,
    )
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(2)
  })

  it('the runs started from a review comment on the pull request', async () => {
    const api = await fakeApi(spending(150))
    const gh = await fakeGitHub()
    const review = await runStep({
      inputs: inputsFor(api, { prompt: 'Answer the review comment' }),
      env: eventEnv(gh, 'pull_request_review_comment', {
        ...pullRequestEvent,
        comment: { user: { login: 'octocat' }, body: 'Why this?' },
      }),
    })
    expect(review.outputs.outcome).toBe('succeeded')

    const result = await budgetedStep(api, gh)

    expect(result.outputs.outcome).toBe('over_budget')
    expect(result.stdout).toContain('used 150 credits, which has reached the pr_credit_budget')
  })
})

describe('daily_credit_budget over a day longer than the check reads', () => {
  it('refuses and says why, rather than count the newest 2,000 runs as the whole day', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const ours = { gh_repository: `${OWNER}/${REPO}` }
    api.seedRun(
      { prompt: 'the expensive one', metadata: ours },
      {
        createdAt: Date.now() - 60 * 60_000,
        script: [
          { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: 500 } } },
        ],
      },
    )
    for (let i = 0; i < 2_000; i += 1) {
      api.seedRun(
        { prompt: `cheap ${i}`, metadata: ours },
        { script: [{ state: 'SUCCEEDED', afterMs: 0 }] },
      )
    }

    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Nightly', daily_credit_budget: '100' }),
      env: eventEnv(gh, 'schedule', {}),
    })

    expect(result.code).toBe(1)
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(0)
    expect(result.stdout).toContain('used at least 0 credits of 100 credits.')
    expect(result.stdout).toMatch(
      /::error::daily_credit_budget cannot be checked: .* is longer than the 20 pages the check reads/,
    )
  })
})

describe('bad input to reconcile', () => {
  it('names github_token when it is empty, before any request', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()

    const result = await reconcile(api, gh, { github_token: '' })

    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/::error::.*github_token.* is required by reconcile/)
    expect(result.stdout.replace(/^::add-mask::.*$/gm, '')).not.toContain(KEY)
    expect(api.requests).toHaveLength(0)
    expect(gh.requests).toHaveLength(0)
  })

  it('names lookback when it is not a duration, before any request', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()

    const result = await reconcile(api, gh, { lookback: 'yesterday' })

    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/::error::.*lookback/)
    expect(api.requests).toHaveLength(0)
    expect(gh.requests).toHaveLength(0)
  })
})
