/**
 * The fault matrix: one case per row of the README's "Reliability" table. Each
 * runs the committed bundle against the fake API with one fault injected, and
 * checks what the action does and what the user sees.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { type FaultRule, type RunScript } from '../fake-api/server.ts'
import {
  errorAnnotations,
  itNeedsProcess,
  killWhilePolling,
  runPostStep,
  runStep,
  startStep,
  STEP_START_TIMEOUT_MS,
  type StepResult,
  until,
} from './harness.ts'
import { e2eServers } from './servers.ts'
import { savedRun } from './saved-runs.ts'

const KEY = 'sk-reliability-7d1c'
const { fakeApi, inputsFor } = e2eServers(KEY, { prompt: 'Fix the failing check', title: 'Fix CI' })

const CREATE = { method: 'POST', path: '/agent/run' } as const
const POLL = { method: 'GET', path: /\/agent\/runs\/run_/ } as const

const neverEnding: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]

/** The log is for people: one line per trouble, never a stack trace. */
function expectReadableLog(result: StepResult): void {
  expect(result.stdout).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m)
  expect(result.stderr).toBe('')
  const shown = result.stdout.replace(/^::add-mask::.*$/m, '')
  expect(shown).not.toContain(KEY.slice(3))
}

describe('create: exactly one run, whatever the fault', () => {
  it('connection reset after the service acted: adopts the run, creates no second', async () => {
    const api = await fakeApi({}, { ...CREATE, fault: { kind: 'reset-after-acting' } })
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(api.allRuns()).toHaveLength(1)
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(1)
    expect(result.outputs.run_id).toBe(api.allRuns()[0]?.run_id)
    expect(result.stdout).toMatch(/::warning::The answer to the create request was lost/)
    expect(result.stdout).toContain('adopting it')
    expectReadableLog(result)
  })

  it('502 after the service acted: adopts the run, creates no second', async () => {
    const api = await fakeApi({}, { ...CREATE, fault: { kind: 'status', status: 502, act: true } })
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(api.allRuns()).toHaveLength(1)
    expect(result.outputs.state).toBe('SUCCEEDED')
  })

  it('lost answer and no metadata filtering: finds the run by time, title and prompt', async () => {
    const api = await fakeApi(
      { metadataFilter: false },
      { ...CREATE, fault: { kind: 'reset-after-acting' } },
    )
    api.seedRun({ prompt: 'Another job entirely', title: 'Other' })
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(api.allRuns()).toHaveLength(2)
    const adopted = api.run(result.outputs.run_id ?? '')
    expect(adopted?.prompt).toBe('Fix the failing check')
  })

  it('a re-run job names the run of the previous attempt it supersedes', async () => {
    const api = await fakeApi()
    const earlier = api.seedRun({
      prompt: 'Fix the failing check',
      metadata: {
        gh_run_id: '9876543210',
        gh_run_attempt: '1',
        gh_job: 'review',
        gh_step: 'agent',
      },
    })
    api.seedRun({
      prompt: 'Other step, same workflow run',
      metadata: {
        gh_run_id: '9876543210',
        gh_run_attempt: '1',
        gh_job: 'review',
        gh_step: 'other',
      },
    })
    const result = await runStep({ inputs: inputsFor(api), env: { GITHUB_RUN_ATTEMPT: '2' } })

    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`supersedes run ${earlier.run_id} of the previous attempt`)
    expect(api.allRuns()).toHaveLength(3)
  })

  it('500 before acting: no run found, creates none, and keeps the tag for the post step', async () => {
    const api = await fakeApi({}, { ...CREATE, fault: { kind: 'status', status: 500 } })
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(1)
    expect(api.allRuns()).toHaveLength(0)
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(1)
    const error = errorAnnotations(result).join('\n')
    // A 500 may come after the service acted: the run may exist, so the step names its tag.
    expect(error).toMatch(/answer was lost .*500.*not found.*gh_invocation=[0-9a-f-]{36}/)
    expect(error).not.toMatch(/re-run/i)
    expect(savedRun(result.state)?.invocation).toMatch(/^[0-9a-f-]{36}$/)
    expect(savedRun(result.state)?.settled).toBeUndefined()
    expect(result.outputs.run_id).toBeUndefined()
    expectReadableLog(result)
  })

  it('500 with x-should-retry: true after the service acted: never a second create', async () => {
    const api = await fakeApi(
      {},
      {
        ...CREATE,
        fault: { kind: 'status', status: 500, headers: { 'x-should-retry': 'true' }, act: true },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(1)
    expect(api.allRuns()).toHaveLength(1)
    expect(result.code).toBe(0)
    expect(result.outputs.run_id).toBe(api.allRuns()[0]?.run_id)
    expect(result.stdout).toContain('adopting it')
  })

  it('429 with Retry-After: waits and retries; one run', async () => {
    const api = await fakeApi(
      {},
      {
        ...CREATE,
        times: 2,
        fault: { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(api.requestsTo('POST', '/agent/run')).toHaveLength(3)
    expect(api.allRuns()).toHaveLength(1)
    expect(result.stdout).toMatch(/429.*Retry 1 of 8 in 0\.\d+s\./)
  })

  it('503 with Retry-After: a refusal, retried; one run', async () => {
    const api = await fakeApi(
      {},
      { ...CREATE, fault: { kind: 'status', status: 503, headers: { 'retry-after': '0' } } },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(api.allRuns()).toHaveLength(1)
  })

  it('404 on POST /agent/run: retried once at /agent/runs; one run', async () => {
    const api = await fakeApi({ createPath: '/agent/runs' })
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(api.requestsTo('POST', '/agent/runs')).toHaveLength(1)
    expect(api.allRuns()).toHaveLength(1)
  })
})

describe('polling survives trouble', () => {
  const cases: Array<[string, FaultRule['fault'], number]> = [
    ['a burst of 503s', { kind: 'status', status: 503 }, 4],
    ['connection resets', { kind: 'reset' }, 3],
    ['a 200 whose body is a proxy HTML page', { kind: 'malformed' }, 3],
    // Stripping tags was quadratic: a 400 KB page of unclosed `<` held the step for 113 s.
    [
      'a 502 page of a megabyte of unclosed tags',
      { kind: 'status', status: 502, body: '<'.repeat(1_000_000) },
      1,
    ],
    ['a 200 of a megabyte of unclosed tags', { kind: 'malformed', body: '<'.repeat(1_000_000) }, 1],
  ]
  for (const [name, fault, times] of cases) {
    it(`${name}: waits on and reports the outcome`, async () => {
      const api = await fakeApi({}, { ...POLL, times, fault })
      const result = await runStep({ inputs: inputsFor(api) })

      expect(result.code).toBe(0)
      expect(result.outputs.state).toBe('SUCCEEDED')
      expect(result.stdout).toMatch(/[^.;:,]\. Retry \d of 2 in \d+\.\d+s\./)
      expectReadableLog(result)
    })
  }

  it('states it does not know and missing optional fields: waits through them', async () => {
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'WARMING_UP', afterMs: 100 },
        // Once the step has seen the unknown state, however slowly it started.
        { state: 'SUCCEEDED', afterMs: 200, afterSeen: true },
      ],
    })
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(result.stdout).toContain('WARMING_UP')
    expect(result.outputs.session_link).toBeUndefined()
    expect(result.summary).not.toContain('Session')
  })

  it('the service unreachable for good: fails clearly and cancels the run', async () => {
    const api = await fakeApi(
      { script: () => neverEnding },
      { ...POLL, times: Infinity, fault: { kind: 'reset' } },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toContain('Lost contact with the service')
    expect(result.outputs.outcome).toBe('error')
    expect(api.run(result.outputs.run_id ?? '')?.state).toBe('CANCELLED')
    expect(savedRun(result.state)?.settled).toBe(true)
    expect(result.summary).toContain('The step failed')
    expect(result.summary).toContain((result.outputs.run_id ?? '').replace(/_/g, '&#95;'))
    expect(result.summary).toContain('Lost contact with the service')
    expectReadableLog(result)
  })
})

describe('cancellation races', () => {
  itNeedsProcess(
    'killed while the create request is in flight: the post step finds the run by its tag',
    async () => {
      const api = await fakeApi(
        { script: () => neverEnding },
        { ...CREATE, fault: { kind: 'delay', ms: 700 } },
      )
      const inputs = inputsFor(api)
      const step = startStep({ inputs })
      await api.waitForRequest('POST', CREATE.path, STEP_START_TIMEOUT_MS)
      step.child.kill('SIGKILL')
      const main = await step.result
      expect(savedRun(main.state)?.runId).toBeUndefined()
      expect(savedRun(main.state)?.invocation).toMatch(/^[0-9a-f-]{36}$/)
      // The slow service still makes the run, after the step is gone.
      await until(() => api.allRuns().length > 0, 'the slow create made its run')
      const [orphan] = api.allRuns()
      expect(['QUEUED', 'INPROGRESS']).toContain(orphan?.state)

      const post = await runPostStep(main, { inputs })

      expect(post.code).toBe(0)
      expect(post.stdout).toContain(
        `looking for a run tagged gh_invocation=${savedRun(main.state)?.invocation}`,
      )
      expect(api.run(orphan?.run_id ?? '')?.state).toBe('CANCELLED')
    },
  )

  it('after a create that certainly failed, the post step sends nothing', async () => {
    const api = await fakeApi({}, { ...CREATE, fault: { kind: 'status', status: 400 } })
    const inputs = inputsFor(api)
    const main = await runStep({ inputs })
    expect(main.code).toBe(1)
    const sent = api.requests.length

    const post = await runPostStep(main, { inputs })

    expect(post.code).toBe(0)
    expect(api.requests).toHaveLength(sent)
    expect(post.stdout).toContain('The main step saved no run for this step')
  })

  itNeedsProcess('409 while the run is PENDING: the cancel is retried until it lands', async () => {
    let conflicts = 2
    const api = await fakeApi({
      script: () => neverEnding,
      cancelBehaviour: () => (conflicts-- > 0 ? 'conflict' : undefined),
    })
    const inputs = inputsFor(api)
    const main = await killWhilePolling(api, { inputs })

    const post = await runPostStep(main, { inputs })

    expect(post.code).toBe(0)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(3)
    expect(api.run(savedRun(main.state)?.runId ?? '')?.state).toBe('CANCELLED')
  })
})

describe('failures explain themselves', () => {
  // The words for each status and problem code are errors.ts's unit test; this is the path
  // from the service's refusal to the step's one annotation.
  it('403 not_authorized on the create: one readable line with the detail and trace_id', async () => {
    const api = await fakeApi(
      {},
      {
        ...CREATE,
        fault: {
          kind: 'status',
          status: 403,
          body: {
            type: 'https://errors.example.test/not_authorized',
            title: 'not_authorized',
            status: 403,
            detail: 'Key may not create runs',
            trace_id: 'trace-403',
          },
        },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(1)
    const errors = errorAnnotations(result)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(
      /403 not_authorized: Key may not create runs\. .*permissions.*trace-403/,
    )
    expect(api.allRuns()).toHaveLength(0)
    expectReadableLog(result)
  })
})
