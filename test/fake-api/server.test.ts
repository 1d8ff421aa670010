import { afterEach, describe, expect, it } from 'vitest'
import type { ListRunsResponse, ProblemDocument, RunItem } from '../../src/api/types.ts'
import { FakeAgentApi } from './server.ts'
import type { FakeApiOptions, RunScript } from './server.ts'

const started: FakeAgentApi[] = []

afterEach(async () => {
  await Promise.all(started.splice(0).map((api) => api.close()))
})

async function startApi(options?: FakeApiOptions): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start(options)
  started.push(api)
  return api
}

interface CallOptions {
  body?: unknown
  rawBody?: string
  key?: string | null
}

interface Answer {
  status: number
  headers: Headers
  text: string
  json: unknown
}

async function call(
  api: FakeAgentApi,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const key = options.key === undefined ? 'test-key' : options.key
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (key !== null) headers['authorization'] = `Bearer ${key}`
  const body =
    options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  const res = await fetch(`${api.baseUrl}${path}`, { method, headers, body })
  const text = await res.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, text, json }
}

async function createRun(api: FakeAgentApi, body: unknown = { prompt: 'do it' }): Promise<string> {
  const answer = await call(api, 'POST', '/agent/run', { body })
  expect(answer.status).toBe(200)
  return (answer.json as { run_id: string }).run_id
}

async function getRun(api: FakeAgentApi, runId: string): Promise<RunItem> {
  const answer = await call(api, 'GET', `/agent/runs/${runId}`)
  expect(answer.status).toBe(200)
  return answer.json as RunItem
}

async function pollUntil(
  api: FakeAgentApi,
  runId: string,
  done: (run: RunItem) => boolean,
): Promise<RunItem[]> {
  const seen: RunItem[] = []
  // A bound for a broken fake, not a window: the script moves on within about a second.
  const deadline = Date.now() + 40_000
  for (;;) {
    const run = await getRun(api, runId)
    seen.push(run)
    if (done(run)) return seen
    if (Date.now() > deadline) throw new Error(`run stuck in ${run.state}`)
    await sleep(10)
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function expectProblem(answer: Answer, status: number, code: string): ProblemDocument {
  expect(answer.status).toBe(status)
  expect(answer.headers.get('content-type')).toBe('application/problem+json')
  const problem = answer.json as ProblemDocument
  expect(problem.type).toBe(`https://errors.example.test/${code}`)
  expect(problem.status).toBe(status)
  expect(problem.title).toEqual(expect.any(String))
  expect(problem.detail).toEqual(expect.any(String))
  expect(problem.trace_id).toEqual(expect.any(String))
  return problem
}

const quick: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  // INPROGRESS lasts long enough that polls on a loaded machine still see it.
  { state: 'INPROGRESS', afterMs: 300 },
  { state: 'SUCCEEDED', afterMs: 1_200, patch: { session_link: 'https://app.example.test/s/1' } },
]
const instant: RunScript = [{ state: 'SUCCEEDED', afterMs: 0 }]
const forever = (state: string): RunScript => [{ state, afterMs: 0 }]

describe('auth', () => {
  it('answers 401 without or with a wrong key, and records both attempts', async () => {
    const api = await startApi({ apiKey: 'sekret' })
    expectProblem(
      await call(api, 'GET', '/agent/runs', { key: null }),
      401,
      'authentication_required',
    )
    expectProblem(
      await call(api, 'GET', '/agent/runs', { key: 'nope' }),
      401,
      'authentication_required',
    )
    expect((await call(api, 'GET', '/agent/runs', { key: 'sekret' })).status).toBe(200)
    expect(api.requestsTo('GET', '/agent/runs')).toHaveLength(3)
  })
})

describe('create and get', () => {
  it('creates a run and moves it through its script over time', async () => {
    const api = await startApi({ script: () => quick })
    const answer = await call(api, 'POST', '/agent/run', {
      body: {
        prompt: 'fix the bug',
        title: 'Bug fix',
        config: { name: 'ci', model_id: 'm1' },
        metadata: { gh_run: '42' },
      },
    })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('application/json')
    const { run_id: runId, state } = answer.json as { run_id: string; state: string }
    expect(runId).toMatch(/^run_[\w-]+$/)
    expect(state).toBe('QUEUED')

    // Created QUEUED (above); a loaded machine may read it back after it has moved on.
    const first = await getRun(api, runId)
    expect(first).toMatchObject({
      run_id: runId,
      state: expect.stringMatching(/^(?:QUEUED|INPROGRESS)$/),
      title: 'Bug fix',
      prompt: 'fix the bug',
      agent_config: { name: 'ci', model_id: 'm1' },
      metadata: { gh_run: '42' },
      source: 'API',
      creator: { type: 'user' },
      is_run_type_cancellable: true,
    })
    expect(Date.parse(first.created_at ?? '')).not.toBeNaN()
    expect(first.session_link).toBeUndefined()
    expect(first.run_time).toBeUndefined()

    const seen = await pollUntil(api, runId, (run) => run.state !== 'QUEUED')
    expect(lastOf(seen).state).toBe('INPROGRESS')
    expect(lastOf(seen).started_at).toEqual(expect.any(String))
    const last = lastOf(await pollUntil(api, runId, (run) => run.state === 'SUCCEEDED'))
    expect(last.session_link).toBe('https://app.example.test/s/1')
    expect(last.run_time).toMatch(/^PT1\.\d+S$/)
    expect(Date.parse(last.updated_at ?? '')).toBeGreaterThan(Date.parse(last.created_at ?? ''))
    expect(api.run(runId)?.state).toBe('SUCCEEDED')
  })

  it('merges a failing step patch such as status_message', async () => {
    const api = await startApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'FAILED', afterMs: 30, patch: { status_message: { message: 'boom' } } },
      ],
    })
    const runId = await createRun(api)
    const last = lastOf(await pollUntil(api, runId, (run) => run.state === 'FAILED'))
    expect(last.status_message).toEqual({ message: 'boom' })
  })

  it('uses the default script when none is given', async () => {
    const api = await startApi()
    const runId = await createRun(api)
    expect(api.allRuns().map((run) => run.run_id)).toEqual([runId])
    // The default script ends SUCCEEDED with its session link (awaited: a loaded machine may be
    // past QUEUED by the first look, which a fixed look at QUEUED took for a failure).
    while (api.run(runId)?.state !== 'SUCCEEDED') {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(api.run(runId)?.session_link).toMatch(/^https:\/\/app\.example\.test\/sessions\/sess_/)
  })

  it('validates the create body', async () => {
    const api = await startApi()
    const bad = async (body: unknown, raw?: string): Promise<void> => {
      const answer = await call(api, 'POST', '/agent/run', raw ? { rawBody: raw } : { body })
      expectProblem(answer, 400, 'invalid_request')
    }
    await bad(undefined, '{not json')
    await bad({ title: 'no prompt' })
    await bad({ prompt: 'x', metadata: Object.fromEntries(range(21).map((i) => [`k${i}`, 'v'])) })
    await bad({ prompt: 'x', metadata: { 'bad key!': 'v' } })
    await bad({ prompt: 'x', metadata: { ['k'.repeat(65)]: 'v' } })
    await bad({ prompt: 'x', metadata: { k: 'é'.repeat(129) } })
    await bad({ prompt: 'x', metadata: { k: 1 } })
    expect(api.allRuns()).toHaveLength(0)

    await createRun(api, { config: { skill_spec: 'o/r:skill' } })
    await createRun(api, {
      prompt: 'x',
      metadata: Object.fromEntries(range(20).map((i) => [`k.${i}_-`, 'v'.repeat(256)])),
    })
    expect(api.allRuns()).toHaveLength(2)
  })

  it('answers 404 for an unknown run or route and 405 for a wrong method', async () => {
    const api = await startApi()
    const missing = expectProblem(
      await call(api, 'GET', '/agent/runs/run_nope'),
      404,
      'resource_not_found',
    )
    expect(missing.detail).toContain('run_nope')
    expectProblem(await call(api, 'GET', '/agent/nothing'), 404, 'resource_not_found')
    const wrong = await call(api, 'DELETE', '/agent/runs/run_nope')
    expectProblem(wrong, 405, 'invalid_request')
    expect(wrong.headers.get('allow')).toBe('GET')
  })
})

describe('list', () => {
  it('pages with a cursor, newest first, unaffected by runs created meanwhile', async () => {
    const api = await startApi()
    const base = Date.now() - 60_000
    const ids = range(25).map(
      (i) => api.seedRun({ prompt: `p${i}` }, { createdAt: base + i }).run_id,
    )

    const pages: ListRunsResponse[] = []
    let cursor: string | undefined
    do {
      const query = cursor ? `?limit=10&cursor=${encodeURIComponent(cursor)}` : '?limit=10'
      const answer = await call(api, 'GET', `/agent/runs${query}`)
      expect(answer.status).toBe(200)
      const page = answer.json as ListRunsResponse
      pages.push(page)
      cursor = page.page_info?.next_cursor
      if (pages.length === 1) await createRun(api) // newer than every seeded run
    } while (cursor)

    expect(pages.map((page) => page.runs.length)).toEqual([10, 10, 5])
    expect(pages.map((page) => page.page_info?.has_next_page)).toEqual([true, true, false])
    expect(pages.flatMap((page) => page.runs.map((run) => run.run_id))).toEqual([...ids].reverse())

    expect(((await call(api, 'GET', '/agent/runs')).json as ListRunsResponse).runs).toHaveLength(20)
    expectProblem(await call(api, 'GET', '/agent/runs?cursor=garbage'), 400, 'invalid_request')
    expectProblem(await call(api, 'GET', '/agent/runs?limit=0'), 400, 'invalid_request')
  })

  it('filters by state, name, metadata, creation time and text', async () => {
    const api = await startApi()
    const base = Date.parse('2026-01-01T00:00:00Z')
    const a = api.seedRun(
      { prompt: 'alpha task', config: { name: 'nightly' }, metadata: { job: 'build', env: 'ci' } },
      { script: forever('INPROGRESS'), createdAt: base },
    )
    const b = api.seedRun(
      { prompt: 'beta task', config: { name: 'nightly' }, metadata: { job: 'test' } },
      { script: forever('BLOCKED'), createdAt: base + 1000 },
    )
    const c = api.seedRun(
      { prompt: 'gamma', config: { name: 'other' } },
      { script: instant, createdAt: base + 2000 },
    )
    const ids = async (query: string): Promise<string[]> => {
      const answer = await call(api, 'GET', `/agent/runs?${query}`)
      expect(answer.status).toBe(200)
      return (answer.json as ListRunsResponse).runs.map((run) => run.run_id)
    }
    expect(await ids('state=INPROGRESS&state=SUCCEEDED')).toEqual([c.run_id, a.run_id])
    expect(await ids('name=nightly')).toEqual([b.run_id, a.run_id])
    expect(await ids('metadata%5Bjob%5D=build&metadata%5Benv%5D=ci')).toEqual([a.run_id])
    expect(await ids('metadata[job]=test')).toEqual([b.run_id])
    expect(await ids(`created_after=${new Date(base).toISOString()}`)).toEqual([c.run_id, b.run_id])
    expect(await ids(`created_before=${new Date(base + 1500).toISOString()}`)).toEqual([
      b.run_id,
      a.run_id,
    ])
    expect(await ids('q=TASK')).toEqual([b.run_id, a.run_id])
    const six = range(6)
      .map((i) => `metadata[k${i}]=v`)
      .join('&')
    expectProblem(await call(api, 'GET', `/agent/runs?${six}`), 400, 'invalid_request')
  })

  it('answers feature_not_available for a metadata filter when the plan lacks it', async () => {
    const api = await startApi({ metadataFilter: false })
    expectProblem(await call(api, 'GET', '/agent/runs?metadata[a]=b'), 403, 'feature_not_available')
    expect((await call(api, 'GET', '/agent/runs?state=QUEUED')).status).toBe(200)
  })
})

describe('follow-ups', () => {
  it('restarts the script of a terminal run and rejects bad requests', async () => {
    const api = await startApi({
      // QUEUED long enough to be read back after the follow-up on a loaded machine (60 ms was not).
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'SUCCEEDED', afterMs: 1_000 },
      ],
    })
    const runId = await createRun(api)
    await pollUntil(api, runId, (run) => run.state === 'SUCCEEDED')

    const ok = await call(api, 'POST', `/agent/runs/${runId}/followups`, {
      body: { message: 'more' },
    })
    expect(ok.status).toBe(200)
    expect(ok.json).toEqual({ followup_id: expect.any(String), outcome: 'handoff_execution' })
    expect((await getRun(api, runId)).state).toBe('QUEUED')
    await pollUntil(api, runId, (run) => run.state === 'SUCCEEDED')
    expect(api.followups(runId)).toEqual(['more'])

    const path = `/agent/runs/${runId}/followups`
    expectProblem(await call(api, 'POST', path, { body: { message: 5 } }), 400, 'invalid_request')
    expectProblem(await call(api, 'POST', path, { body: { mode: [] } }), 400, 'invalid_request')
    expectProblem(await call(api, 'POST', path, { rawBody: 'x' }), 400, 'invalid_request')
    expectProblem(
      await call(api, 'POST', '/agent/runs/run_nope/followups', { body: { message: 'm' } }),
      404,
      'resource_not_found',
    )
  })

  it('revives a cancelled run', async () => {
    const api = await startApi({ script: () => forever('INPROGRESS') })
    const runId = await createRun(api)
    expect((await call(api, 'POST', `/agent/runs/${runId}/cancel`)).status).toBe(200)
    await call(api, 'POST', `/agent/runs/${runId}/followups`, { body: { message: 'again' } })
    expect(api.run(runId)?.state).toBe('INPROGRESS')
  })
})

describe('follow-up outcomes', () => {
  const followup = (api: FakeAgentApi, runId: string, message: string): Promise<Answer> =>
    call(api, 'POST', `/agent/runs/${runId}/followups`, { body: { message } })

  it('joins the prompt of a run not started (queued_prompt, no follow-up ID, no new pass)', async () => {
    const api = await startApi({ followupScript: () => forever('FAILED') })
    const run = api.seedRun({ prompt: 'Review it.' }, { script: forever('QUEUED') })

    const answer = await followup(api, run.run_id, 'Only the new commits.')

    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ followup_id: null, outcome: 'queued_prompt' })
    const after = await getRun(api, run.run_id)
    expect(after.state).toBe('QUEUED')
    expect(after.prompt).toBe('Review it.\n\nOnly the new commits.')
    expect(api.followups(run.run_id)).toEqual(['Only the new commits.'])
  })

  it('hands a live run the message (live_session) and an ended run a new pass (handoff_execution)', async () => {
    const api = await startApi({ followupScript: ({ pass }) => forever(`PASS_${pass}`) })
    const live = api.seedRun({ prompt: 'x' }, { script: forever('INPROGRESS') })
    const ended = api.seedRun({ prompt: 'x' }, { script: instant })

    const toLive = await followup(api, live.run_id, 'steer')
    const toEnded = await followup(api, ended.run_id, 'again')
    const second = await followup(api, live.run_id, 'steer again')

    expect(toLive.json).toEqual({ followup_id: expect.any(String), outcome: 'live_session' })
    expect(toEnded.json).toEqual({ followup_id: expect.any(String), outcome: 'handoff_execution' })
    expect(second.json).toEqual({ followup_id: expect.any(String), outcome: 'live_session' })
    const ids = [toLive, toEnded, second].map(
      (answer) => (answer.json as { followup_id: string }).followup_id,
    )
    expect(new Set(ids).size).toBe(3)
    expect(api.run(live.run_id)?.state).toBe('PASS_2')
    expect(api.run(ended.run_id)?.state).toBe('PASS_1')
  })

  it('lets followupAnswer say queue_pending, or answer as an older service without members', async () => {
    const api = await startApi({
      script: () => forever('INPROGRESS'),
      followupAnswer: (run) =>
        run.title === 'pending' ? 'queue_pending' : run.title === 'older' ? 'unstated' : undefined,
    })
    const pending = await createRun(api, { prompt: 'x', title: 'pending' })
    const older = await createRun(api, { prompt: 'x', title: 'older' })

    const queued = await followup(api, pending, 'later')
    const unstated = await followup(api, older, 'plain')

    expect(queued.json).toEqual({ followup_id: expect.any(String), outcome: 'queue_pending' })
    expect(unstated.status).toBe(200)
    expect(unstated.json).toEqual({})
    expect(api.followups(pending)).toEqual(['later'])
    expect(api.followups(older)).toEqual(['plain'])
  })
})

describe('interrupt', () => {
  const interrupt = (api: FakeAgentApi, runId: string): Promise<Answer> =>
    call(api, 'POST', `/agent/runs/${runId}/interrupt`)
  // INPROGRESS until a GET has shown it, so the interrupt finds it live however slow the machine.
  const working: RunScript = [
    { state: 'INPROGRESS', afterMs: 0 },
    { state: 'SUCCEEDED', afterMs: 50, afterSeen: true },
  ]

  it('answers 202 for a live run, which stays INPROGRESS until a follow-up starts a new pass', async () => {
    const api = await startApi({ script: () => working })
    const runId = await createRun(api)

    const answer = await interrupt(api, runId)

    expect(answer.status).toBe(202)
    expect(answer.json).toEqual({})
    expect(api.interrupts(runId)).toBe(1)
    expect((await interrupt(api, runId)).status).toBe(202)
    expect(api.interrupts(runId)).toBe(2)
    expect((await getRun(api, runId)).state).toBe('INPROGRESS')
    // A twin run, left alone, ends: the interrupted one is still INPROGRESS past that point.
    const twin = await createRun(api)
    await pollUntil(api, twin, (run) => run.state === 'SUCCEEDED')
    expect((await getRun(api, runId)).state).toBe('INPROGRESS')

    const steered = await call(api, 'POST', `/agent/runs/${runId}/followups`, {
      body: { message: 'Look at the new head instead.' },
    })
    expect(steered.json).toEqual({ followup_id: expect.any(String), outcome: 'live_session' })
    await pollUntil(api, runId, (run) => run.state === 'SUCCEEDED')
    expect(api.followups(runId)).toEqual(['Look at the new head instead.'])
  })

  it('answers 409 for a run that is not live and 422 for a run on another harness', async () => {
    const api = await startApi()
    const queued = api.seedRun({ prompt: 'x' }, { script: forever('QUEUED') })
    const ended = api.seedRun({ prompt: 'x' }, { script: instant })
    const claude = api.seedRun(
      { prompt: 'x', config: { harness: { type: 'claude' } } },
      { script: forever('INPROGRESS') },
    )
    const patched = api.seedRun({ prompt: 'x' }, { script: forever('INPROGRESS') })
    api.patchRun(patched.run_id, { agent_config: { harness: { type: 'claude' } } })
    const oz = api.seedRun(
      { prompt: 'x', config: { harness: { type: 'oz' } } },
      { script: forever('INPROGRESS') },
    )

    expect(expectProblem(await interrupt(api, queued.run_id), 409, 'conflict').detail).toMatch(
      /QUEUED/,
    )
    expectProblem(await interrupt(api, ended.run_id), 409, 'conflict')
    expect(
      expectProblem(await interrupt(api, claude.run_id), 422, 'operation_not_supported').detail,
    ).toMatch(/claude harness/)
    expectProblem(await interrupt(api, patched.run_id), 422, 'operation_not_supported')
    expectProblem(await interrupt(api, 'run_nope'), 404, 'resource_not_found')
    expectProblem(
      await call(api, 'GET', `/agent/runs/${oz.run_id}/interrupt`),
      405,
      'invalid_request',
    )
    expect((await interrupt(api, oz.run_id)).status).toBe(202)
    for (const run of [queued, ended, claude, patched]) expect(api.interrupts(run.run_id)).toBe(0)
    expect(api.interrupts(oz.run_id)).toBe(1)
  })

  it('lets an interrupted run be cancelled', async () => {
    const api = await startApi({ script: () => forever('INPROGRESS') })
    const runId = await createRun(api)
    expect((await interrupt(api, runId)).status).toBe(202)
    expect((await call(api, 'POST', `/agent/runs/${runId}/cancel`)).status).toBe(200)
    expect((await getRun(api, runId)).state).toBe('CANCELLED')
  })
})

describe('afterSeen: a step that waits for the step before it to be seen', () => {
  it('holds the run in the step before, however long, until a GET has shown that step', async () => {
    const api = await startApi()
    const run = api.seedRun(
      { prompt: 'x' },
      {
        createdAt: Date.now() - 60_000,
        script: [
          { state: 'QUEUED', afterMs: 0 },
          { state: 'INPROGRESS', afterMs: 100 },
          { state: 'SUCCEEDED', afterMs: 200, afterSeen: true },
        ],
      },
    )
    // Neither time nor reads of other kinds move it on: the test's own view, the list.
    expect(api.run(run.run_id)?.state).toBe('INPROGRESS')
    const listed = (await call(api, 'GET', '/agent/runs')).json as { runs: RunItem[] }
    expect(listed.runs.map((shown) => shown.state)).toEqual(['INPROGRESS'])
    expect((await getRun(api, run.run_id)).state).toBe('INPROGRESS')
    expect((await getRun(api, run.run_id)).state).toBe('SUCCEEDED')
  })
})

describe('until: a step that waits for what a test says', () => {
  it('holds the run in the step before, however long and however often read, until it holds', async () => {
    const api = await startApi()
    let open = false
    const run = api.seedRun(
      { prompt: 'x' },
      {
        createdAt: Date.now() - 60_000,
        script: [
          { state: 'INPROGRESS', afterMs: 0 },
          { state: 'SUCCEEDED', afterMs: 100, until: () => open },
        ],
      },
    )
    expect(api.run(run.run_id)?.state).toBe('INPROGRESS')
    expect((await getRun(api, run.run_id)).state).toBe('INPROGRESS')
    expect((await getRun(api, run.run_id)).state).toBe('INPROGRESS')
    open = true
    expect((await getRun(api, run.run_id)).state).toBe('SUCCEEDED')
  })
})

describe('cancel', () => {
  it('cancels an active run at once and keeps it cancelled', async () => {
    const api = await startApi({ script: () => quick })
    const runId = await createRun(api)
    const answer = await call(api, 'POST', `/agent/runs/${runId}/cancel`)
    expect(answer.status).toBe(200)
    expect(answer.json).toBe(runId)
    expect(answer.text).toBe(JSON.stringify(runId))
    expect((await getRun(api, runId)).state).toBe('CANCELLED')
    // Past the script's INPROGRESS step, seen on a run created just after, left alone.
    const alone = await createRun(api)
    await pollUntil(api, alone, (run) => run.state !== 'QUEUED')
    const run = await getRun(api, runId)
    expect(run.state).toBe('CANCELLED')
    expect(run.run_time).toMatch(/^PT/)

    expectProblem(await call(api, 'POST', `/agent/runs/${runId}/cancel`), 400, 'invalid_request')
  })

  it('answers 400 for a terminal run, 409 for PENDING, 422 for a non-cancellable run', async () => {
    const api = await startApi()
    const done = api.seedRun({ prompt: 'x' }, { script: instant })
    const pending = api.seedRun({ prompt: 'x' }, { script: forever('PENDING') })
    const fixed = api.seedRun({ prompt: 'x' }, { script: forever('INPROGRESS') })
    api.patchRun(fixed.run_id, { is_run_type_cancellable: false })
    const cancel = (runId: string): Promise<Answer> =>
      call(api, 'POST', `/agent/runs/${runId}/cancel`)

    expectProblem(await cancel(done.run_id), 400, 'invalid_request')
    expectProblem(await cancel(pending.run_id), 409, 'conflict')
    expectProblem(await cancel(fixed.run_id), 422, 'operation_not_supported')
    expectProblem(await cancel('run_nope'), 404, 'resource_not_found')
    expect(api.run(pending.run_id)?.state).toBe('PENDING')
    expect(api.run(fixed.run_id)?.state).toBe('INPROGRESS')
  })

  it('lets cancelBehaviour force an outcome', async () => {
    const api = await startApi({
      script: () => forever('INPROGRESS'),
      cancelBehaviour: (run) => (run.title === 'stuck' ? 'not-supported' : undefined),
    })
    const stuck = await createRun(api, { prompt: 'x', title: 'stuck' })
    const normal = await createRun(api, { prompt: 'x' })
    expectProblem(
      await call(api, 'POST', `/agent/runs/${stuck}/cancel`),
      422,
      'operation_not_supported',
    )
    expect((await call(api, 'POST', `/agent/runs/${normal}/cancel`)).status).toBe(200)
  })
})

describe('faults', () => {
  it('answers an injected status with headers and body, for the given number of uses', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'post',
      path: '/agent/run',
      times: 2,
      fault: {
        kind: 'status',
        status: 503,
        headers: { 'retry-after': '1' },
        body: { detail: 'down' },
      },
    })
    for (let i = 0; i < 2; i++) {
      const answer = await call(api, 'POST', '/agent/run', { body: { prompt: 'x' } })
      expect(answer.status).toBe(503)
      expect(answer.headers.get('retry-after')).toBe('1')
      expect(answer.headers.get('content-type')).toBe('application/problem+json')
      expect(answer.json).toEqual({ detail: 'down' })
    }
    expect(api.allRuns()).toHaveLength(0)
    await createRun(api)
    expect(api.requestsTo('POST', '/agent/run')).toHaveLength(3)
  })

  it('defaults to a problem document and only matches its method and path', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'GET',
      path: /\/agent\/runs\/[^/]+$/,
      times: Infinity,
      fault: { kind: 'status', status: 500 },
    })
    const runId = await createRun(api)
    for (let i = 0; i < 3; i++) {
      expectProblem(await call(api, 'GET', `/agent/runs/${runId}`), 500, 'internal_error')
    }
    expect((await call(api, 'GET', '/agent/runs')).status).toBe(200)
    api.clearFaults()
    expect((await getRun(api, runId)).run_id).toBe(runId)
  })

  it('resets the connection without acting, or after acting', async () => {
    const api = await startApi()
    api.injectFault({ path: '/agent/run', fault: { kind: 'reset' } })
    await expect(call(api, 'POST', '/agent/run', { body: { prompt: 'x' } })).rejects.toThrow()
    expect(api.allRuns()).toHaveLength(0)

    api.injectFault({ path: '/agent/run', fault: { kind: 'reset-after-acting' } })
    await expect(call(api, 'POST', '/agent/run', { body: { prompt: 'x' } })).rejects.toThrow()
    expect(api.allRuns()).toHaveLength(1)
    expect(api.requestsTo('POST', '/agent/run')).toHaveLength(2)
  })

  it('delays an answer: a request made after it is answered first', async () => {
    const api = await startApi()
    api.injectFault({ times: 1, fault: { kind: 'delay', ms: 60_000 } })
    let delayedSettled = false
    const delayed = call(api, 'GET', '/agent/runs').finally(() => (delayedSettled = true))
    await api.waitForRequest('GET', '/agent/runs')
    // Held by order, not by a clock: the second request is answered while the first waits.
    const after = await call(api, 'GET', '/agent/runs')
    expect(after.status).toBe(200)
    expect(delayedSettled).toBe(false)
    await api.close()
    await expect(delayed).rejects.toThrow()
  })

  it('answers a malformed body', async () => {
    const api = await startApi()
    api.injectFault({ fault: { kind: 'malformed' } })
    api.injectFault({
      fault: { kind: 'malformed', status: 502, body: '{"trunc', contentType: 'application/json' },
    })
    const html = await call(api, 'GET', '/agent/runs')
    expect(html.status).toBe(200)
    expect(html.headers.get('content-type')).toContain('text/html')
    expect(html.text).toContain('<html>')
    const truncated = await call(api, 'GET', '/agent/runs')
    expect(truncated.status).toBe(502)
    expect(truncated.text).toBe('{"trunc')
  })

  it('answers a huge body of exactly the given size', async () => {
    const api = await startApi()
    const bytes = 3 * 1024 * 1024 + 7
    api.injectFault({ fault: { kind: 'huge-body', bytes } })
    const answer = await call(api, 'GET', '/agent/runs/run_any')
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-length')).toBe(String(bytes))
    expect(Buffer.byteLength(answer.text)).toBe(bytes)
    expect(answer.json).toMatchObject({ run_id: 'run_huge' })
  })
})

describe('rate limit', () => {
  it('answers 429 with Retry-After once the bucket is empty, and refills', async () => {
    // The bucket's clock stands still unless the test moves it, however loaded the machine.
    let now = 0
    const api = await startApi({ rateLimit: { capacity: 2, refillPerSecond: 2, now: () => now } })
    expect((await call(api, 'GET', '/agent/runs')).status).toBe(200)
    expect((await call(api, 'GET', '/agent/runs')).status).toBe(200)
    const limited = await call(api, 'GET', '/agent/runs')
    expectProblem(limited, 429, 'resource_unavailable')
    expect(limited.headers.get('retry-after')).toBe('1')
    now += 400
    expectProblem(await call(api, 'GET', '/agent/runs'), 429, 'resource_unavailable')
    now += 100
    expect((await call(api, 'GET', '/agent/runs')).status).toBe(200)
    expect(api.requests).toHaveLength(5)
  })

  it('uses retryAfterSeconds when given', async () => {
    const api = await startApi({
      rateLimit: { capacity: 1, refillPerSecond: 0, retryAfterSeconds: 7 },
    })
    await call(api, 'GET', '/agent/runs')
    expect((await call(api, 'GET', '/agent/runs')).headers.get('retry-after')).toBe('7')
  })
})

describe('recording', () => {
  it('records method, path, query, headers and body', async () => {
    const api = await startApi()
    await call(api, 'GET', '/agent/runs?limit=5&state=QUEUED&state=FAILED')
    await call(api, 'POST', '/agent/run', { body: { prompt: 'hello' }, key: 'wrong' })
    const list = nth(api.requests, 0)
    const create = nth(api.requests, 1)
    expect(list).toMatchObject({ method: 'GET', path: '/api/v1/agent/runs', body: '' })
    expect(list.query.getAll('state')).toEqual(['QUEUED', 'FAILED'])
    expect(list.query.get('limit')).toBe('5')
    expect(create.headers.authorization).toBe('Bearer wrong')
    expect(create.json).toEqual({ prompt: 'hello' })
    expect(create.receivedAt).toBeGreaterThanOrEqual(list.receivedAt)
  })

  it('waits for a request that has arrived or will arrive, and times out', async () => {
    const api = await startApi({ script: () => forever('INPROGRESS') })
    const runId = await createRun(api)
    expect((await api.waitForRequest('POST', '/agent/run')).json).toEqual({ prompt: 'do it' })
    const cancel = api.waitForRequest('POST', /\/cancel$/)
    setTimeout(() => void call(api, 'POST', `/agent/runs/${runId}/cancel`), 20)
    expect((await cancel).path).toBe(`/api/v1/agent/runs/${runId}/cancel`)
    await expect(api.waitForRequest('GET', '/agent/runs', 30)).rejects.toThrow(/within 30 ms/)
  })
})

describe('create paths', () => {
  it('answers 404 on /agent/run when only /agent/runs exists', async () => {
    const api = await startApi({ createPath: '/agent/runs' })
    expectProblem(
      await call(api, 'POST', '/agent/run', { body: { prompt: 'x' } }),
      404,
      'resource_not_found',
    )
    expect(api.allRuns()).toHaveLength(0)
    const answer = await call(api, 'POST', '/agent/runs', { body: { prompt: 'x' } })
    expect(answer.status).toBe(200)
    expect(api.allRuns()).toHaveLength(1)
  })

  it('answers 405 on POST /agent/runs when only /agent/run exists', async () => {
    const api = await startApi({ createPath: '/agent/run' })
    const answer = await call(api, 'POST', '/agent/runs', { body: { prompt: 'x' } })
    expectProblem(answer, 405, 'invalid_request')
    expect(answer.headers.get('allow')).toBe('GET')
  })
})

describe('close', () => {
  it('destroys open connections promptly', async () => {
    const api = await FakeAgentApi.start()
    api.injectFault({ fault: { kind: 'delay', ms: 10_000 } })
    const pending = call(api, 'GET', '/agent/runs')
    await api.waitForRequest('GET', '/agent/runs')
    await api.close()
    // The connection was destroyed, not answered after the 10 s delay: the call fails.
    await expect(pending).rejects.toThrow()
  })
})

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i)
}

function nth<T>(items: readonly T[], index: number): T {
  const item = items[index]
  if (item === undefined) throw new Error(`no item at ${index} of ${items.length}`)
  return item
}

function lastOf<T>(items: readonly T[]): T {
  return nth(items, items.length - 1)
}

describe('a lagging index, a skewed clock, runs without metadata', () => {
  const listed = async (api: FakeAgentApi, query = ''): Promise<ListRunsResponse> =>
    (await call(api, 'GET', `/agent/runs${query}`)).json as ListRunsResponse

  it('listLagMs: a new run is gettable at once but listed only after the lag', async () => {
    const api = await startApi({ listLagMs: 60_000 })
    const runId = await createRun(api)
    const old = api.seedRun({ prompt: 'old' }, { createdAt: Date.now() - 120_000 })

    expect((await getRun(api, runId)).run_id).toBe(runId)
    expect((await listed(api)).runs.map((run) => run.run_id)).toEqual([old.run_id])
  })

  it('clockSkewMs: times, the Date header and created_after all follow the service clock', async () => {
    const skew = -10 * 60_000
    const api = await startApi({ clockSkewMs: skew })
    const before = Date.now()
    const runId = await createRun(api)
    const shown = Date.parse((await getRun(api, runId)).created_at ?? '')
    const answer = await call(api, 'GET', '/agent/runs')
    const after = Date.now()
    // Made between the two readings of this clock, read on the service's: however long it took.
    expect(shown).toBeGreaterThanOrEqual(before + skew)
    expect(shown).toBeLessThanOrEqual(after + skew)
    const served = Date.parse(answer.headers.get('date') ?? '')
    // The Date header counts whole seconds.
    expect(served).toBeGreaterThanOrEqual(Math.floor((before + skew) / 1_000) * 1_000)
    expect(served).toBeLessThanOrEqual(after + skew)
    // By the runner's clock the run is 10 minutes "in the future" of the service's window.
    const runnerCutoff = new Date(before - 60_000).toISOString()
    expect((await listed(api, `?created_after=${runnerCutoff}`)).runs).toHaveLength(0)
    const serviceCutoff = new Date(before + skew - 60_000).toISOString()
    expect((await listed(api, `?created_after=${serviceCutoff}`)).runs).toHaveLength(1)
  })

  it('showMetadata false: runs are shown without metadata, yet still filtered by it', async () => {
    const api = await startApi({ showMetadata: false })
    const runId = await createRun(api, { prompt: 'x', metadata: { k: 'v' } })

    expect((await getRun(api, runId)).metadata).toBeUndefined()
    const page = await listed(api, '?metadata[k]=v')
    expect(page.runs.map((run) => run.run_id)).toEqual([runId])
    expect(page.runs[0]?.metadata).toBeUndefined()
  })
})

describe('hostile answers (issue 8)', () => {
  it('hang: reads the request and never answers', async () => {
    const api = await startApi()
    api.injectFault({ method: 'GET', path: '/agent/runs', fault: { kind: 'hang' } })
    const answer = fetch(`${api.baseUrl}/agent/runs`, {
      headers: { authorization: 'Bearer test-key' },
      signal: AbortSignal.timeout(300),
    })
    await expect(answer).rejects.toThrow()
    expect(api.requestsTo('GET', '/agent/runs')).toHaveLength(1)
  })

  it('trickle: sends the headers, then a body that never ends', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'GET',
      path: '/agent/runs',
      fault: { kind: 'trickle', intervalMs: 20 },
    })
    const controller = new AbortController()
    const res = await fetch(`${api.baseUrl}/agent/runs`, {
      headers: { authorization: 'Bearer test-key' },
      signal: controller.signal,
    })
    expect(res.status).toBe(200)
    const body = res.body
    if (!body) throw new Error('no body')
    const reader = body.getReader()
    const first = await reader.read()
    const second = await reader.read()
    // Under load two 20 ms chunks can arrive as one read: spaces, one or more, and more to come.
    expect(new TextDecoder().decode(first.value)).toMatch(/^ +$/)
    expect(second.done).toBe(false)
    controller.abort()
  })

  it('rewrite-body: acts, then answers with the rewritten JSON, or an empty body', async () => {
    const api = await startApi({ script: () => forever('INPROGRESS') })
    const runId = await createRun(api)
    api.injectFault({
      method: 'GET',
      path: /\/agent\/runs\/run_/,
      fault: { kind: 'rewrite-body', rewrite: (b) => ({ ...(b as object), run_id: 'run_other' }) },
    })
    api.injectFault({
      method: 'GET',
      path: /\/agent\/runs\/run_/,
      fault: { kind: 'rewrite-body', rewrite: () => undefined },
    })
    const other = await call(api, 'GET', `/agent/runs/${runId}`)
    expect(other.json).toMatchObject({ run_id: 'run_other', state: 'INPROGRESS' })
    const empty = await call(api, 'GET', `/agent/runs/${runId}`)
    expect(empty.status).toBe(200)
    expect(empty.text).toBe('')
  })

  it('echo-key: an HTML page that shows the Authorization header past a preamble', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'POST',
      path: '/agent/run',
      fault: { kind: 'echo-key', status: 401 },
    })
    const answer = await call(api, 'POST', '/agent/run', { body: { prompt: 'x' } })
    expect(answer.status).toBe(401)
    expect(answer.headers.get('content-type')).toContain('text/html')
    expect(answer.text.indexOf('Bearer test-key')).toBeGreaterThan(150)
    expect(api.allRuns()).toHaveLength(0)
  })
})
