/**
 * The fake follows the published service where our notes once differed: list filters, limits and
 * sorting, cancel rules, usage that grows, nullable started_at, and the signed-download origin.
 */
import { request as httpRequest } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import type { ListRunsResponse, ProblemDocument, RunItem } from '../../src/api/types.ts'
import { playedScript } from './plays.ts'
import { FakeAgentApi } from './server.ts'
import type { FakeApiOptions } from './server.ts'

const KEY = 'test-key'
const servers: FakeAgentApi[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((api) => api.close()))
})

async function startApi(options: FakeApiOptions = {}): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start(options)
  servers.push(api)
  return api
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
    })
    req.on('error', reject)
    req.end()
  })
}

async function api(fake: FakeAgentApi, path: string, method = 'GET'): Promise<Answer> {
  return get(`${fake.baseUrl}${path}`, { authorization: `Bearer ${KEY}` }, method)
}

async function list(fake: FakeAgentApi, query: string): Promise<ListRunsResponse> {
  const answer = await api(fake, `/agent/runs?${query}`)
  expect(answer.status).toBe(200)
  return JSON.parse(answer.text) as ListRunsResponse
}

async function listError(fake: FakeAgentApi, query: string): Promise<ProblemDocument> {
  const answer = await api(fake, `/agent/runs?${query}`)
  expect(answer.status).toBe(400)
  return JSON.parse(answer.text) as ProblemDocument
}

const ids = (page: ListRunsResponse): string[] => page.runs.map((run) => run.run_id)

describe('list', () => {
  it('takes limit 1-500 with a default of 20, and answers 400 outside', async () => {
    const fake = await startApi({ script: () => [{ state: 'SUCCEEDED', afterMs: 0 }] })
    for (let i = 0; i < 25; i += 1) fake.seedRun({ prompt: `p${i}` })
    expect((await list(fake, '')).runs).toHaveLength(20)
    expect((await list(fake, 'limit=500')).runs).toHaveLength(25)
    expect((await list(fake, 'limit=1')).runs).toHaveLength(1)
    for (const limit of ['0', '501', '2.5', 'ten']) {
      expect((await listError(fake, `limit=${limit}`)).detail).toMatch(/limit/)
    }
  })

  it('answers 400 for a filter it does not know or a value outside the schema, ignoring none', async () => {
    const fake = await startApi()
    expect((await listError(fake, 'config_name=x')).detail).toMatch(/Unknown query parameter/)
    expect((await listError(fake, 'state=DONE')).detail).toMatch(/state/)
    expect((await listError(fake, 'source=ROBOT')).detail).toMatch(/source/)
    expect((await listError(fake, 'execution_location=MOON')).detail).toMatch(/execution/)
    expect((await listError(fake, 'artifact_type=VIDEO')).detail).toMatch(/artifact_type/)
    expect((await listError(fake, 'sort_by=size')).detail).toMatch(/sort_by/)
    expect((await listError(fake, 'updated_after=yesterday')).detail).toMatch(/updated_after/)
    expect((await listError(fake, 'name=a&name=b')).detail).toMatch(/twice/)
  })

  it('honours every filter', async () => {
    const fake = await startApi({ script: () => [{ state: 'SUCCEEDED', afterMs: 0 }] })
    const parent = fake.seedRun({ prompt: 'parent', config: { name: 'a', model_id: 'm1' } })
    const child = fake.seedRun({
      prompt: 'child',
      parent_run_id: parent.run_id,
      skill: 'review',
      config: { name: 'b', environment_id: 'env_1', skill_spec: 'org/repo:review' },
    })
    const grandchild = fake.seedRun({ prompt: 'grandchild', parent_run_id: child.run_id })
    fake.patchRun(grandchild.run_id, {
      source: 'SCHEDULED_AGENT',
      execution_location: 'LOCAL',
      schedule: { schedule_id: 'sch_1', schedule_name: 'nightly', cron_schedule: '0 0 * * *' },
      artifacts: [
        {
          artifact_type: 'PULL_REQUEST',
          created_at: '2026-01-01T00:00:00Z',
          data: { url: 'https://github.com/o/r/pull/1', branch: 'b' },
        },
      ],
    })
    const only = async (query: string) => ids(await list(fake, query))

    expect(await only('model_id=m1')).toEqual([parent.run_id])
    expect(await only('environment_id=env_1')).toEqual([child.run_id])
    expect(await only('skill=review')).toEqual([child.run_id])
    expect(await only('skill_spec=org%2Frepo%3Areview')).toEqual([child.run_id])
    expect(await only('schedule_id=sch_1')).toEqual([grandchild.run_id])
    expect(await only('source=SCHEDULED_AGENT')).toEqual([grandchild.run_id])
    expect(await only('execution_location=LOCAL')).toEqual([grandchild.run_id])
    expect(await only('artifact_type=PULL_REQUEST')).toEqual([grandchild.run_id])
    expect((await only(`ancestor_run_id=${parent.run_id}`)).sort()).toEqual(
      [child.run_id, grandchild.run_id].sort(),
    )
    expect(await only('updated_after=2100-01-01T00:00:00Z')).toEqual([])
    expect(await only('state=SUCCEEDED&name=b')).toEqual([child.run_id])
  })

  it('sorts by updated_at by default, and by created_at, title or agent when asked', async () => {
    const fake = await startApi({ script: () => [{ state: 'SUCCEEDED', afterMs: 0 }] })
    const day = 86_400_000
    // `a` was created first but finished (was updated) last.
    const a = fake.seedRun(
      { prompt: 'p', title: 'b-title', config: { name: 'z' } },
      {
        createdAt: '2026-01-01T00:00:00Z',
        script: [
          { state: 'QUEUED', afterMs: 0 },
          { state: 'SUCCEEDED', afterMs: 2 * day },
        ],
      },
    )
    const b = fake.seedRun(
      { prompt: 'p', title: 'a-title', config: { name: 'y' } },
      { createdAt: '2026-01-02T00:00:00Z' },
    )

    expect(ids(await list(fake, ''))).toEqual([a.run_id, b.run_id])
    expect(ids(await list(fake, 'sort_by=created_at'))).toEqual([b.run_id, a.run_id])
    expect(ids(await list(fake, 'sort_by=created_at&sort_order=asc'))).toEqual([a.run_id, b.run_id])
    expect(ids(await list(fake, 'sort_by=title&sort_order=asc'))).toEqual([b.run_id, a.run_id])
    expect(ids(await list(fake, 'sort_by=agent&sort_order=asc'))).toEqual([b.run_id, a.run_id])
    expect(ids(await list(fake, 'sort_by=updated_at&sort_order=asc'))).toEqual([b.run_id, a.run_id])
  })

  it('pages by any sort key with a cursor that only fits that key and order', async () => {
    const fake = await startApi({ script: () => [{ state: 'SUCCEEDED', afterMs: 0 }] })
    for (let i = 0; i < 5; i += 1) fake.seedRun({ prompt: 'p', title: `t${i}` })
    const seen: string[] = []
    let cursor = ''
    for (;;) {
      const page = await list(fake, `sort_by=title&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      seen.push(...page.runs.map((run) => run.title ?? ''))
      if (!page.page_info?.has_next_page) break
      cursor = page.page_info.next_cursor ?? ''
    }
    expect(seen).toEqual(['t4', 't3', 't2', 't1', 't0'])
    const first = await list(fake, 'sort_by=title&limit=2')
    expect(
      (await listError(fake, `sort_by=created_at&cursor=${first.page_info?.next_cursor ?? ''}`))
        .detail,
    ).toMatch(/cursor/)
  })
})

describe('runs', () => {
  it('carry task_id, a null started_at until they start, and usage that grows while they work', async () => {
    const fake = await startApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        // Only once a GET has shown it QUEUED: the seeded view below is never already at work.
        { state: 'INPROGRESS', afterMs: 30, afterSeen: true },
      ],
    })
    const run = fake.seedRun({ prompt: 'p' })
    expect(run.task_id).toBe(run.run_id)
    expect(run.started_at).toBeNull()
    expect(run.request_usage).toBeUndefined()

    const readings: RunItem[] = []
    // Until compute shows: it grows a fifth as fast as inference, so at four decimals it is
    // still 0 for the first half-millisecond in which inference is not.
    while (readings.length < 2 || (readings.at(-1)?.request_usage?.compute_cost ?? 0) <= 0) {
      const answer = await api(fake, `/agent/runs/${run.run_id}`)
      readings.push(JSON.parse(answer.text) as RunItem)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const last = readings.at(-1)
    expect(last?.state).toBe('INPROGRESS')
    expect(last?.started_at).toEqual(expect.any(String))
    expect(last?.request_usage?.inference_cost).toBeGreaterThan(0)
  })

  it('refuses to cancel a BLOCKED run (400); 422 for a kind that cannot be; 409 while PENDING', async () => {
    const fake = await startApi()
    const blocked = fake.seedRun({ prompt: 'p' }, { script: [{ state: 'BLOCKED', afterMs: 0 }] })
    const pending = fake.seedRun({ prompt: 'p' }, { script: [{ state: 'PENDING', afterMs: 0 }] })
    const fixed = fake.seedRun({ prompt: 'p' }, { script: [{ state: 'QUEUED', afterMs: 0 }] })
    fake.patchRun(fixed.run_id, { is_run_type_cancellable: false })

    const cancel = (id: string) => api(fake, `/agent/runs/${id}/cancel`, 'POST')
    const refused = await cancel(blocked.run_id)
    expect(refused.status).toBe(400)
    expect(refused.text).toContain('BLOCKED')
    expect(fake.run(blocked.run_id)?.state).toBe('BLOCKED')
    expect((await cancel(pending.run_id)).status).toBe(409)
    expect((await cancel(fixed.run_id)).status).toBe(422)
  })

  it('answers a create with at_capacity when told', async () => {
    const fake = await startApi({ atCapacity: (create) => create.prompt === 'busy' })
    const create = (prompt: string) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const req = httpRequest(
          `${fake.baseUrl}/agent/run`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          },
          (res) => {
            let text = ''
            res.on('data', (chunk: Buffer) => (text += chunk.toString()))
            res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>))
          },
        )
        req.on('error', reject)
        req.end(JSON.stringify({ prompt }))
      })
    expect(await create('busy')).toMatchObject({ at_capacity: true })
    expect(await create('idle')).toMatchObject({ at_capacity: false })
  })
})

describe('recording', () => {
  it('keeps each answer with its request: status, headers and body, none for a reset', async () => {
    const fake = await startApi()
    fake.injectFault({ path: '/agent/runs/run_reset', fault: { kind: 'reset' } })
    fake.injectFault({
      path: '/agent/runs/run_huge',
      fault: { kind: 'huge-body', bytes: 3_000_000 },
    })
    await api(fake, '/agent/runs/run_missing')
    await api(fake, '/agent/runs/run_reset').catch(() => undefined)
    await api(fake, '/agent/runs/run_huge')

    const [missing, reset, huge] = fake.requests
    expect(missing?.response).toMatchObject({
      status: 404,
      headers: { 'content-type': 'application/problem+json' },
    })
    expect(JSON.parse(missing?.response?.body ?? '')).toMatchObject({ status: 404 })
    expect(reset?.response).toBeUndefined()
    expect(huge?.response?.status).toBe(200)
    expect(huge?.response?.body.length).toBe(1024 * 1024)
    expect(fake.exchanges()).toEqual([missing, huge])
  })
})

describe('the download origin', () => {
  it('serves a signed URL, refuses a missing or wrong signature, and records Authorization', async () => {
    const fake = await startApi()
    const { url } = fake.downloads.put('/objects/a.txt', 'content', 'text/plain')

    const ok = await get(url)
    expect(ok).toMatchObject({ status: 200, text: 'content' })
    const wrong = new URL(url)
    wrong.searchParams.set('signature', '0'.repeat(64))
    expect((await get(wrong.toString())).status).toBe(403)
    const missing = new URL(url)
    missing.searchParams.delete('signature')
    expect((await get(missing.toString(), { authorization: 'Bearer leaked' })).status).toBe(403)
    const expired = fake.downloads.put('/objects/b.txt', 'old', 'text/plain', -1000)
    expect((await get(expired.url)).status).toBe(403)

    expect(fake.downloads.requests.map((r) => [r.status, r.authorization])).toEqual([
      [200, undefined],
      [403, undefined],
      [403, 'Bearer leaked'],
      [403, undefined],
    ])
  })
})

describe('a run’s cost over its passes (issue 39)', () => {
  it('pays its setup once, when it first works, and keeps its usage over follow-ups', async () => {
    const fake = await startApi({
      setupCredits: 3,
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 10 },
        { state: 'SUCCEEDED', afterMs: 210 },
      ],
      followupScript: () => [
        { state: 'INPROGRESS', afterMs: 0 },
        { state: 'SUCCEEDED', afterMs: 200 },
      ],
    })
    const seeded = fake.seedRun({ prompt: 'p' }, { createdAt: Date.now() - 1000 })
    const first = fake.run(seeded.run_id)
    expect(first?.state).toBe('SUCCEEDED')
    expect(first?.request_usage).toEqual({
      inference_cost: 0.1,
      compute_cost: 0.02,
      platform_cost: 3,
    })
    const followup = await fetch(`${fake.baseUrl}/agent/runs/${seeded.run_id}/followups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'CI failed: fix it' }),
    })
    expect(followup.status).toBe(200)
    // Its new pass ends after 200 ms of work, which adds to the first pass's; no setup again.
    const deadline = Date.now() + 20_000
    while (fake.run(seeded.run_id)?.state !== 'SUCCEEDED' || !fake.run(seeded.run_id)?.run_time) {
      if (Date.now() > deadline) throw new Error('the follow-up never ended')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(fake.run(seeded.run_id)?.request_usage).toEqual({
      inference_cost: 0.2,
      compute_cost: 0.04,
      platform_cost: 3,
    })
  })

  it('refuses a worker host the team has not connected, and takes one it has', async () => {
    const fake = await startApi({ apiKey: KEY, workerHosts: ['w1.internal'] })
    const post = (body: object) =>
      fetch(`${fake.baseUrl}/agent/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    expect((await post({ prompt: 'p', config: { worker_host: 'w1.internal' } })).status).toBe(200)
    const refused = await post({ prompt: 'p', config: { worker_host: 'w2.internal' } })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as ProblemDocument).detail).toContain('w2.internal')
    const codex = await post({ prompt: 'p', config: { harness: { type: 'codex' } } })
    expect(codex.status).toBe(400)
  })
})

describe('runs that spawn runs', () => {
  it('starts the children a step names, each in its parent tree with its metadata, its own life and usage', async () => {
    const fake = await startApi({
      script: (create) =>
        create.prompt === 'lead'
          ? [
              { state: 'INPROGRESS', afterMs: 0 },
              {
                state: 'INPROGRESS',
                afterMs: 0,
                spawn: [
                  { script: [{ state: 'INPROGRESS', afterMs: 0 }] },
                  {
                    metadata: { role: 'critic' },
                    script: [{ state: 'SUCCEEDED', afterMs: 0 }],
                  },
                ],
              },
            ]
          : [{ state: 'INPROGRESS', afterMs: 0 }],
    })
    const lead = fake.seedRun({ prompt: 'lead', metadata: { gh_key: 'k', role: 'lead' } })
    const [root, ...children] = fake.tree(lead.run_id)
    expect(root).toMatchObject({ run_id: lead.run_id, root_run_id: lead.run_id, source: 'API' })
    expect(root?.parent_run_id).toBeUndefined()
    expect(children).toHaveLength(2)
    for (const child of children) {
      expect(child).toMatchObject({
        parent_run_id: lead.run_id,
        root_run_id: lead.run_id,
        source: 'ORCHESTRATION',
      })
    }
    expect(children.map((child) => [child.state, child.metadata])).toEqual([
      ['INPROGRESS', { gh_key: 'k', role: 'lead' }],
      ['SUCCEEDED', { gh_key: 'k', role: 'critic' }],
    ])

    // A list by the parent's tags returns the children too; cancelling the parent stops none.
    expect((await list(fake, 'metadata[gh_key]=k')).runs).toHaveLength(3)
    expect((await api(fake, `/agent/runs/${lead.run_id}/cancel`, 'POST')).status).toBe(200)
    expect(fake.tree(lead.run_id).map((run) => run.state)).toEqual([
      'CANCELLED',
      'INPROGRESS',
      'SUCCEEDED',
    ])
  })

  it("plays spawn:N for the command's user: N children that work and bill, then the run succeeds", async () => {
    const fake = await startApi({ script: playedScript })
    // Seeded 5 s ago: the whole play is over by now.
    const lead = fake.seedRun(
      { prompt: 'spawn:2 split the review' },
      { createdAt: Date.now() - 5_000 },
    )
    const tree = fake.tree(lead.run_id)
    expect(tree.map((run) => run.state)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED'])
    const [, first, second] = tree
    expect(first?.request_usage?.inference_cost).toBeCloseTo(0.5)
    expect(second?.request_usage?.inference_cost).toBeCloseTo(1)
    expect(first?.session_link).toMatch(/^https:\/\/app\.example\.test\/sessions\//)
  })

  it('refuses a create whose parent run does not exist', async () => {
    const fake = await startApi()
    const answer = await fetch(`${fake.baseUrl}/agent/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'orphan', parent_run_id: 'run_missing' }),
    })
    expect(answer.status).toBe(400)
    expect(((await answer.json()) as ProblemDocument).detail).toMatch(/run_missing/)
  })
})
