import { afterAll, describe, expect, it } from 'vitest'
import { FakeAgentApi, type FakeApiOptions, type RunScript } from '../fake-api/server.ts'
import { errorAnnotations, runPostStep, runStep, startStep, until } from './harness.ts'

const KEY = 'sk-e2e-tasks-7c1d'
const servers: FakeAgentApi[] = []

async function fakeApi(options: FakeApiOptions = {}): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start({ apiKey: KEY, script: byPrompt, ...options })
  servers.push(api)
  return api
}

// Tests in a file run at once (vitest.config.ts), so servers close when all are done.
afterAll(async () => {
  await Promise.all(servers.splice(0).map((api) => api.close()))
})

/** A task's prompt says how its run goes: "ok …" succeeds, "fail …" fails, "slow …" never ends. */
function byPrompt(create: { prompt?: string }): RunScript {
  const prompt = create.prompt ?? ''
  if (prompt.startsWith('fail')) {
    return [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 100 },
      { state: 'FAILED', afterMs: 400 },
    ]
  }
  if (prompt.startsWith('slow')) {
    return [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 100 },
    ]
  }
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 100 },
    { state: 'SUCCEEDED', afterMs: 700 },
  ]
}

const inputsFor = (api: FakeAgentApi, extra: Record<string, string> = {}) => ({
  api_key: KEY,
  base_url: api.baseUrl,
  poll_interval: '100ms',
  ...extra,
})

const runsOf = (outputs: Record<string, string>) =>
  JSON.parse(outputs.runs ?? '[]') as Record<string, unknown>[]

describe('tasks: many runs from one step', () => {
  it('starts one run per task, at most max_parallel at once, one list request per poll', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, {
        tasks: [
          '- "ok: package a"',
          '- prompt: "ok: package b"',
          '  title: Package b',
          '- prompt: "ok: package c"',
          '  name: nightly-c',
        ].join('\n'),
        max_parallel: '2',
        name: 'nightly',
      }),
    })
    expect(result.code, result.stdout).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    const runs = runsOf(result.outputs)
    expect(runs.map((run) => [run.task, run.outcome, run.state])).toEqual([
      [0, 'succeeded', 'SUCCEEDED'],
      [1, 'succeeded', 'SUCCEEDED'],
      [2, 'succeeded', 'SUCCEEDED'],
    ])
    expect(runs[1]?.title).toBe('Package b')
    // Exactly one run per task; a task's own key wins over the step's input of the same name.
    const created = api.allRuns()
    expect(created).toHaveLength(3)
    const names = created.map((run) => run.agent_config?.name).sort()
    expect(names).toEqual(['nightly', 'nightly', 'nightly-c'])
    // Never more than max_parallel in flight: the third create came after a run had ended.
    const creates = api.requestsTo('POST', /\/agent\/runs?$/)
    expect(creates).toHaveLength(3)
    // One list request per poll, filtered by the set's own metadata; no run is read on its own.
    const lists = api.requestsTo('GET', '/agent/runs')
    expect(lists.length).toBeGreaterThan(0)
    for (const list of lists) expect(list.query.get('metadata[gh_set]')).toMatch(/\S/)
    expect(api.requestsTo('GET', /\/agent\/runs\/[^/]+$/)).toHaveLength(0)
    expect(result.summary).toMatch(/\| # \| Task \| Outcome \|/)
    expect(result.summary).toContain('Package b')
    // The key is masked once, before anything else is printed, and shown nowhere.
    const lines = result.stdout.split('\n').filter((line) => line !== '')
    expect(lines[0]).toBe(`::add-mask::${KEY}`)
    expect(lines.filter((line) => line === lines[0])).toHaveLength(1)
    expect(result.stdout.replace(/^::add-mask::.*$/m, '')).not.toContain(KEY)
  })

  it('pass_when N: cancels the run still in flight as soon as N can no longer succeed', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, {
        tasks: JSON.stringify(['fail: one', 'fail: two', 'slow: three']),
        pass_when: '2',
      }),
    })
    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('failed')
    expect(result.stdout).toMatch(/Stopping the set: 2 of 3 runs did not succeed/)
    const runs = runsOf(result.outputs)
    expect(runs.map((run) => run.outcome)).toEqual(['failed', 'failed', 'cancelled'])
    const slow = api.allRuns().find((run) => run.prompt === 'slow: three')
    expect(slow?.state).toBe('CANCELLED')
    expect(errorAnnotations(result).join('\n')).toMatch(/at least 2 of 3 runs can no longer/)
  })

  it('a lost create answer in a set: the run is found by its tag, never created twice', async () => {
    const api = await fakeApi()
    api.injectFault({
      method: 'POST',
      path: /\/agent\/runs?$/,
      fault: { kind: 'reset-after-acting' },
    })
    const result = await runStep({
      inputs: inputsFor(api, { tasks: JSON.stringify(['ok: a', 'ok: b', 'ok: c']) }),
    })
    expect(result.code, result.stdout).toBe(0)
    expect(result.stdout).toMatch(/adopting it/)
    expect(api.allRuns()).toHaveLength(3)
    expect(runsOf(result.outputs).every((run) => run.outcome === 'succeeded')).toBe(true)
  })

  it('feature_not_available for the metadata filter: reads each run instead, and says so once', async () => {
    const api = await fakeApi({ metadataFilter: false })
    const result = await runStep({
      inputs: inputsFor(api, { tasks: JSON.stringify(['ok: a', 'ok: b']) }),
    })
    expect(result.code, result.stdout).toBe(0)
    expect(result.stdout.match(/cannot filter runs by metadata/g)).toHaveLength(1)
    expect(result.summary).toMatch(/each run was read on its own/)
  })

  it('SIGINT with several runs in flight: every one gets its cancel within the grace', async () => {
    const api = await fakeApi()
    const step = startStep({
      inputs: inputsFor(api, { tasks: JSON.stringify(['slow: a', 'slow: b', 'slow: c']) }),
    })
    await api.waitForRequest('GET', '/agent/runs', 15_000)
    step.child.kill('SIGINT')
    const result = await step.result
    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('interrupted')
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(3)
    expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED'])
    // Nothing was left for the post step.
    const post = await runPostStep(result, { inputs: inputsFor(api) })
    expect(post.stdout).toMatch(/nothing to clean up/)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(3)
  })

  it('after a hard kill, the post step cancels every run of the set left in flight', async () => {
    const api = await fakeApi()
    const inputs = inputsFor(api, { tasks: JSON.stringify(['slow: a', 'ok: b', 'slow: c']) })
    const step = startStep({ inputs })
    await until(
      () => api.allRuns().some((run) => run.state === 'SUCCEEDED'),
      'the quick run has ended',
    )
    await api.waitForRequest('GET', '/agent/runs', 15_000)
    const polls = api.requestsTo('GET', '/agent/runs').length
    await until(() => api.requestsTo('GET', '/agent/runs').length > polls + 1, 'two more polls')
    step.child.kill('SIGKILL')
    const killed = await step.result
    const post = await runPostStep(killed, { inputs })
    expect(post.code, post.stdout).toBe(0)
    const cancels = api.requestsTo('POST', /\/cancel$/)
    expect(cancels).toHaveLength(2)
    expect(
      api
        .allRuns()
        .map((run) => run.state)
        .sort(),
    ).toEqual(['CANCELLED', 'CANCELLED', 'SUCCEEDED'])
  })

  it('a bad task is refused before any request, naming the task and the field', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, { tasks: '- "ok: a"\n- promt: typo' }),
    })
    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toMatch(/tasks\[1\] has an unknown key "promt"/)
    expect(api.requests).toHaveLength(0)
  })
})
