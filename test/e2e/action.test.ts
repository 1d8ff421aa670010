import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import { FakeAgentApi, type FakeApiOptions, type RunScript } from '../fake-api/server.ts'
import {
  errorAnnotations,
  itNeedsProcess,
  killWhilePolling,
  runPostStep,
  runStep,
  startStep,
  STEP_START_TIMEOUT_MS,
  type StepResult,
} from './harness.ts'
import { savedRun } from './saved-runs.ts'

const KEY = 'sk-e2e-secret-4f9a'
const servers: FakeAgentApi[] = []

async function fakeApi(options: FakeApiOptions = {}): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start({ apiKey: KEY, ...options })
  servers.push(api)
  return api
}

// Tests in a file run at once (vitest.config.ts), so servers close when all are done.
afterAll(async () => {
  await Promise.all(servers.splice(0).map((api) => api.close()))
})

const inputsFor = (api: FakeAgentApi, extra: Record<string, string> = {}) => ({
  api_key: KEY,
  base_url: api.baseUrl,
  poll_interval: '100ms',
  ...extra,
})

const neverEnding: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]

function failingScript(message: string): RunScript {
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 50 },
    {
      state: 'FAILED',
      afterMs: 150,
      patch: { status_message: { message, error_code: 'environment_setup_failed' } },
    },
  ]
}

/** The key may appear only in the mask command the runner consumes, never anywhere a person reads. */
function expectKeyNeverShown(result: StepResult): void {
  const visible = result.stdout
    .split('\n')
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n')
  for (const text of [visible, result.stderr, result.summary, JSON.stringify(result.outputs)]) {
    expect(text).not.toContain(KEY)
  }
  expect(JSON.stringify(result.state)).not.toContain(KEY)
}

describe('the action, run as the runner runs it', () => {
  it('creates a run, waits for it, and reports success', async () => {
    // SUCCEEDED once a poll has seen INPROGRESS, however loaded the machine.
    const api = await fakeApi({
      script: (_create, runId) => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 200 },
        {
          state: 'SUCCEEDED',
          afterMs: 300,
          afterSeen: true,
          patch: { session_link: `https://app.example.test/sessions/${runId}` },
        },
      ],
    })
    const result = await runStep({
      inputs: inputsFor(api, {
        prompt: 'Review this pull request',
        title: 'PR review',
        environment_id: 'env_1',
        skill_spec: 'octo-org/skills:review',
        name: 'pr-review',
      }),
    })

    expect(result.code).toBe(0)
    const runId = result.outputs.run_id ?? ''
    expect(runId).toMatch(/^run_/)
    expect(result.outputs.state).toBe('SUCCEEDED')
    expect(result.outputs.session_link).toMatch(/^https:\/\/app\.example\.test\/sessions\//)
    expect(result.outputs.status_message).toBeUndefined()

    const [create] = api.requestsTo('POST', '/agent/run')
    expect(create?.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(create?.json).toEqual({
      prompt: 'Review this pull request',
      title: 'PR review',
      config: { environment_id: 'env_1', skill_spec: 'octo-org/skills:review', name: 'pr-review' },
      metadata: {
        gh_invocation: expect.stringMatching(/^[0-9a-f-]{36}$/),
        // Where the run belongs (v1.4): the forge, the project, and the thread when there is one.
        gh_forge: 'github',
        gh_repository: 'octo-org/app',
        gh_workflow: 'Agent review',
        gh_run_id: '9876543210',
        gh_run_attempt: '1',
        gh_job: 'review',
        gh_step: 'agent',
        // The hand-over to a reconcile pass, which sweeps the run should this runner be lost.
        gh_key: 'pr-review',
        // The step's timeout, as the report reads a run it stopped.
        gh_limits: expect.stringMatching(/^deadline=\d{4}-\d\d-\d\dT[^;]+Z$/),
        gh_wait: 'true',
      },
    })
    expect(api.allRuns()).toHaveLength(1)

    expect(result.summary).toContain(runId.replace(/_/g, '&#95;'))
    expect(result.summary).toContain('| **Outcome** | <code>succeeded</code> |')
    expect(result.summary).toContain(`(${result.outputs.session_link})`)
    expect(result.stdout).toMatch(/::notice title=Cloud agent run::.*succeeded/)
    expect(savedRun(result.state)).toEqual({
      invocation: expect.any(String) as string,
      runId,
      settled: true,
    })
    expect(result.stdout).toMatch(/is INPROGRESS \(after \d+s\)/)
    expect(result.stdout.match(/is INPROGRESS/g)).toHaveLength(1)
    expectKeyNeverShown(result)
  })

  it('post step sends nothing after a run that ended', async () => {
    const api = await fakeApi()
    const inputs = inputsFor(api, { prompt: 'x' })
    const main = await runStep({ inputs })
    const before = api.requests.length

    const post = await runPostStep(main, { inputs })

    expect(post.code).toBe(0)
    expect(api.requests.length).toBe(before)
    expect(post.stdout).toContain('nothing to clean up')
  })

  it('fails the step with the status message when the run fails', async () => {
    const api = await fakeApi({ script: () => failingScript('Tests failed: 3 of 120 | see log') })
    const result = await runStep({ inputs: inputsFor(api, { prompt: 'fix it' }) })

    expect(result.code).toBe(1)
    expect(result.outputs.state).toBe('FAILED')
    expect(result.outputs.status_message).toBe('Tests failed: 3 of 120 | see log')
    expect(errorAnnotations(result).join('\n')).toContain('ended FAILED: Tests failed: 3 of 120')
    expect(result.summary).toContain('Tests failed: 3 of 120 &#124; see log')
    expect(savedRun(result.state)?.settled).toBe(true)
    // Nothing timed out and nothing was cancelled: no line may say so.
    expect(result.stdout).not.toMatch(/timeout|cancelling/i)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
  })

  it('rejects a bad input before any request, naming it and hiding the key', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: { api_key: KEY, base_url: 'http://agents.example.com/api/v1', prompt: 'x' },
    })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toContain('Input "base_url" must use https://')
    expect(result.summary).toMatch(
      /The step failed[\s\S]*Input &#34;base&#95;url&#34; must use https/,
    )
    expect(api.requests).toHaveLength(0)
    expect(savedRun(result.state)?.runId).toBeUndefined()
    expectKeyNeverShown(result)

    const post = await runPostStep(result, { inputs: { api_key: KEY, base_url: 'x', prompt: 'x' } })
    expect(post.code).toBe(0)
    expect(post.stdout).toContain('The main step saved no run for this step')
  })

  it('rejects a duration input it cannot read', async () => {
    const api = await fakeApi()
    const result = await runStep({ inputs: inputsFor(api, { prompt: 'x', timeout: '10 minutes' }) })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toContain('Input "timeout" must be a duration')
    expect(api.requests).toHaveLength(0)
  })

  it('returns at once with wait: false, and the post step leaves the run alone', async () => {
    const api = await fakeApi({ script: () => neverEnding })
    const inputs = inputsFor(api, { prompt: 'x', wait: 'false' })
    const main = await runStep({ inputs })

    expect(main.code).toBe(0)
    expect(main.outputs.state).toBe('QUEUED')
    expect(api.requestsTo('GET', /\/agent\/runs\//)).toHaveLength(0)

    const post = await runPostStep(main, { inputs })
    expect(post.code).toBe(0)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
  })

  it('cancels the run and fails, naming the timeout, when waiting outlasts it', async () => {
    // At work from its create: a step starved of the CPU may reach its 1 s before a poll that
    // would have seen a later state, and the line names the state the step last saw.
    const api = await fakeApi({ script: () => [{ state: 'INPROGRESS', afterMs: 0 }] })
    const inputs = inputsFor(api, { prompt: 'x', timeout: '1s' })
    const main = await runStep({ inputs })

    expect(main.code).toBe(1)
    expect(errorAnnotations(main).join('\n')).toMatch(
      /did not finish within the timeout input \(1s\); it was INPROGRESS\. Run \S+ was cancelled\./,
    )
    // Read back after the cancel, so the outputs say where the run ended: one short try, never
    // retried (test/unit/scheduler-one.test.ts holds it), which a step starved of the CPU,
    // sharing its event loop with the fake and the file's other steps, may see cut before the
    // answer; then the outputs keep the state the run was cancelled from, as the annotation
    // names it.
    const runId = main.outputs.run_id ?? ''
    const cancelAt = api.requests.findIndex((request) => request.path.endsWith('/cancel'))
    const readBack = api.requests
      .slice(cancelAt + 1)
      .filter((request) => request.method === 'GET' && request.path.endsWith(`/runs/${runId}`))
    expect(readBack.length).toBeLessThanOrEqual(1)
    expect(['CANCELLED', 'INPROGRESS']).toContain(main.outputs.state)
    expect(api.requestsTo('POST', `/agent/runs/${runId}/cancel`)).toHaveLength(1)
    expect(api.run(runId)?.state).toBe('CANCELLED')
    expect(main.summary).toContain('timed out')

    const post = await runPostStep(main, { inputs })
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(1)
    expect(post.code).toBe(0)
  })

  it('an agent that orchestrates: the timeout cancels its tree, the run and each child still working', async () => {
    const working: RunScript = [{ state: 'INPROGRESS', afterMs: 0 }]
    const done: RunScript = [{ state: 'SUCCEEDED', afterMs: 0 }]
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        {
          state: 'INPROGRESS',
          afterMs: 50,
          spawn: [{ script: working }, { script: done }, { script: working }],
        },
      ],
    })
    const main = await runStep({ inputs: inputsFor(api, { prompt: 'x', timeout: '1s' }) })

    expect(main.code).toBe(1)
    const runId = main.outputs.run_id ?? ''
    const [root, ...children] = api.tree(runId)
    expect(root?.state).toBe('CANCELLED')
    expect(children.map((child) => child.state)).toEqual(['CANCELLED', 'SUCCEEDED', 'CANCELLED'])
    // One cancel for each run still working, none for the child that was done.
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(3)
    expect(main.stdout).toContain(
      `The 2 child run(s) that run ${runId}'s agent started and were still working were cancelled with it`,
    )
  })

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`cancels the run at once on ${signal}, and the post step then sends nothing`, async () => {
      const api = await fakeApi({ script: () => neverEnding })
      const inputs = inputsFor(api, { prompt: 'x' })
      const step = startStep({ inputs })
      await api.waitForRequest('GET', /\/agent\/runs\/run_/, STEP_START_TIMEOUT_MS)

      step.child.kill(signal)
      const cancel = await api.waitForRequest('POST', /\/cancel$/)
      const main = await step.result

      expect(main.code).toBe(1)
      const runId = main.outputs.run_id ?? ''
      expect(cancel.path).toBe(`/api/v1/agent/runs/${runId}/cancel`)
      expect(api.run(runId)?.state).toBe('CANCELLED')
      // Read back after the cancel, as after a timeout (above): one short try, never retried
      // (test/unit/scheduler-one.test.ts), which a step starved of the CPU may see cut before
      // the answer (both runs of two beside two busy loops, at a load average of 9 to 24);
      // then the outputs keep the state the step last saw, one the fake answered before the
      // cancel.
      const cancelAt = api.requests.indexOf(cancel)
      const readBack = api.requests
        .slice(cancelAt + 1)
        .filter((request) => request.method === 'GET' && request.path.endsWith(`/runs/${runId}`))
      expect(readBack.length).toBeLessThanOrEqual(1)
      const shownBefore = api.requests
        .slice(0, cancelAt)
        .flatMap((request) => /"state":"([A-Z_]+)"/.exec(request.response?.body ?? '')?.[1] ?? [])
      expect(['CANCELLED', ...shownBefore]).toContain(main.outputs.state)
      expect(main.stdout).toContain(`Received ${signal}`)
      expect(errorAnnotations(main).join('\n')).toContain(`Run ${runId} was cancelled.`)
      expect(savedRun(main.state)?.settled).toBe(true)

      await runPostStep(main, { inputs })
      expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(1)
    })
  }

  itNeedsProcess(
    'post step cancels a run the main step left behind after a hard kill',
    async () => {
      const api = await fakeApi({ script: () => neverEnding })
      const inputs = inputsFor(api, { prompt: 'x' })
      const main = await killWhilePolling(api, { inputs })
      expect(main.signal).toBe('SIGKILL')
      const runId = savedRun(main.state)?.runId ?? ''
      expect(runId).toMatch(/^run_/)
      expect(savedRun(main.state)?.settled).toBeUndefined()
      expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)

      const post = await runPostStep(main, { inputs })

      expect(post.code).toBe(0)
      expect(api.requestsTo('POST', `/agent/runs/${runId}/cancel`)).toHaveLength(1)
      expect(api.run(runId)?.state).toBe('CANCELLED')
      expect(post.stdout).toContain(`Run ${runId} was cancelled.`)
    },
  )

  it('awaits an existing run given by run_id', async () => {
    const api = await fakeApi()
    const seeded = api.seedRun({ prompt: 'earlier' })
    const result = await runStep({ inputs: inputsFor(api, { run_id: seeded.run_id }) })

    expect(result.code).toBe(0)
    expect(result.outputs.run_id).toBe(seeded.run_id)
    expect(result.outputs.state).toBe('SUCCEEDED')
    expect(api.requestsTo('POST', /agent\/runs?$/)).toHaveLength(0)
  })

  it('sends a follow-up to a finished run and awaits its new pass', async () => {
    // The new pass ends only once a poll has shown it at work: no window a loaded machine misses.
    const api = await fakeApi({
      followupScript: () => [
        { state: 'INPROGRESS', afterMs: 0 },
        { state: 'SUCCEEDED', afterMs: 50, afterSeen: true },
      ],
    })
    const seeded = api.seedRun({ prompt: 'earlier' }, { createdAt: Date.now() - 60_000 })
    expect(api.run(seeded.run_id)?.state).toBe('SUCCEEDED')

    const result = await runStep({
      inputs: inputsFor(api, { run_id: seeded.run_id, followup: 'Also update the changelog' }),
    })

    expect(result.code).toBe(0)
    expect(api.followups(seeded.run_id)).toEqual(['Also update the changelog'])
    expect(result.outputs.state).toBe('SUCCEEDED')
    // It saw the run go back through its states, rather than trusting the stale SUCCEEDED.
    expect(result.stdout).toMatch(/is (QUEUED|INPROGRESS)/)
  })

  it('names the run_id input when that run does not exist', async () => {
    const api = await fakeApi()
    const result = await runStep({ inputs: inputsFor(api, { run_id: 'run_missing' }) })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toContain(
      'run_id input (run_missing) does not exist',
    )
  })

  it('explains a rejected key without showing it', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: { ...inputsFor(api, { prompt: 'x' }), api_key: 'sk-wrong-key' },
    })

    expect(result.code).toBe(1)
    const errors = errorAnnotations(result).join('\n')
    expect(errors).toContain('401')
    expect(errors).toContain('Check the api_key input')
    expect(result.stdout.replace(/^::add-mask::.*$/m, '')).not.toContain('sk-wrong-key')
  })
})

describe('cancellation races', () => {
  it('cancels a run whose create request was still in flight when the signal came', async () => {
    const api = await fakeApi({ script: () => neverEnding })
    api.injectFault({ method: 'POST', path: '/agent/run', fault: { kind: 'delay', ms: 800 } })
    const step = startStep({ inputs: inputsFor(api, { prompt: 'x' }) })
    await api.waitForRequest('POST', '/agent/run', STEP_START_TIMEOUT_MS)

    step.child.kill('SIGINT')
    const main = await step.result

    const [run] = api.allRuns()
    expect(api.allRuns()).toHaveLength(1)
    expect(run?.state).toBe('CANCELLED')
    expect(main.outputs.run_id).toBe(run?.run_id)
    expect(savedRun(main.state)?.settled).toBe(true)
    expect(main.code).toBe(1)
  })

  it('sends one cancel request when a second signal arrives during cancellation', async () => {
    const api = await fakeApi({ script: () => neverEnding })
    api.injectFault({ method: 'POST', path: /\/cancel$/, fault: { kind: 'delay', ms: 600 } })
    const step = startStep({ inputs: inputsFor(api, { prompt: 'x' }) })
    await api.waitForRequest('GET', /\/agent\/runs\/run_/, STEP_START_TIMEOUT_MS)

    step.child.kill('SIGINT')
    await api.waitForRequest('POST', /\/cancel$/)
    step.child.kill('SIGTERM')
    const main = await step.result

    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(1)
    expect(main.stdout).toContain('Received SIGTERM again; still cancelling.')
    expect(main.signal).toBeNull()
    expect(main.code).toBe(1)
    expect(main.summary).toContain('the workflow was cancelled')
    expect(savedRun(main.state)?.settled).toBe(true)
  })

  itNeedsProcess(
    'treats a run that finished just before the cancel (400) as no error',
    async () => {
      const api = await fakeApi({
        script: () => neverEnding,
        cancelBehaviour: () => 'already-terminal',
      })
      const inputs = inputsFor(api, { prompt: 'x' })
      const main = await killWhilePolling(api, { inputs })

      const post = await runPostStep(main, { inputs })

      expect(post.code).toBe(0)
      expect(post.stdout).toContain('had already finished; nothing to cancel')
    },
  )

  itNeedsProcess(
    'explains a run that cannot be cancelled (422) without failing the post step',
    async () => {
      const api = await fakeApi({
        script: () => neverEnding,
        cancelBehaviour: () => 'not-supported',
      })
      const inputs = inputsFor(api, { prompt: 'x' })
      const main = await killWhilePolling(api, { inputs })

      const post = await runPostStep(main, { inputs })

      expect(post.code).toBe(0)
      expect(post.stdout).toMatch(/::warning::.*cannot be cancelled/)
    },
  )
})
