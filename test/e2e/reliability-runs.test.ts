/**
 * The fault matrix for "runs lost or doubled": a create whose answer is lost or
 * unusable, a post step with nothing saved, follow-ups that are refused, lost
 * or raced by a cancel, and signals before the create. Each case runs the
 * bundle through action.yml's entries against the fake API with the fault
 * scripted, and checks that no run is orphaned or doubled, and what the user
 * sees. One case per row of the README's "Reliability" table.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { type FakeAgentApi, type FakeApiOptions, type RunScript } from '../fake-api/server.ts'
import {
  errorAnnotations,
  itNeedsProcess,
  runPostStep,
  runStep,
  startStep,
  type StepResult,
  until,
} from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'
import { savedRun } from './saved-runs.ts'

const KEY = 'sk-runs-lost-9b2e'
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY, {
  prompt: 'Fix the failing check',
  title: 'Fix CI',
})

const CREATE = { method: 'POST', path: '/agent/run' } as const
const LIST = { method: 'GET', path: '/agent/runs' } as const
const FOLLOWUP = { method: 'POST', path: /\/followups$/ } as const
const CREATES = /\/agent\/runs?$/

const neverEnding: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]

/**
 * A run that, after a follow-up, shows its old SUCCEEDED (with a fresh
 * `updated_at`) for a moment before it restarts: a service whose state lags
 * behind the follow-up it accepted.
 */
const slowToRestart: RunScript = [
  { state: 'SUCCEEDED', afterMs: 0 },
  { state: 'QUEUED', afterMs: 1_500 },
  { state: 'INPROGRESS', afterMs: 1_600 },
  { state: 'SUCCEEDED', afterMs: 2_500, afterSeen: true },
]

/** A run whose pass takes 30 s: seeded a minute ago it is SUCCEEDED, and a follow-up restarts it. */
const longPass: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
  { state: 'SUCCEEDED', afterMs: 30_000 },
]

/**
 * A service whose cancel answers 400 "already finished" to the first `lagging`
 * cancels after a follow-up: its view of the run lags behind the follow-up.
 */
function staleCancels(lagging: number): FakeApiOptions['cancelBehaviour'] {
  let answered = 0
  return () => (answered++ < lagging ? 'already-terminal' : undefined)
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

/** The log is for people: one line per trouble, never a stack trace, never the key. */
function expectReadableLog(result: StepResult): void {
  expect(result.stdout).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m)
  expect(result.stderr).toBe('')
  expect(result.stdout.replace(/^::add-mask::.*$/gm, '')).not.toContain(KEY.slice(3))
}

/** The main step failed saying a run may exist, naming the tag and advising no re-run. */
function expectTagNamed(result: StepResult): string {
  expect(result.code).toBe(1)
  const invocation = savedRun(result.state)?.invocation ?? ''
  expect(invocation).toMatch(UUID)
  const error = errorAnnotations(result).join('\n')
  expect(error).toContain(`gh_invocation=${invocation}`)
  expect(error).not.toMatch(/re-run/i)
  expect(savedRun(result.state)?.settled).toBeUndefined()
  return invocation
}

describe('create: an answer lost or unusable never ends settled while a run may exist', () => {
  // Every other unusable 2xx is told apart in the client's integration test; the step does
  // the same with each: it looks the run up by its tag.
  it('200 with an empty body: adopts the run it made, creates no second', async () => {
    const api = await fakeApi(
      {},
      {
        ...CREATE,
        fault: {
          kind: 'malformed',
          status: 200,
          contentType: 'application/json',
          body: '',
          act: true,
        },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(api.allRuns()).toHaveLength(1)
    expect(api.requestsTo('POST', CREATES)).toHaveLength(1)
    expect(result.outputs.run_id).toBe(api.allRuns()[0]?.run_id)
    expect(result.stdout).toMatch(/::warning::The answer to the create request was lost/)
    expect(result.stdout).toContain('adopting it')
    expectReadableLog(result)
  })

  it("an agent that orchestrates at once: its children carry the create's tag, and the run alone is adopted", async () => {
    const child: RunScript = [{ state: 'INPROGRESS', afterMs: 0 }]
    const api = await fakeApi(
      {
        script: () => [
          { state: 'QUEUED', afterMs: 0, spawn: [{ script: child }, { script: child }] },
          { state: 'SUCCEEDED', afterMs: 300 },
        ],
      },
      {
        ...CREATE,
        fault: {
          kind: 'malformed',
          status: 200,
          contentType: 'application/json',
          body: '',
          act: true,
        },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code, result.stdout).toBe(0)
    const [root] = api.allRuns().filter((run) => run.parent_run_id === undefined)
    expect(result.outputs.run_id).toBe(root?.run_id)
    expect(api.tree(root?.run_id ?? '')).toHaveLength(3)
    expect(result.stdout).toContain('adopting it')
  })

  it('a skewed service clock: the lookup by tag needs no time window, and adopts', async () => {
    const api = await fakeApi(
      { clockSkewMs: -10 * 60_000 },
      { ...CREATE, fault: { kind: 'reset-after-acting' } },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(api.allRuns()).toHaveLength(1)
    expect(result.outputs.run_id).toBe(api.allRuns()[0]?.run_id)
    for (const lookup of api.requestsTo('GET', LIST.path)) {
      expect(lookup.query.get('created_after')).toBeNull()
    }
  })

  it('a list index that lags: the main step names the tag, the post step finds and cancels the run', async () => {
    const api = await fakeApi(
      { listLagMs: 12_000, script: () => neverEnding },
      { ...CREATE, fault: { kind: 'reset-after-acting' } },
    )
    const inputs = inputsFor(api)
    const main = await runStep({ inputs })

    const invocation = expectTagNamed(main)
    expect(api.allRuns()).toHaveLength(1)
    expect(api.allRuns()[0]?.state).toBe('INPROGRESS')

    const post = await runPostStep(main, { inputs })

    expect(post.code).toBe(0)
    expect(post.stdout).toContain(`looking for a run tagged gh_invocation=${invocation}`)
    expect(api.allRuns()[0]?.state).toBe('CANCELLED')
    expect(api.requestsTo('POST', CREATES)).toHaveLength(1)
    expectReadableLog(main)
    expectReadableLog(post)
  }, 40_000)

  it('the list endpoint down: the main step names the tag, the post step cancels the run once it answers', async () => {
    const api = await fakeApi(
      { script: () => neverEnding },
      { ...CREATE, fault: { kind: 'status', status: 502, act: true } },
      { ...LIST, times: Infinity, fault: { kind: 'status', status: 500 } },
    )
    const inputs = inputsFor(api)
    const main = await runStep({ inputs })

    expectTagNamed(main)
    expect(main.stdout).toMatch(/the lookup failed/)
    api.clearFaults()
    const post = await runPostStep(main, { inputs })

    expect(post.code).toBe(0)
    expect(api.allRuns()).toHaveLength(1)
    expect(api.allRuns()[0]?.state).toBe('CANCELLED')
  }, 40_000)

  it('no metadata filtering, runs shown without metadata: matches the whole request, config included, by the service clock', async () => {
    const api = await fakeApi(
      { metadataFilter: false, showMetadata: false, clockSkewMs: -10 * 60_000 },
      { ...CREATE, fault: { kind: 'reset-after-acting' } },
    )
    // The same prompt and title, another model: another workflow's run, not this step's.
    const other = api.seedRun(
      { prompt: 'Fix the failing check', title: 'Fix CI', config: { model_id: 'other-model' } },
      { script: neverEnding },
    )
    const result = await runStep({ inputs: inputsFor(api, { model_id: 'claude-4' }) })

    expect(result.code).toBe(0)
    expect(api.allRuns()).toHaveLength(2)
    expect(result.outputs.run_id).not.toBe(other.run_id)
    expect(api.run(result.outputs.run_id ?? '')?.agent_config?.model_id).toBe('claude-4')
    expect(api.run(other.run_id)?.state).toBe('INPROGRESS')
  })

  it('no metadata filtering, two runs match the request: an ambiguity reported, no guess', async () => {
    const api = await fakeApi(
      { metadataFilter: false, showMetadata: false, script: () => neverEnding },
      { ...CREATE, fault: { kind: 'reset-after-acting' } },
    )
    const twin = api.seedRun({ prompt: 'Fix the failing check', title: 'Fix CI' })
    const inputs = inputsFor(api)
    const main = await runStep({ inputs })

    expectTagNamed(main)
    expect(errorAnnotations(main).join('\n')).toMatch(/2 runs .* match its request/)
    expect(api.allRuns()).toHaveLength(2)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    expect(main.outputs.run_id).toBeUndefined()
    expect(api.run(twin.run_id)?.state).toBe('INPROGRESS')
  })
})

describe('the post step has its own entry and can never create a run', () => {
  it('with nothing saved (the job cancelled in its first milliseconds), it does nothing', async () => {
    const api = await fakeApi()
    const post = await runStep({ inputs: inputsFor(api), step: 'post' })

    expect(post.code).toBe(0)
    expect(post.stdout).toContain('saved no run for this step; nothing to clean up')
    expect(api.requests).toHaveLength(0)
  })

  itNeedsProcess(
    'a main step signalled as it starts, then its post step: no create is ever sent',
    async () => {
      const api = await fakeApi()
      const inputs = inputsFor(api)
      const step = startStep({ inputs })
      step.child.kill('SIGINT')
      const main = await step.result
      const post = await runPostStep(main, { inputs })

      expect(post.code).toBe(0)
      expect(api.requestsTo('POST', CREATES)).toHaveLength(0)
      expect(api.allRuns()).toHaveLength(0)
    },
  )
})

describe('follow-ups', () => {
  it('a refused follow-up (a definite 4xx) leaves the run alone and fails naming the follow-up', async () => {
    const api = await fakeApi({}, { ...FOLLOWUP, fault: { kind: 'status', status: 410 } })
    const run = api.seedRun({ prompt: 'Another workflow' }, { script: neverEnding })
    // Working before the step starts: what it must leave as it is.
    await until(() => api.run(run.run_id)?.state === 'INPROGRESS', 'the run is in progress')
    const result = await runStep({
      inputs: { api_key: KEY, base_url: api.baseUrl, run_id: run.run_id, followup: 'Go on' },
    })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toMatch(/follow-up \(the followup input\).*refused/)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    expect(api.run(run.run_id)?.state).toBe('INPROGRESS')
    expect(savedRun(result.state)?.settled).toBe(true)
    expectReadableLog(result)
  })

  it('a follow-up whose answer is lost (502 after acting) is awaited through its new pass', async () => {
    // The new pass ends only once a read has shown it INPROGRESS: the step must see it, however
    // late a loaded machine makes its polls.
    const seenPass: RunScript = [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 50 },
      { state: 'SUCCEEDED', afterMs: 600, afterSeen: true },
    ]
    const api = await fakeApi(
      { followupScript: () => seenPass },
      { ...FOLLOWUP, fault: { kind: 'status', status: 502, act: true } },
    )
    const run = api.seedRun({ prompt: 'Review' }, { createdAt: Date.now() - 60_000 })
    const result = await runStep({
      inputs: inputsFor(api, { prompt: '', title: '', run_id: run.run_id, followup: 'Go on' }),
    })

    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/::warning::The answer to the follow-up .* was lost/)
    expect(result.stdout).toMatch(/is INPROGRESS/)
    expect(api.followups(run.run_id)).toEqual(['Go on'])
    expect(result.outputs.state).toBe('SUCCEEDED')
  })

  it('a fresh updated_at on the old state is not the new pass: the step waits for the state to move', async () => {
    // The follow-up's pass shows the old SUCCEEDED for 1.5 s, then works, and ends only once a
    // read has shown it at work: the step must see the state move, however late its polls.
    const api = await fakeApi({ followupScript: () => slowToRestart })
    const run = api.seedRun({ prompt: 'Review' }, { createdAt: Date.now() - 60_000 })
    const result = await runStep({
      inputs: inputsFor(api, { prompt: '', title: '', run_id: run.run_id, followup: 'Go on' }),
    })

    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/is QUEUED|is INPROGRESS/)
    expect(result.outputs.state).toBe('SUCCEEDED')
  })

  it('a service that omits updated_at and a pass too fast to see: ends after a bounded grace, not the timeout', async () => {
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'SUCCEEDED', afterMs: 100 },
      ],
    })
    const run = api.seedRun({ prompt: 'Review' }, { createdAt: Date.now() - 60_000 })
    api.patchRun(run.run_id, { updated_at: undefined })
    expect(api.run(run.run_id)?.updated_at).toBeUndefined()
    const result = await runStep({
      inputs: inputsFor(api, {
        prompt: '',
        title: '',
        run_id: run.run_id,
        followup: 'Go on',
        poll_interval: '1s',
        timeout: '8s',
      }),
    })

    expect(result.code).toBe(0)
    expect(result.outputs.state).toBe('SUCCEEDED')
    expect(result.stdout).toContain('was never seen leaving SUCCEEDED after the follow-up')
    expect(result.stdout).not.toMatch(/did not finish within the timeout/)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
  })

  it('a cancel while the follow-up is in flight waits for it, then cancels the run it restarted', async () => {
    // Whether the follow-up had been answered when each cancel arrived: the order of the two
    // events, not the clock's figures.
    const answeredBeforeCancel: boolean[] = []
    const api: FakeAgentApi = await fakeApi(
      {
        script: () => neverEnding,
        cancelBehaviour: () => {
          const followup = api.requestsTo('POST', FOLLOWUP.path)[0]
          answeredBeforeCancel.push(followup?.response !== undefined)
          return undefined
        },
      },
      { ...FOLLOWUP, fault: { kind: 'delay', ms: 1_500 } },
    )
    const run = api.seedRun({ prompt: 'Review' }, { createdAt: Date.now() - 60_000 })
    const step = startStep({
      inputs: inputsFor(api, { prompt: '', title: '', run_id: run.run_id, followup: 'Go on' }),
    })
    await api.waitForRequest('POST', FOLLOWUP.path)
    step.child.kill('SIGINT')
    const result = await step.result

    expect(api.followups(run.run_id)).toEqual(['Go on'])
    expect(api.run(run.run_id)?.state).toBe('CANCELLED')
    expect(answeredBeforeCancel).toEqual([true])
    expect(savedRun(result.state)?.settled).toBe(true)
  })

  it('a 400 "already finished" right after an accepted follow-up: cancels again once the run restarts', async () => {
    const api = await fakeApi({ cancelBehaviour: staleCancels(2) })
    const run = api.seedRun(
      { prompt: 'Review' },
      { createdAt: Date.now() - 60_000, script: longPass },
    )
    const step = startStep({
      inputs: inputsFor(api, { prompt: '', title: '', run_id: run.run_id, followup: 'Go on' }),
    })
    await step.printed(/Sent the follow-up/)
    step.child.kill('SIGINT')
    const result = await step.result

    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(3)
    expect(api.run(run.run_id)?.state).toBe('CANCELLED')
    expect(savedRun(result.state)?.settled).toBe(true)
  })

  itNeedsProcess(
    'killed right after an accepted follow-up: the post step cancels the run once it restarts',
    async () => {
      const api = await fakeApi({ cancelBehaviour: staleCancels(2) })
      const run = api.seedRun(
        { prompt: 'Review' },
        { createdAt: Date.now() - 60_000, script: longPass },
      )
      const inputs = inputsFor(api, {
        prompt: '',
        title: '',
        run_id: run.run_id,
        followup: 'Go on',
      })
      const step = startStep({ inputs })
      await step.printed(/Sent the follow-up/)
      step.child.kill('SIGKILL')
      const main = await step.result
      expect(savedRun(main.state)?.awaitingNewPass).toBe(true)

      const post = await runPostStep(main, { inputs })

      expect(post.code).toBe(0)
      expect(post.stdout).toContain('still shows its state from before the follow-up')
      expect(api.run(run.run_id)?.state).toBe('CANCELLED')
    },
  )
})

describe('cancelled steps create nothing that lasts', () => {
  it('a signal during cancel_previous: no create is sent', async () => {
    const api = await fakeApi(
      { script: () => neverEnding },
      { method: 'POST', path: /\/cancel$/, fault: { kind: 'delay', ms: 1_000 } },
    )
    const previous = api.seedRun({
      prompt: 'Old review',
      config: { name: 'pr-7' },
      metadata: { gh_repository: 'octo-org/app' },
    })
    const inputs = inputsFor(api, { name: 'pr-7', cancel_previous: 'true' })
    const step = startStep({ inputs })
    await api.waitForRequest('POST', /\/cancel$/)
    step.child.kill('SIGINT')
    const main = await step.result
    const post = await runPostStep(main, { inputs })

    expect(post.code).toBe(0)
    expect(api.requestsTo('POST', CREATES)).toHaveLength(0)
    expect(api.allRuns()).toHaveLength(1)
    expect(api.run(previous.run_id)?.state).toBe('CANCELLED')
  })

  it('a run learned of during the signal budget (a lost create found late) is cancelled within it', async () => {
    const api = await fakeApi(
      { listLagMs: 1_000, script: () => neverEnding },
      { ...CREATE, fault: { kind: 'reset-after-acting' } },
    )
    const step = startStep({ inputs: inputsFor(api) })
    await api.waitForRequest('GET', LIST.path)
    step.child.kill('SIGINT')
    const main = await step.result

    expect(api.allRuns()).toHaveLength(1)
    expect(api.allRuns()[0]?.state).toBe('CANCELLED')
    expect(savedRun(main.state)?.settled).toBe(true)
    expect(api.requestsTo('POST', CREATES)).toHaveLength(1)
  })
})

describe('continue_run with name follows only runs of that name', () => {
  const OWNER = 'octo-org'
  const REPO = 'app'
  const PR = 7
  const markerOf = (runId: string, name?: string) =>
    `<!-- cloud-agent-run: ${JSON.stringify({ run_id: runId, step: 'answer/agent', name })} -->`

  async function thread() {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    gh.setRole(OWNER, REPO, 'octo-writer', 'write')
    const env = eventEnv(gh, 'issue_comment', {
      issue: { number: PR, pull_request: { url: 'x' } },
      comment: { body: 'Go on', user: { login: 'octo-writer', type: 'User' } },
    })
    return { api, gh, env }
  }

  // Continuing the run of its own name among others is in pull-requests.test.ts.
  it('with no marker of its name on the thread, creates a run rather than steer another', async () => {
    const { api, gh, env } = await thread()
    const theirs = api.seedRun(
      { prompt: 'Theirs', config: { name: 'triage' } },
      { createdAt: Date.now() - 30_000 },
    )
    gh.addComment(OWNER, REPO, PR, markerOf(theirs.run_id, 'triage'), 'github-actions[bot]')

    const result = await runStep({
      inputs: inputsFor(api, {
        prompt: 'Answer',
        title: '',
        name: 'pr-agent',
        continue_run: 'true',
      }),
      env,
    })

    expect(result.code).toBe(0)
    expect(api.followups(theirs.run_id)).toEqual([])
    expect(api.allRuns()).toHaveLength(2)
    expect(result.stdout).toContain('no earlier run on this thread; creating one')
  })
})
