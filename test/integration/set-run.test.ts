/**
 * TaskSetRun against the fake API, over loopback: the stops a set makes on its own
 * (max_credits on the sum, the timeout) and a poll the service refuses in a storm.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { AgentRunsClient } from '../../src/api/client.ts'
import { abortableSleep } from '../../src/api/transport.ts'
import { INVOCATION_KEY, runTag, taskTag, SET_KEY } from '../../src/run/create.ts'
import { TaskSetRun, type SetSettings } from '../../src/run/set.ts'
import { REQUEST_RETRIES } from '../../src/timing.ts'
import type { SavedRunRecord } from '../../src/state.ts'
import { FakeAgentApi, type FaultRule, type RunScript } from '../fake-api/server.ts'
import { noSignals } from '../support/interruption.ts'
import { until } from '../support/until.ts'

const API_KEY = 'sk-set-run-test'
const closers: Array<() => Promise<void>> = []
// The tests run at once (each with its own fake, mostly waiting on its runs and deadlines): the
// fakes are closed when the file ends.
afterAll(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

async function startApi(
  script: (prompt: string) => RunScript,
  options: { listLagMs?: number } = {},
): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start({
    apiKey: API_KEY,
    script: (create) => script(create.prompt ?? ''),
    ...options,
  })
  closers.push(() => api.close())
  return api
}

const working = (credits: number): RunScript => [
  { state: 'QUEUED', afterMs: 0 },
  {
    state: 'INPROGRESS',
    afterMs: 20,
    patch: { request_usage: { inference_cost: credits } },
  },
]

function setFor(api: FakeAgentApi, prompts: string[], settings: Partial<SetSettings> = {}) {
  const workflow = new AbortController()
  const logged: string[] = []
  const saved: SavedRunRecord[][] = []
  const stepTag = runTag({
    forge: undefined,
    project: undefined,
    runId: undefined,
    runAttempt: undefined,
    job: undefined,
    action: undefined,
    workflow: undefined,
  })
  const set = new TaskSetRun(
    {
      tasks: prompts.map((prompt) => ({ prompt })),
      maxParallel: 10,
      passWhen: { kind: 'all' },
      timeoutMs: 60_000,
      pollIntervalMs: 20,
      caps: [],
      ...settings,
    },
    {
      client: new AgentRunsClient({ baseUrl: api.baseUrl, apiKey: API_KEY }),
      now: Date.now,
      sleep: abortableSleep,
      signal: workflow.signal,
      log: {
        info: (line) => logged.push(line),
        warning: (line) => logged.push(`warning: ${line}`),
        debug: () => undefined,
      },
      state: {
        saveRunCount: () => undefined,
        saveRun: (index, record) => {
          // Each save, the whole list as the post step would read it then.
          const now = [...(saved.at(-1) ?? [])]
          now[index] = record
          saved.push(now)
        },
        markSet: () => undefined,
      },
      setMetadata: { [SET_KEY]: stepTag.invocation },
      tagFor: (index) => taskTag(stepTag, index),
    },
  )
  return { set, logged, saved, workflow }
}

describe.concurrent('TaskSetRun stops on its own', () => {
  it('max_credits caps the sum: past it, every run in flight is cancelled, and the set is over budget', async () => {
    const api = await startApi(() => working(30))
    const { set, logged, saved } = setFor(api, ['a', 'b'], {
      caps: [{ amount: { value: 50, unit: 'credits' }, input: 'max_credits' }],
    })
    const outcome = await set.run(noSignals())
    expect(outcome.word).toBe('over_budget')
    expect(outcome.reason).toMatch(/60 credits together, past the max_credits cap of 50 credits/)
    expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED', 'CANCELLED'])
    expect(outcome.tasks.map((task) => task.stoppedBy)).toEqual(['over-budget', 'over-budget'])
    expect(logged.join('\n')).toMatch(/Stopping the set: the runs used 60 credits/)
    // Nothing is left owed for the post step.
    expect(saved.at(-1)?.every((record) => record.settled)).toBe(true)
  })

  it('the timeout: the runs still in flight are cancelled, the tasks not started never are', async () => {
    const api = await startApi(() => working(1))
    const { set } = setFor(api, ['a', 'b', 'c'], { maxParallel: 2, timeoutMs: 300 })
    const outcome = await set.run(noSignals())
    expect(outcome.word).toBe('timed_out')
    expect(outcome.reason).toMatch(/^the timeout input \(.+\) ran out$/)
    expect(api.allRuns()).toHaveLength(2)
    expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED', 'CANCELLED'])
    expect(outcome.tasks.map((task) => task.stoppedBy)).toEqual(['timeout', 'timeout', 'timeout'])
    expect(outcome.tasks[2]?.invocation).toBeUndefined()
  })

  it('a storm of 429s on the list: the set waits as asked and still ends with one run per task', async () => {
    const api = await startApi(() => [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'SUCCEEDED', afterMs: 50 },
    ])
    api.injectFault({
      method: 'GET',
      path: '/agent/runs',
      fault: { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
      // More than the client waits out on its own: the set itself must wait and poll again.
      times: REQUEST_RETRIES.refusalRetries + 3,
    })
    const { set, logged } = setFor(api, ['a', 'b', 'c'])
    const outcome = await set.run(noSignals())
    expect(outcome.word).toBe('succeeded')
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(3)
    expect(api.allRuns()).toHaveLength(3)
    // The client waits out a few 429s itself; past them, the set waits as the service asked.
    expect(api.requestsTo('GET', '/agent/runs').length).toBeGreaterThan(
      REQUEST_RETRIES.refusalRetries + 3,
    )
    expect(logged.join('\n')).toMatch(/refused the poll \(429\) and asked to wait/)
    expect(outcome.tasks.map((task) => task.run?.state)).toEqual([
      'SUCCEEDED',
      'SUCCEEDED',
      'SUCCEEDED',
    ])
  })
})

const RUN_READ = /\/agent\/runs\/[^/]+$/

const lasting = (ms: number): RunScript => [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 10 },
  { state: 'SUCCEEDED', afterMs: ms },
]

describe.concurrent('TaskSetRun is as robust as one run', () => {
  it('a create that hangs ends at the deadline, and the runs in flight are cancelled with the set', async () => {
    const api = await startApi(() => working(1))
    // The first create goes through; the second is read and never answered.
    api.injectFault({ method: 'POST', path: /\/agent\/runs?$/, fault: { kind: 'hang' } })
    const { set } = setFor(api, ['a', 'b'], { timeoutMs: 300 })
    const outcome = await set.run(noSignals())
    expect(outcome.word).toBe('timed_out')
    const [hung, created] = outcome.tasks
    expect(hung?.runId).toBeUndefined()
    expect(hung?.runMayExist).toBe(true)
    expect(created?.runId).toBeDefined()
    expect(api.run(created?.runId ?? '')?.state).toBe('CANCELLED')
    // It ends (this test's own timeout bounds it): no wall-clock figure is asserted, since a
    // loaded machine stretches the create's floor (MIN_REQUEST_MS) past any fixed window.
  })

  it("a new run's 404 is read-after-write lag: the set polls through it", async () => {
    // Each run's own first two reads answer 404, set as the fake makes the run (before its create
    // is answered): every task meets the lag, whenever its create is answered. The list shows the
    // runs only long after they ended, so the set reads each run itself.
    const notVisibleYet = (runId: string): FaultRule => ({
      method: 'GET',
      path: `/agent/runs/${runId}`,
      fault: { kind: 'status', status: 404, body: { detail: 'no such run' } },
      times: 2,
    })
    const api: FakeAgentApi = await FakeAgentApi.start({
      apiKey: API_KEY,
      script: (_create, runId) => {
        api.injectFault(notVisibleYet(runId))
        return lasting(300)
      },
      listLagMs: 60_000,
    })
    closers.push(() => api.close())
    const { set, logged } = setFor(api, ['a', 'b'])
    const outcome = await set.run(noSignals())
    expect(outcome.word).toBe('succeeded')
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    expect(
      logged.filter((line) => line.includes('is not visible yet (404 right after its create)')),
    ).toHaveLength(2)
  })

  it('N tasks with max_parallel N put N runs in flight at once', async () => {
    const api = await startApi(() => lasting(400))
    const { set } = setFor(
      api,
      Array.from({ length: 20 }, (_, i) => `t${i}`),
      {
        maxParallel: 20,
      },
    )
    const outcome = await set.run(noSignals())
    expect(outcome.word).toBe('succeeded')
    // Every create went out before the first poll: none waited for another run to end.
    const createRequests = api.requestsTo('POST', /\/agent\/runs?$/)
    expect(createRequests).toHaveLength(20)
    const lastCreate = Math.max(...createRequests.map((request) => api.requests.indexOf(request)))
    const firstPoll = api.requests.findIndex(
      (request) => request.method === 'GET' && request.path.endsWith('/agent/runs'),
    )
    expect(firstPoll).toBeGreaterThan(lastCreate)
  })

  it('more than a page of runs: each poll is a list page per 500 in flight, with no read per run', async () => {
    // 500 short tasks end first and fill the list's first page (500, the service's largest),
    // newest change first; the 20 long ones stay in flight behind them, for as many polls as the
    // test awaits (then the workflow cancels the step), however slowly a loaded machine makes
    // the 520 creates. While all 520 are in flight, a poll reads two pages.
    const api = await startApi((prompt) => (prompt.startsWith('long') ? working(1) : lasting(50)))
    const prompts = [
      ...Array.from({ length: 20 }, (_, i) => `long ${i}`),
      ...Array.from({ length: 500 }, (_, i) => `short ${i}`),
    ]
    // The workflow ends the set (below): its timeout is not in play, however long the creates
    // take (a minute's timeout ran out first at a load average of 17 to 25).
    const { set, workflow } = setFor(api, prompts, {
      maxParallel: 520,
      pollIntervalMs: 50,
      timeoutMs: 60 * 60_000,
    })
    const running = set.run(noSignals())
    // A create whose answer the client cut (a loaded machine) is looked up by its invocation
    // (src/run/create.ts): a list of runs, but not a poll.
    const pollsSoFar = () =>
      api
        .requestsTo('GET', '/agent/runs')
        .filter((list) => !list.query.has(`metadata[${INVOCATION_KEY}]`))
    const lists = () => pollsSoFar().length
    // 520 creates take seconds on a loaded machine: the far bound is for a hang, not a window.
    const shortsDone = () => api.runStates().filter((state) => state === 'SUCCEEDED').length === 500
    await until(shortsDone, 'the 500 short runs ended', 100_000)
    const after = lists()
    // Four polls after every short run ended, the long ones behind a full page each time.
    await until(() => lists() >= after + 4, 'four more polls', 100_000)
    workflow.abort()
    expect((await running).word).toBe('interrupted')
    // A long run is read on its own at most once, before the list shows it a first time.
    expect(api.requestsTo('GET', RUN_READ).length).toBeLessThanOrEqual(20)
    const polls = pollsSoFar()
    for (const poll of polls) {
      expect(poll.query.get('sort_by')).toBe('updated_at')
      expect(poll.query.get('sort_order')).toBe('desc')
      expect(poll.query.get('limit')).toBe('500')
    }
    // While more than 500 were in flight a poll read a second page, by its cursor; never more.
    const cursors = polls.map((poll) => poll.query.get('cursor')).filter((cursor) => cursor)
    expect(cursors.length).toBeGreaterThan(0)
    expect(cursors.length).toBeLessThan(polls.length)
  }, 120_000)
})
