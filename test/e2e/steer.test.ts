/**
 * previous_run: steer end to end (issue 28): a second push steers the live run of its key
 * instead of paying for a new one, and falls back to cancel + create, in one line, when the
 * run cannot be steered. Two steps in sequence against the fake API and the fake GitHub.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import type { CreateRunRequest } from '../../src/api/types.ts'
import type { FakeAgentApi, FaultRule, RunScript } from '../fake-api/server.ts'
import type { FakeGitHub, WorkflowRunSeed } from '../fake-github/server.ts'
import { runPostStep, runStep, startStep, until } from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'

const KEY = 'sk-steer-e2e'
const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
const [OLD, MIDDLE, NEW, FORCED] = ['a', 'b', 'c', 'd'].map((c) => c.repeat(40)) as [
  string,
  string,
  string,
  string,
]
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY)

/** A review that works until it is steered, then ends once its new pass has run. */
const working: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]
const newPass: RunScript = [
  { state: 'INPROGRESS', afterMs: 0 },
  { state: 'SUCCEEDED', afterMs: 300 },
]

/** A push to the pull request: GitHub's `synchronize` event with the new head. */
const pushEvent = (gh: FakeGitHub, sha: string, extra: Record<string, string> = {}) =>
  eventEnv(
    gh,
    'pull_request',
    {
      action: 'synchronize',
      pull_request: { number: PR, head: { sha } },
      sender: { login: 'octo-writer', type: 'User' },
    },
    extra,
  )

/** The agent harness a run uses, as its config names it. */
type Harness = NonNullable<NonNullable<CreateRunRequest['config']>['harness']>['type']

async function twoPushes(
  options: {
    history?: 'linear' | 'forced'
    harness?: Harness
    /** The first run's script: by default, it works until it is steered. */
    first?: RunScript
    /** Faults for the second step's requests. */
    faults?: FaultRule[]
    /** The steered run's new pass: by default, it ends soon. */
    followup?: RunScript
    /** More inputs of the second step. */
    second?: Record<string, string>
  } = {},
) {
  // The first push's run works until steered; a run created later (a fallback's) just works.
  let creates = 0
  const api = await fakeApi({
    script: () => {
      creates += 1
      if (creates > 1) return newPass
      return options.first ?? working
    },
    followupScript: () => options.followup ?? newPass,
  })
  const gh = await fakeGitHub()
  gh.setHistory(OWNER, REPO, [
    { sha: OLD, message: 'Add the parser' },
    { sha: MIDDLE, message: 'Fix the parser\n\nWith a body.' },
    { sha: NEW, message: 'Test the parser' },
  ])
  if (options.history === 'forced')
    gh.setHistory(OWNER, REPO, [{ sha: FORCED, message: 'Rewrite' }])
  gh.setPullRequest(OWNER, REPO, PR, { headSha: OLD })
  const review = { prompt: 'Review this pull request', name: 'pr-7-review' }
  // The first push's step hands its run over (wait: false), so it is live when the second comes.
  // The harness input: the service keeps the run's config, and refuses to interrupt another than oz.
  const harness: Record<string, string> = options.harness ? { harness: options.harness } : {}
  const first = await runStep({
    inputs: inputsFor(api, { ...review, ...harness, wait: 'false' }),
    env: pushEvent(gh, OLD),
  })
  expect(first.code, first.stdout).toBe(0)
  const head = options.history === 'forced' ? FORCED : NEW
  gh.moveHead(OWNER, REPO, PR, head)
  await untilState(api, first.outputs.run_id ?? '', options.first?.[0]?.state ?? 'INPROGRESS')
  for (const fault of options.faults ?? []) api.injectFault(fault)
  const second = await runStep({
    inputs: inputsFor(api, { ...review, previous_run: 'steer', ...options.second }),
    env: pushEvent(gh, head),
  })
  return { api, gh, first, second }
}

/** Resolves once the fake shows the run in `state`; the harness's far bound is for a hang. */
async function untilState(api: FakeAgentApi, runId: string, state: string): Promise<void> {
  await until(() => api.run(runId)?.state === state, `run ${runId} became ${state}`)
}

describe('previous_run: steer', () => {
  it('a second push steers the live run: interrupt, one follow-up saying what changed, no new run', async () => {
    const { api, first, second } = await twoPushes()
    expect(second.code, second.stdout).toBe(0)
    const runId = first.outputs.run_id ?? ''
    expect(second.outputs).toMatchObject({ run_id: runId, steered: 'true', outcome: 'succeeded' })
    expect(first.outputs.steered).toBe('false')
    // One run for the key: the second step created none.
    expect(api.allRuns()).toHaveLength(1)
    expect(api.interrupts(runId)).toBe(1)
    const [followup = ''] = api.followups(runId)
    expect(api.followups(runId)).toHaveLength(1)
    expect(followup).toMatch(/^Review this pull request\n/)
    expect(followup).toContain(`The new head: ${NEW}`)
    expect(followup).toContain(`The head you were working on: ${OLD}`)
    expect(followup).toContain(`${MIDDLE.slice(0, 12)} Fix the parser`)
    expect(followup).toContain(`${NEW.slice(0, 12)} Test the parser`)
    expect(followup).not.toContain('With a body.')
    expect(followup).toMatch(/only what changed since the head you were working on/)
    expect(second.stdout).toMatch(
      new RegExp(
        `previous_run: steer: interrupted run ${runId} and sent it this step's work, on ${NEW.slice(0, 12)} now`,
      ),
    )
  })

  it('an agent that orchestrates: its children, newer and carrying its tags, are never steered; the run is', async () => {
    const child: RunScript = [{ state: 'INPROGRESS', afterMs: 0 }]
    const orchestrating: RunScript = [
      { state: 'INPROGRESS', afterMs: 0, spawn: [{ script: child }, { script: child }] },
    ]
    const { api, first, second } = await twoPushes({ first: orchestrating })
    expect(second.code, second.stdout).toBe(0)
    const runId = first.outputs.run_id ?? ''
    expect(second.outputs).toMatchObject({ run_id: runId, steered: 'true' })
    const children = api.tree(runId).slice(1)
    expect(children).toHaveLength(2)
    expect(api.allRuns()).toHaveLength(3)
    // Not steered, and not cancelled as a second run of the key either (one run per key).
    for (const { run_id: childId, state } of children) {
      expect(api.interrupts(childId)).toBe(0)
      expect(api.followups(childId)).toEqual([])
      expect(state).toBe('INPROGRESS')
    }
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    expect(api.followups(runId)).toHaveLength(1)
  })

  it('a steered run that works to the timeout: timed_out, never first "taking INPROGRESS as its outcome"', async () => {
    const { api, first, second } = await twoPushes({
      followup: [{ state: 'INPROGRESS', afterMs: 0 }],
      second: { timeout: '3s' },
    })
    expect(second.outputs).toMatchObject({ steered: 'true', outcome: 'timed_out' })
    expect(second.stdout).not.toMatch(/was never seen leaving|as its outcome/)
    expect(api.run(first.outputs.run_id ?? '')?.state).toBe('CANCELLED')
  })

  it('a force push falls back to cancel + create, saying why in one line', async () => {
    const { api, first, second } = await twoPushes({ history: 'forced' })
    expect(second.code, second.stdout).toBe(0)
    const oldRun = first.outputs.run_id ?? ''
    expect(second.outputs.steered).toBe('false')
    expect(second.outputs.run_id).not.toBe(oldRun)
    expect(api.run(oldRun)?.state).toBe('CANCELLED')
    expect(api.interrupts(oldRun)).toBe(0)
    expect(api.followups(oldRun)).toHaveLength(0)
    expect(api.allRuns()).toHaveLength(2)
    expect(second.stdout).toContain(
      `previous_run: steer: run ${oldRun} cannot be steered (the head it worked on (${OLD.slice(0, 12)}) is not an ancestor of ${FORCED.slice(0, 12)}: a force push); cancelling it and creating a new run.`,
    )
  })

  it('a harness that cannot be interrupted falls back to cancel + create', async () => {
    const { api, first, second } = await twoPushes({ harness: 'claude' })
    expect(second.code, second.stdout).toBe(0)
    const oldRun = first.outputs.run_id ?? ''
    expect(second.outputs.steered).toBe('false')
    expect(api.run(oldRun)?.state).toBe('CANCELLED')
    expect(api.followups(oldRun)).toHaveLength(0)
    expect(second.stdout).toMatch(
      new RegExp(
        `run ${oldRun} cannot be steered \\(the service refused the interrupt: .*cannot be interrupted`,
      ),
    )
  })

  it('a follow-up refused after the interrupt: the run is cancelled, never left idle, and one is created', async () => {
    const refused = {
      method: 'POST',
      path: /\/followups$/,
      fault: {
        kind: 'status' as const,
        status: 422,
        body: {
          type: 'about:blank',
          title: 'Unprocessable',
          status: 422,
          detail: 'The session is gone.',
        },
      },
    }
    const { api, first, second } = await twoPushes({ faults: [refused] })
    expect(second.code, second.stdout).toBe(0)
    const oldRun = first.outputs.run_id ?? ''
    expect(api.interrupts(oldRun)).toBe(1)
    expect(api.run(oldRun)?.state).toBe('CANCELLED')
    expect(second.outputs.steered).toBe('false')
    expect(second.outputs.run_id).not.toBe(oldRun)
    expect(api.allRuns()).toHaveLength(2)
    expect(second.stdout).toMatch(
      new RegExp(`run ${oldRun} cannot be steered \\(the service refused the follow-up: `),
    )
  })

  it('an interrupt that took effect but whose every answer is a 503: the follow-up goes all the same, never an idle run', async () => {
    // The first try stops the agent's turn; it and every retry answer 503, however many there are.
    const lost = (act: boolean, times: number): FaultRule => ({
      method: 'POST',
      path: /\/interrupt$/,
      times,
      fault: { kind: 'status', status: 503, act },
    })
    const { api, first, second } = await twoPushes({
      faults: [lost(true, 1), lost(false, Infinity)],
    })
    const runId = first.outputs.run_id ?? ''
    // The cause: the interrupt landed, and the step never got an answer that said so.
    expect(api.interrupts(runId)).toBe(1)
    const answers = api.requests.filter((request) => /\/interrupt$/.test(request.path))
    expect(answers.length).toBeGreaterThan(0)
    expect(answers.every((request) => request.response?.status === 503)).toBe(true)
    // The rule: the run got this step's work, and is this step's run; nothing else was made.
    expect(second.code, second.stdout).toBe(0)
    expect(second.outputs).toMatchObject({ run_id: runId, steered: 'true', outcome: 'succeeded' })
    expect(api.followups(runId)).toHaveLength(1)
    expect(api.allRuns()).toHaveLength(1)
    expect(api.run(runId)?.state).toBe('SUCCEEDED')
    expect(second.stdout).toMatch(
      new RegExp(
        `previous_run: steer: the answer to the interrupt of run ${runId} was lost \\(.*503.*\\); it may have stopped the run's turn, so the step sends it this step's work all the same\\.`,
      ),
    )
  })

  it('a run not started yet takes the follow-up into its prompt, with no interrupt', async () => {
    const queued: RunScript = [
      { state: 'QUEUED', afterMs: 0 },
      // It starts only once a step reads it: the second step, after steering it.
      { state: 'INPROGRESS', afterMs: 50, afterSeen: true },
      { state: 'SUCCEEDED', afterMs: 300 },
    ]
    const { api, first, second } = await twoPushes({ first: queued })
    expect(second.code, second.stdout).toBe(0)
    const runId = first.outputs.run_id ?? ''
    expect(second.outputs).toMatchObject({ run_id: runId, steered: 'true', outcome: 'succeeded' })
    expect(api.interrupts(runId)).toBe(0)
    expect(api.followups(runId)).toHaveLength(1)
    expect(api.allRuns()).toHaveLength(1)
  })

  it('with no live run of the key, creates one and says so', async () => {
    const api = await fakeApi({ script: () => newPass })
    const gh = await fakeGitHub()
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', name: 'pr-7-review', previous_run: 'steer' }),
      env: pushEvent(gh, NEW),
    })
    expect(result.code, result.stdout).toBe(0)
    expect(result.outputs.steered).toBe('false')
    expect(api.allRuns()).toHaveLength(1)
    expect(result.stdout).toContain(
      'previous_run: steer: no run of the key "pr-7-review" is on its way on this thread; creating one.',
    )
  })

  it('the older step, cancelled for a newer push, hands the run over: no cancel, superseded, and the newer step steers it', async () => {
    let creates = 0
    const api = await fakeApi({
      script: () => ((creates += 1) === 1 ? working : newPass),
      followupScript: () => newPass,
    })
    const gh = await fakeGitHub()
    gh.setHistory(OWNER, REPO, [
      { sha: OLD, message: 'Add the parser' },
      { sha: NEW, message: 'Test the parser' },
    ])
    gh.setPullRequest(OWNER, REPO, PR, { headSha: OLD })
    const review = {
      prompt: 'Review this pull request',
      name: 'pr-7-review',
      previous_run: 'steer',
      commit_status: 'true',
    }
    const older = startStep({ inputs: inputsFor(api, review), env: pushEvent(gh, OLD) })
    await older.printed(/Created run (run_\S+)/)
    const runId = api.allRuns()[0]?.run_id ?? ''
    await untilState(api, runId, 'INPROGRESS')
    // A push, and the workflow's concurrency group cancels the older job.
    gh.moveHead(OWNER, REPO, PR, NEW)
    older.child.kill('SIGINT')
    const main = await older.result
    expect(main.outputs.outcome, main.stdout).toBe('superseded')
    expect(main.code).toBe(0)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    expect(main.stdout).toContain(
      "A newer step for this thread steers the run now (the pull request's head moved on to cccccccccccc); handing it over, not cancelling it.",
    )
    // Handing over is no trouble: no warning (the run's work is the newer step's to read).
    expect(main.stdout).not.toMatch(/::warning::/)
    expect(api.requestsTo('GET', /\/conversation$/)).toHaveLength(0)
    // Its commit status on the old head is complete, never left pending.
    const status = gh.statuses(OWNER, REPO, OLD).at(-1)
    expect(status?.state).toBe('success')
    expect(status?.description).toMatch(/Handed to a newer step/)
    // Its post step owes nothing: the run is the newer step's.
    const post = await runPostStep(main, { inputs: inputsFor(api, review) })
    expect(post.code).toBe(0)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    const newer = await runStep({ inputs: inputsFor(api, review), env: pushEvent(gh, NEW) })
    expect(newer.outputs).toMatchObject({ run_id: runId, steered: 'true', outcome: 'succeeded' })
    expect(api.allRuns()).toHaveLength(1)
  })

  /**
   * An older step cancelled while the pull request's head has not moved (GitHub's read lag, a
   * re-run): whether a newer workflow run of its workflow for the pull request is going decides.
   */
  async function cancelledWith(newer: WorkflowRunSeed) {
    const api = await fakeApi({ script: () => working })
    const gh = await fakeGitHub()
    gh.setPullRequest(OWNER, REPO, PR, { headSha: OLD })
    // The harness's step runs in workflow run 9876543210.
    gh.setWorkflowRun(OWNER, REPO, 9876543210, { status: 'in_progress', pullRequests: [PR] })
    gh.setWorkflowRun(OWNER, REPO, 9876543211, newer)
    const review = { prompt: 'Review', name: 'pr-7-review', previous_run: 'steer' }
    const older = startStep({ inputs: inputsFor(api, review), env: pushEvent(gh, OLD) })
    await older.printed(/Created run (run_\S+)/)
    await untilState(api, api.allRuns()[0]?.run_id ?? '', 'INPROGRESS')
    older.child.kill('SIGINT')
    return { api, main: await older.result }
  }

  it('a newer workflow run of the same workflow for the thread, still going, is enough to hand over', async () => {
    const { api, main } = await cancelledWith({ status: 'queued', pullRequests: [PR] })
    expect(main.outputs.outcome, main.stdout).toBe('superseded')
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    expect(main.stdout).toContain(
      'A newer step for this thread steers the run now (a newer workflow run of this workflow for the pull request, 9876543211, is queued); handing it over, not cancelling it.',
    )
  })

  it('a cancel with no newer push and no newer workflow run still going (a person) cancels the run', async () => {
    const { api, main } = await cancelledWith({
      status: 'completed',
      conclusion: 'success',
      pullRequests: [PR],
    })
    expect(main.outputs.outcome, main.stdout).toBe('interrupted')
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(1)
    expect(main.stdout).not.toContain('handing it over')
  })

  it('wait: false steers and returns; a reconcile pass finishes the comment and the status on the new head', async () => {
    let creates = 0
    const api = await fakeApi({
      script: () => ((creates += 1) === 1 ? working : newPass),
      followupScript: () => newPass,
    })
    const gh = await fakeGitHub()
    gh.setHistory(OWNER, REPO, [
      { sha: OLD, message: 'Add the parser' },
      { sha: NEW, message: 'Test the parser' },
    ])
    gh.setPullRequest(OWNER, REPO, PR, { headSha: OLD })
    const review = {
      prompt: 'Review this pull request',
      name: 'pr-7-review',
      previous_run: 'steer',
      wait: 'false',
      comment: 'true',
      commit_status: 'true',
    }
    const first = await runStep({ inputs: inputsFor(api, review), env: pushEvent(gh, OLD) })
    const runId = first.outputs.run_id ?? ''
    await untilState(api, runId, 'INPROGRESS')
    gh.moveHead(OWNER, REPO, PR, NEW)
    const second = await runStep({ inputs: inputsFor(api, review), env: pushEvent(gh, NEW) })
    expect(second.code, second.stdout).toBe(0)
    expect(second.outputs).toMatchObject({ run_id: runId, steered: 'true', outcome: 'started' })
    expect(gh.statuses(OWNER, REPO, NEW).at(-1)?.state).toBe('pending')
    await untilState(api, runId, 'SUCCEEDED')

    const pass = await runStep({
      action: 'reconcile',
      inputs: { api_key: KEY, base_url: api.baseUrl },
      env: eventEnv(gh, 'schedule', {}),
    })

    expect(pass.code, pass.stdout).toBe(0)
    expect(JSON.parse(pass.outputs.finalized ?? '')).toEqual([runId])
    expect(api.allRuns()).toHaveLength(1)
    // The steering step's status, on the head the run now works on, is brought to its end.
    expect(gh.statuses(OWNER, REPO, NEW).at(-1)).toMatchObject({ state: 'success' })
    expect(gh.statuses(OWNER, REPO, OLD).at(-1)?.state).not.toBe('pending')
    const [comment] = gh.comments(OWNER, REPO, PR)
    expect(comment?.body).toContain('**Succeeded**')
    expect(gh.comments(OWNER, REPO, PR)).toHaveLength(1)
  })

  describe('the reconcile sweep and a steered run', () => {
    const OLDER_WORKFLOW_RUN = 9876543210
    const NEWER_WORKFLOW_RUN = 9876543211

    /**
     * The older step (workflow run 9876543210) hands its run over on a push and its workflow
     * run completes cancelled; the newer step (9876543211) steers the run and awaits it.
     */
    async function handedOver(inputs: Record<string, string>) {
      const api = await fakeApi({
        script: () => working,
        followupScript: () => [{ state: 'INPROGRESS', afterMs: 0 }],
      })
      const gh = await fakeGitHub()
      gh.setHistory(OWNER, REPO, [
        { sha: OLD, message: 'Add the parser' },
        { sha: NEW, message: 'Test the parser' },
      ])
      gh.setPullRequest(OWNER, REPO, PR, { headSha: OLD })
      gh.setWorkflowRun(OWNER, REPO, OLDER_WORKFLOW_RUN, {
        status: 'in_progress',
        pullRequests: [PR],
      })
      const review = { prompt: 'Review', name: 'pr-7-review', previous_run: 'steer', ...inputs }
      const older = startStep({ inputs: inputsFor(api, review), env: pushEvent(gh, OLD) })
      await older.printed(/Created run (run_\S+)/)
      const runId = api.allRuns()[0]?.run_id ?? ''
      await untilState(api, runId, 'INPROGRESS')
      gh.moveHead(OWNER, REPO, PR, NEW)
      gh.setWorkflowRun(OWNER, REPO, NEWER_WORKFLOW_RUN, {
        status: 'in_progress',
        pullRequests: [PR],
      })
      older.child.kill('SIGINT')
      expect((await older.result).outputs.outcome).toBe('superseded')
      gh.setWorkflowRun(OWNER, REPO, OLDER_WORKFLOW_RUN, {
        status: 'completed',
        conclusion: 'cancelled',
        pullRequests: [PR],
      })
      const newer = startStep({
        inputs: inputsFor(api, review),
        env: pushEvent(gh, NEW, { GITHUB_RUN_ID: String(NEWER_WORKFLOW_RUN) }),
      })
      await newer.printed(/awaiting it as this step's run/)
      return { api, gh, runId, newer }
    }

    const sweep = (api: FakeAgentApi, gh: FakeGitHub) =>
      runStep({
        action: 'reconcile',
        inputs: { api_key: KEY, base_url: api.baseUrl },
        env: eventEnv(gh, 'schedule', {}),
      })

    it.each([
      [
        "with comment: true, by the newer step's record in the comment",
        { comment: 'true', commit_status: 'true' },
        'its step waits for it (workflow run in_progress)',
      ],
      [
        "without a comment, by the workflow's newer run",
        {},
        `its step's workflow run was cancelled, and a newer workflow run of the same workflow for its pull request (${NEWER_WORKFLOW_RUN}) is in_progress: a step there may steer it (previous_run: steer)`,
      ],
    ])(
      "leaves it while the newer step is alive, though the older step's workflow run completed, and sweeps it once the newer step's runner is lost too (%s)",
      async (_, inputs: Record<string, string>, why) => {
        const { api, gh, runId, newer } = await handedOver(inputs)
        if (inputs.comment) {
          const shown = () => gh.comments(OWNER, REPO, PR)[0]?.body ?? ''
          await until(
            () => shown().includes(`/actions/runs/${NEWER_WORKFLOW_RUN}`),
            "the comment shows the newer step's workflow run",
          )
        }

        const left = await sweep(api, gh)

        expect(left.code, left.stdout).toBe(0)
        expect(JSON.parse(left.outputs.swept ?? '')).toEqual([])
        expect(api.run(runId)?.state).toBe('INPROGRESS')
        expect(left.stdout).toContain(`Run ${runId}: left: ${why}`)

        // The newer step's runner is lost: its workflow run completes without it.
        gh.setWorkflowRun(OWNER, REPO, NEWER_WORKFLOW_RUN, {
          status: 'completed',
          conclusion: 'failure',
          pullRequests: [PR],
        })
        const swept = await sweep(api, gh)

        expect(JSON.parse(swept.outputs.swept ?? '')).toEqual([runId])
        expect(api.run(runId)?.state).toBe('CANCELLED')
        if (inputs.commit_status) {
          // The newer step's status, on the head the run worked on last, says why it ended.
          expect(gh.statuses(OWNER, REPO, NEW).map((status) => status.description)).toContain(
            `Cancelled: its step's runner was lost (run ${runId})`,
          )
        }
        await newer.result
      },
    )
  })

  describe("exactly one run per key, whatever the order of two steps' requests", () => {
    /** A review that ends on its own, unless it is interrupted (then its follow-up ends it). */
    // Long enough that the younger step looks for the key's runs again (after its create) before
    // its own run could end, on a machine loaded well past its two cores: a run that ended first
    // cannot be cancelled, and two would be left.
    const reviewing: RunScript = [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 50 },
      { state: 'SUCCEEDED', afterMs: 8_000 },
    ]
    const review = {
      prompt: 'Review this pull request',
      name: 'pr-7-review',
      previous_run: 'steer',
    }

    /** The key's runs that were not cancelled: exactly one is the promise. */
    const survivors = (api: FakeAgentApi) =>
      api.allRuns().filter((run) => api.run(run.run_id)?.state !== 'CANCELLED')

    it('a step that finds two runs of the key going steers the oldest and cancels the newer', async () => {
      const api = await fakeApi({ script: () => working, followupScript: () => newPass })
      const gh = await fakeGitHub()
      gh.setHistory(OWNER, REPO, [
        { sha: OLD, message: 'Add the parser' },
        { sha: NEW, message: 'Test the parser' },
      ])
      gh.setPullRequest(OWNER, REPO, PR, { headSha: OLD })
      // Two detached steps that kept what they found: two runs of the key, the first the oldest.
      const kept = { ...review, previous_run: 'keep', wait: 'false' }
      const older = await runStep({ inputs: inputsFor(api, kept), env: pushEvent(gh, OLD) })
      const newer = await runStep({ inputs: inputsFor(api, kept), env: pushEvent(gh, OLD) })
      const [oldest, second] = [older.outputs.run_id ?? '', newer.outputs.run_id ?? '']
      await untilState(api, oldest, 'INPROGRESS')
      await untilState(api, second, 'INPROGRESS')
      gh.moveHead(OWNER, REPO, PR, NEW)
      const steering = await runStep({ inputs: inputsFor(api, review), env: pushEvent(gh, NEW) })
      expect(steering.outputs, steering.stdout).toMatchObject({ run_id: oldest, steered: 'true' })
      expect(api.run(second)?.state).toBe('CANCELLED')
      expect(api.run(oldest)?.state).toBe('SUCCEEDED')
      expect(steering.stdout).toContain(
        `previous_run: steer: run ${second} is a newer run of the same key than run ${oldest}; cancelling it, so that the key has one run.`,
      )
    })

    it('two steps that find no run and create at the same moment: the older run wins, the other step steers it and cancels its own', async () => {
      const api = await fakeApi({ script: () => reviewing, followupScript: () => newPass })
      const gh = await fakeGitHub()
      gh.setHistory(OWNER, REPO, [{ sha: NEW, message: 'Test the parser' }])
      gh.setPullRequest(OWNER, REPO, PR, { headSha: NEW })
      // Both creates are held, so that they land at the same moment; and the list shows no run
      // until both have come (the index lags), so that each step has looked for a run and found
      // none first, however late a loaded machine starts the second step.
      api.injectFault({
        method: 'POST',
        path: '/agent/run',
        times: 2,
        fault: { kind: 'delay', ms: 300 },
      })
      api.lagList(() => api.requestsTo('POST', '/agent/run').length < 2)
      const steps = [0, 1].map(() =>
        startStep({ inputs: inputsFor(api, review), env: pushEvent(gh, NEW) }),
      )
      const [a, b] = await Promise.all(steps.map((step) => step.result))
      expect(a?.code, a?.stdout).toBe(0)
      expect(b?.code, b?.stdout).toBe(0)
      expect(api.requestsTo('POST', '/api/v1/agent/run')).toHaveLength(2)
      const [kept] = survivors(api)
      expect(survivors(api)).toHaveLength(1)
      expect(api.run(kept?.run_id ?? '')?.state).toBe('SUCCEEDED')
      // Both steps report that one run; the one that gave its own up steered it.
      expect([a?.outputs.run_id, b?.outputs.run_id]).toEqual([kept?.run_id, kept?.run_id])
      expect([a?.outputs.steered, b?.outputs.steered].sort()).toEqual(['false', 'true'])
      expect(`${a?.stdout}${b?.stdout}`).toContain(
        `previous_run: steer: run ${kept?.run_id} of the same key was created before this step's run`,
      )
    })

    it('a list that shows the runs only late (read-after-write lag): the step of the younger run finds the older on a later look, steers it and cancels its own', async () => {
      // Each run works until it is steered: two runs left would go on to the timeout.
      const api = await fakeApi({ script: () => working, followupScript: () => newPass })
      const gh = await fakeGitHub()
      gh.setHistory(OWNER, REPO, [{ sha: NEW, message: 'Test the parser' }])
      gh.setPullRequest(OWNER, REPO, PR, { headSha: NEW })
      // The service's index is behind its writes: its list shows no run until the test says so.
      api.lagList(() => true)
      const steps = [0, 1].map(() =>
        startStep({
          inputs: inputsFor(api, { ...review, timeout: '20s' }),
          env: pushEvent(gh, NEW),
        }),
      )
      const polls = (runId: string) => api.requestsTo('GET', `/agent/runs/${runId}`).length
      await until(
        () => api.allRuns().length === 2 && api.allRuns().every((run) => polls(run.run_id) >= 4),
        'both steps poll their own runs',
      )
      // The cause: both steps looked after their create, saw no other run, and kept their own.
      expect(survivors(api)).toHaveLength(2)
      const listsSoFar = api.requestsTo('GET', '/agent/runs').length
      api.lagList(undefined)
      const [a, b] = await Promise.all(steps.map((step) => step.result))
      expect(a?.code, a?.stdout).toBe(0)
      expect(b?.code, b?.stdout).toBe(0)
      // The rule: found however late, by a look after the lag ended, and one run is left.
      expect(api.requestsTo('GET', '/agent/runs').length).toBeGreaterThan(listsSoFar)
      const [older, younger] = [...api.allRuns()].reverse()
      expect(survivors(api).map((run) => run.run_id)).toEqual([older?.run_id])
      expect(api.run(older?.run_id ?? '')?.state).toBe('SUCCEEDED')
      expect(api.run(younger?.run_id ?? '')?.state).toBe('CANCELLED')
      expect([a?.outputs.run_id, b?.outputs.run_id]).toEqual([older?.run_id, older?.run_id])
      expect([a?.outputs.steered, b?.outputs.steered].sort()).toEqual(['false', 'true'])
      expect(`${a?.stdout}${b?.stdout}`).toContain(
        `previous_run: steer: run ${older?.run_id} of the same key was created before this step's run ${younger?.run_id}, by another step (the list shows it only now); steering it and cancelling run ${younger?.run_id}, so that the key has one run.`,
      )
    })

    it('a list that refuses every look after the create (429, Retry-After an hour) never holds the wait: the run is seen ending', async () => {
      const api = await fakeApi({
        script: () => [
          { state: 'QUEUED', afterMs: 0 },
          { state: 'INPROGRESS', afterMs: 100 },
          { state: 'SUCCEEDED', afterMs: 600 },
        ],
      })
      const gh = await fakeGitHub()
      gh.setHistory(OWNER, REPO, [{ sha: NEW, message: 'Test the parser' }])
      gh.setPullRequest(OWNER, REPO, PR, { headSha: NEW })
      const list = { method: 'GET', path: '/agent/runs' }
      // The look before the create is answered; every look after it is refused.
      api.injectFault({ ...list, times: 1, fault: { kind: 'delay', ms: 0 } })
      api.injectFault({
        ...list,
        times: Infinity,
        fault: {
          kind: 'status',
          status: 429,
          headers: { 'retry-after': '3600' },
          body: {
            type: 'about:blank',
            title: 'Too Many Requests',
            status: 429,
            detail: 'Slow down.',
          },
        },
      })
      const result = await runStep({
        inputs: inputsFor(api, { ...review, timeout: '20s' }),
        env: pushEvent(gh, NEW),
      })
      expect(result.code, result.stdout).toBe(0)
      // The run ends 600 ms after its create: a look at the key that waited out the hour the
      // service asked for would have ended the step at its timeout, timed out.
      expect(result.outputs.outcome).toBe('succeeded')
      expect(api.requestsTo('GET', '/agent/runs').length).toBeGreaterThan(1)
    })

    it("both steps refused the interrupt (409) fall back and create; then one steers the other's run through a lost interrupt answer and a 429: one run", async () => {
      let creates = 0
      const api = await fakeApi({
        // The fallbacks' runs are at work at once, so that steering one needs an interrupt; they
        // end only by a follow-up's pass (or a cancel), never by a clock the steps must beat: a
        // run that ended on its own before the other step steered it (2 s, on a loaded machine)
        // left two runs of the key.
        script: () => ((creates += 1) === 1 ? working : [{ state: 'INPROGRESS', afterMs: 0 }]),
        followupScript: () => newPass,
      })
      const gh = await fakeGitHub()
      gh.setHistory(OWNER, REPO, [
        { sha: OLD, message: 'Add the parser' },
        { sha: NEW, message: 'Test the parser' },
      ])
      gh.setPullRequest(OWNER, REPO, PR, { headSha: OLD })
      const first = await runStep({
        inputs: inputsFor(api, { ...review, wait: 'false' }),
        env: pushEvent(gh, OLD),
      })
      const runId = first.outputs.run_id ?? ''
      await untilState(api, runId, 'INPROGRESS')
      gh.moveHead(OWNER, REPO, PR, NEW)
      const problem = (status: number): FaultRule['fault'] => ({
        kind: 'status',
        status,
        headers: status === 429 ? { 'retry-after': '0' } : {},
        body: { type: 'about:blank', title: 'Refused', status, detail: 'Not now.' },
      })
      // Each step's interrupt of the first run is refused, retries and all (three tries a step);
      // the next interrupt's answer is lost.
      api.injectFault({ method: 'POST', path: /\/interrupt$/, times: 6, fault: problem(409) })
      api.injectFault({
        method: 'POST',
        path: /\/interrupt$/,
        fault: { kind: 'reset-after-acting' },
      })
      api.injectFault({ method: 'POST', path: /\/followups$/, fault: problem(429) })
      const steps = [0, 1].map(() =>
        startStep({ inputs: inputsFor(api, review), env: pushEvent(gh, NEW) }),
      )
      const results = await Promise.all(steps.map((step) => step.result))
      for (const result of results) expect(result.code, result.stdout).toBe(0)
      expect(api.run(runId)?.state).toBe('CANCELLED')
      // Nothing doubled, nothing orphaned: one run of the key was not cancelled, and it ended.
      const [kept] = survivors(api)
      expect(survivors(api)).toHaveLength(1)
      expect(api.run(kept?.run_id ?? '')?.state).toBe('SUCCEEDED')
      expect(results.map((result) => result.outputs.run_id)).toEqual([kept?.run_id, kept?.run_id])
      // The lost answer was asked again, and the 429 waited out: one follow-up reached the run.
      expect(api.interrupts(kept?.run_id ?? '')).toBeGreaterThanOrEqual(1)
      expect(api.followups(kept?.run_id ?? '')).toHaveLength(1)
    })
  })
})
