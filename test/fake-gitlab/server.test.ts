import { afterEach, describe, expect, it } from 'vitest'
import { FakeGitLab, MAX_NOTE_BODY } from './server.ts'
import type { FakeGitLabOptions } from './server.ts'

const started: FakeGitLab[] = []

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()))
})

async function startFake(options?: FakeGitLabOptions): Promise<FakeGitLab> {
  const fake = await FakeGitLab.start(options)
  started.push(fake)
  return fake
}

function call(
  fake: FakeGitLab,
  method: string,
  path: string,
  body?: unknown,
  token = 'glpat-fake',
): Promise<Response> {
  return fetch(`${fake.apiUrl}${path}`, {
    method,
    headers: { 'private-token': token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

const NOTES = '/projects/42/merge_requests/7/notes'

describe('auth', () => {
  it('answers 401 {"message":"401 Unauthorized"} to a wrong or missing token, and acts on nothing', async () => {
    const fake = await startFake({ token: 'right' })
    const wrong = await call(fake, 'POST', NOTES, { body: 'hi' }, 'wrong')
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toEqual({ message: '401 Unauthorized' })
    const none = await fetch(`${fake.apiUrl}/user`)
    expect(none.status).toBe(401)
    expect(fake.notes(42, 7)).toEqual([])
  })

  it('takes the token as PRIVATE-TOKEN or as a Bearer token', async () => {
    const fake = await startFake()
    expect((await call(fake, 'GET', '/user')).status).toBe(200)
    const bearer = await fetch(`${fake.apiUrl}/user`, {
      headers: { authorization: 'Bearer glpat-fake' },
    })
    expect(bearer.status).toBe(200)
  })
})

describe('GET /user', () => {
  it("says who the token is; the API root is CI_API_V4_URL's shape", async () => {
    const fake = await startFake({ user: { id: 55, username: 'review-bot' } })
    expect(fake.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v4$/)
    const res = await call(fake, 'GET', '/user')
    expect(await res.json()).toMatchObject({ id: 55, username: 'review-bot' })
  })
})

describe('notes', () => {
  it("creates a note by the token's user, lists it, and updates it in place", async () => {
    const fake = await startFake()
    const created = await call(fake, 'POST', NOTES, { body: 'first' })
    expect(created.status).toBe(201)
    const note = (await created.json()) as { id: number; author: { id: number }; system: boolean }
    expect(note).toMatchObject({ body: 'first', system: false, noteable_iid: 7, project_id: 42 })
    expect(note.author.id).toBe(fake.tokenUser.id)

    const updated = await call(fake, 'PUT', `${NOTES}/${note.id}`, { body: 'second' })
    expect(updated.status).toBe(200)
    expect(fake.notes(42, 7).map((n) => [n.id, n.body])).toEqual([[note.id, 'second']])
    expect(fake.notes(42, 8)).toEqual([])
  })

  it("answers 404 for a note that is not there and 403 for another user's note", async () => {
    const fake = await startFake()
    expect((await call(fake, 'PUT', `${NOTES}/123`, { body: 'x' })).status).toBe(404)
    const theirs = fake.addNote(42, 7, 'by a person', 'alice')
    const res = await call(fake, 'PUT', `${NOTES}/${theirs.id}`, { body: 'x' })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ message: '403 Forbidden' })
    expect(fake.notes(42, 7)[0]?.body).toBe('by a person')
    // A note of another merge request is not this one's.
    expect(
      (await call(fake, 'PUT', `/projects/42/merge_requests/8/notes/${theirs.id}`, { body: 'x' }))
        .status,
    ).toBe(404)
  })

  it('refuses a missing body and one over the limit with 400', async () => {
    const fake = await startFake()
    expect((await call(fake, 'POST', NOTES, {})).status).toBe(400)
    const long = await call(fake, 'POST', NOTES, { body: 'x'.repeat(MAX_NOTE_BODY + 1) })
    expect(long.status).toBe(400)
    expect(await long.json()).toEqual({
      message: { note: [`is too long (maximum is ${MAX_NOTE_BODY} characters)`] },
    })
    expect(fake.notes(42, 7)).toEqual([])
  })

  it('pages as GitLab does: per_page up to 100, x-next-page empty on the last page, newest first unless sort=asc', async () => {
    const fake = await startFake()
    for (let i = 1; i <= 25; i++) fake.addNote(42, 7, `note ${i}`, i % 2 ? 'alice' : 'ci-bot')
    const first = await call(fake, 'GET', NOTES)
    expect(first.headers.get('x-per-page')).toBe('20')
    expect(first.headers.get('x-total')).toBe('25')
    expect(first.headers.get('x-total-pages')).toBe('2')
    expect(first.headers.get('x-next-page')).toBe('2')
    expect(((await first.json()) as Array<{ body: string }>)[0]?.body).toBe('note 25')

    const last = await call(fake, 'GET', `${NOTES}?per_page=20&page=2&sort=asc`)
    expect(last.headers.get('x-next-page')).toBe('')
    expect(last.headers.get('x-prev-page')).toBe('1')
    expect(((await last.json()) as Array<{ body: string }>).map((n) => n.body)).toEqual([
      'note 21',
      'note 22',
      'note 23',
      'note 24',
      'note 25',
    ])
    const big = await call(fake, 'GET', `${NOTES}?per_page=1000`)
    expect(big.headers.get('x-per-page')).toBe('100')
    expect(big.headers.get('x-total-pages')).toBe('1')
  })

  it('lists system notes with system: true, and seeded notes with their author', async () => {
    const fake = await startFake()
    fake.addNote(42, 7, 'added 1 commit', 'alice', { system: true })
    const [note] = fake.notes(42, 7)
    expect(note).toMatchObject({ system: true, author: { username: 'alice' } })
    expect(note?.author.id).not.toBe(fake.tokenUser.id)
  })
})

describe('faults', () => {
  it('fails the next matching requests with GitLab’s error body, then answers again', async () => {
    const fake = await startFake()
    fake.failNext('POST', `/api/v4${NOTES}`, 502, { times: 2 })
    expect((await call(fake, 'POST', NOTES, { body: 'a' })).status).toBe(502)
    const second = await call(fake, 'POST', NOTES, { body: 'a' })
    expect(await second.json()).toEqual({ message: '502 Bad Gateway' })
    expect((await call(fake, 'POST', NOTES, { body: 'a' })).status).toBe(201)
    expect(fake.notes(42, 7)).toHaveLength(1)
    expect(fake.requestsTo('POST', `/api/v4${NOTES}`)).toHaveLength(3)
  })

  it('answers a fault with the headers given, such as a redirect', async () => {
    const fake = await startFake()
    fake.failNext('GET', '/api/v4/user', 302, { headers: { location: 'https://sso.example.com/' } })
    const res = await fetch(`${fake.apiUrl}/user`, {
      headers: { 'private-token': 'glpat-fake' },
      redirect: 'manual',
    })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('https://sso.example.com/')
  })

  it('stops answering: the request is read, recorded, and never answered', async () => {
    const fake = await startFake()
    fake.stopAnswering('GET', '/api/v4/user')
    const outcome = await fetch(`${fake.apiUrl}/user`, {
      headers: { 'private-token': 'glpat-fake' },
      signal: AbortSignal.timeout(500),
    }).then(
      (res) => `answered ${res.status}`,
      (error: unknown) => (error as Error).name,
    )
    expect(outcome).toBe('TimeoutError')
    expect(fake.requestsTo('GET', '/api/v4/user')).toHaveLength(1)
    expect((await call(fake, 'GET', `${NOTES}`)).status).toBe(200)
  })
})

describe('projects: jobs, pipelines, compare and merge_base', () => {
  it('takes a project by ID or path, and answers a job, the merge request pipelines newest first, compare and merge_base', async () => {
    const fake = await startFake()
    fake.projects.setJob(42, 9001, 'canceled', 8801)
    const job = await call(fake, 'GET', '/projects/group%2Fapp/jobs/9001')
    expect(await job.json()).toMatchObject({ id: 9001, status: 'canceled', pipeline: { id: 8801 } })
    expect((await call(fake, 'GET', '/projects/42/jobs/9002')).status).toBe(404)
    expect((await call(fake, 'GET', '/projects/group%2Fnone/jobs/9001')).status).toBe(404)

    const older = fake.projects.addPipeline(42, 7, 'a'.repeat(40))
    const newer = fake.projects.addPipeline(42, 7, 'b'.repeat(40))
    const pipelines = (await (
      await call(fake, 'GET', '/projects/42/merge_requests/7/pipelines')
    ).json()) as Array<{ id: number }>
    expect(pipelines.map((p) => p.id)).toEqual([newer.id, older.id])

    fake.projects.addCommits(42, [
      { sha: 'c1', title: 'one' },
      { sha: 'c2', parent: 'c1', title: 'two' },
      { sha: 'c3', parent: 'c2', title: 'three' },
      { sha: 'x2', parent: 'c1', title: 'rewritten' },
    ])
    const compared = (await (
      await call(fake, 'GET', '/projects/42/repository/compare?from=c1&to=c3')
    ).json()) as { commits: Array<{ id: string; title: string }> }
    expect(compared.commits.map((c) => [c.id, c.title])).toEqual([
      ['c2', 'two'],
      ['c3', 'three'],
    ])
    const base = async (a: string, b: string) =>
      (await (
        await call(fake, 'GET', `/projects/42/repository/merge_base?refs[]=${a}&refs[]=${b}`)
      ).json()) as { id?: string }
    expect((await base('c2', 'c3')).id).toBe('c2')
    expect((await base('c3', 'x2')).id).toBe('c1')
    expect(
      (await call(fake, 'GET', '/projects/42/repository/compare?from=nope&to=c3')).status,
    ).toBe(404)
  })

  it('deletes a note of the token user, and refuses another user’s', async () => {
    const fake = await startFake()
    const mine = fake.addNote(42, 7, 'mine', 'ci-bot')
    const theirs = fake.addNote(42, 7, 'theirs', 'someone')
    expect((await call(fake, 'DELETE', `${NOTES}/${theirs.id}`)).status).toBe(403)
    expect((await call(fake, 'DELETE', `${NOTES}/${mine.id}`)).status).toBe(204)
    expect(fake.notes(42, 7).map((note) => note.body)).toEqual(['theirs'])
  })
})
