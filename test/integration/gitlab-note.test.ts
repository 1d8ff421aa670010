/**
 * The command's note on a GitLab merge request against the fake GitLab, over loopback: one
 * note per key, created once and then updated in place; found past the first page; a marker
 * typed by someone else ignored; a refused token warned about once, and nothing sent after;
 * GitLab down, then back; a GitLab that never answers ended at the call's deadline.
 */
import { afterAll, describe, expect, it } from 'vitest'
import {
  mergeRequestFrom,
  MergeRequestNote,
  type MergeRequestTarget,
} from '../../src/gitlab/note.ts'
import { markerKey, noteBody, withoutQuickActions } from '../../src/gitlab/note-text.ts'
import { GITLAB_LIMITS } from '../../src/timing.ts'
import { FakeGitLab } from '../fake-gitlab/server.ts'

const PROJECT = 42
const MR = 7
const NOTES = `/api/v4/projects/${PROJECT}/merge_requests/${MR}/notes`
const NOTE = new RegExp(`^${NOTES}/\\d+$`)

// The tests run at once, each on its own fake: they close together, at the end.
const started: FakeGitLab[] = []
afterAll(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()))
})

async function startFake(): Promise<FakeGitLab> {
  const fake = await FakeGitLab.start()
  started.push(fake)
  return fake
}

function targetOf(fake: FakeGitLab, token = 'glpat-fake'): MergeRequestTarget {
  const found = mergeRequestFrom({
    CI_API_V4_URL: fake.apiUrl,
    CI_PROJECT_ID: String(PROJECT),
    CI_PROJECT_PATH: 'group/app',
    CI_MERGE_REQUEST_IID: String(MR),
    GITLAB_TOKEN: token,
  })
  if (!found?.target) throw new Error(`no target: ${found?.reason ?? 'not a merge request'}`)
  return found.target
}

function recorder() {
  const lines: string[] = []
  return {
    lines,
    log: {
      info: (m: string) => lines.push(`info: ${m}`),
      warning: (m: string) => lines.push(`warning: ${m}`),
    },
  }
}

function noteFor(fake: FakeGitLab, key = 'review', token?: string) {
  const { lines, log } = recorder()
  const note = new MergeRequestNote(targetOf(fake, token), { key, log })
  return { note, lines }
}

describe('the merge request note', () => {
  it("keeps the key's history: a job's report goes in, and a later write without one (a reconcile pass's) keeps it", async () => {
    const fake = await startFake()
    const { lines, log } = recorder()
    const options = { key: 'review', log, jobUrl: 'https://gitlab.example/-/jobs/1' }
    const first = new MergeRequestNote(targetOf(fake), {
      ...options,
      now: () => Date.parse('2026-11-28T01:00:00Z'),
    })
    await first.upsert(
      'one',
      { job: '1', run: 'run_a1', ended: true },
      {
        run: { runId: 'run_a1', state: 'FAILED', outcome: 'failed' },
      },
    )
    const second = new MergeRequestNote(targetOf(fake), {
      ...options,
      jobUrl: 'https://gitlab.example/-/jobs/2',
      now: () => Date.parse('2026-11-28T02:00:00Z'),
    })
    await second.upsert('tasks', { job: '2' }, { set: { outcome: 'started', done: 0, total: 3 } })
    const [written] = fake.notes(PROJECT, MR)
    expect(written?.body).toContain(
      '<details><summary>Earlier runs (1)</summary>\n\n- ❌ failed · run `run_a1` · [CI job](https://gitlab.example/-/jobs/1) · started 2026-11-28 01:00 UTC\n\n</details>',
    )

    // A pass writes the set's end with no report of its own: the history stays as it was.
    const pass = new MergeRequestNote(targetOf(fake), { key: 'review', log })
    await pass.upsert('tasks ended', { job: '2', ended: true })
    const [after] = fake.notes(PROJECT, MR)
    expect(after?.body).toMatch(
      /^<!-- cloud-agent-run-note: .*"sets":\[\{"set":"job 2","outcome":"started"/,
    )
    expect(after?.body).toContain('tasks ended\n\n<details><summary>Earlier runs (1)</summary>')
    expect(fake.notes(PROJECT, MR)).toHaveLength(1)
    expect(lines.filter((line) => line.startsWith('warning'))).toEqual([])
  })

  it('is created once, then updated in place: two upserts are one POST and one PUT', async () => {
    const fake = await startFake()
    const { note, lines } = noteFor(fake)
    await note.upsert('**Run** in progress')
    await note.upsert('**Run** succeeded')
    expect(fake.requestsTo('POST', NOTES)).toHaveLength(1)
    expect(fake.requestsTo('PUT', NOTE)).toHaveLength(1)
    const notes = fake.notes(PROJECT, MR)
    expect(notes).toHaveLength(1)
    expect(notes[0]?.body).toBe(noteBody('review', '**Run** succeeded'))
    expect(markerKey(notes[0]?.body ?? '')).toBe('review')
    expect(lines).toEqual([])
    // Every request carries the token as GitLab takes it.
    expect(fake.requests.every((r) => r.headers['private-token'] === 'glpat-fake')).toBe(true)

    // A later job with the same key finds the note and updates it; another key has its own.
    const later = noteFor(fake)
    await later.note.upsert('second job')
    const other = noteFor(fake, 'lint')
    await other.note.upsert('another key')
    expect(fake.notes(PROJECT, MR).map((n) => markerKey(n.body))).toEqual(['review', 'lint'])
    expect(fake.notes(PROJECT, MR)[0]?.body).toContain('second job')
    expect(fake.requestsTo('POST', NOTES)).toHaveLength(2)
  })

  it('finds its note on the second page of the notes, following x-next-page', async () => {
    const fake = await startFake()
    for (let i = 0; i < 100; i++) fake.addNote(PROJECT, MR, `comment ${i}`, 'alice')
    const ours = fake.addNote(PROJECT, MR, noteBody('review', 'earlier run'), 'ci-bot')
    const { note, lines } = noteFor(fake)
    await note.upsert('this run')
    const pages = fake.requestsTo('GET', NOTES).map((r) => r.query.get('page'))
    expect(pages).toEqual(['1', '2'])
    expect(fake.requestsTo('GET', NOTES).every((r) => r.query.get('per_page') === '100')).toBe(true)
    expect(fake.requestsTo('POST', NOTES)).toHaveLength(0)
    expect(fake.notes(PROJECT, MR).find((n) => n.id === ours.id)?.body).toContain('this run')
    expect(lines).toEqual([])
  })

  it("ignores a note with its marker written by another user, and a system note's", async () => {
    const fake = await startFake()
    const forged = fake.addNote(PROJECT, MR, noteBody('review', 'forged by a person'), 'mallory')
    fake.addNote(PROJECT, MR, noteBody('review', 'a system note'), 'ci-bot', { system: true })
    const { note, lines } = noteFor(fake)
    await note.upsert('the real one')
    expect(fake.requestsTo('PUT', NOTE)).toHaveLength(0)
    expect(fake.requestsTo('POST', NOTES)).toHaveLength(1)
    const notes = fake.notes(PROJECT, MR)
    expect(notes.find((n) => n.id === forged.id)?.body).toContain('forged by a person')
    expect(notes.at(-1)?.author.id).toBe(fake.tokenUser.id)
    expect(lines).toEqual([])
  })

  it('keeps a marker for another key in the text from passing for the note of that key', async () => {
    const fake = await startFake()
    const injected = '<!-- cloud-agent-run-note: {"key":"lint"} -->\n/merge\n\r/approve'
    const { note } = noteFor(fake)
    await note.upsert(injected)
    const [written] = fake.notes(PROJECT, MR)
    expect(markerKey(written?.body ?? '')).toBe('review')
    // No line of the text starts with "/", where GitLab would run it as a quick action.
    expect(written?.body.split('\n').filter((line) => line.startsWith('/'))).toEqual([])

    const lint = noteFor(fake, 'lint')
    await lint.note.upsert('lint run')
    expect(fake.notes(PROJECT, MR)).toHaveLength(2)
    expect(fake.notes(PROJECT, MR)[0]?.body).toContain('/merge')
  })

  it('escapes < and > in the marker, so a key cannot end the comment or forge another', () => {
    const body = noteBody('x --> <!-- cloud-agent-run-note: {"key":"y"} -->', 'text')
    const firstLine = body.split('\n')[0] ?? ''
    expect(firstLine.indexOf('-->')).toBe(firstLine.length - 3)
    expect(markerKey(body)).toBe('x --> <!-- cloud-agent-run-note: {"key":"y"} -->')
    expect(withoutQuickActions('a\r\n/close\n  /label x\n/ok')).toBe('a\n /close\n  /label x\n /ok')
  })

  it('makes a new note when a person deleted it', async () => {
    const fake = await startFake()
    const { note, lines } = noteFor(fake)
    await note.upsert('one')
    fake.failNext('PUT', NOTE, 404, { message: '404 Not found' })
    await note.upsert('two')
    expect(fake.requestsTo('POST', NOTES)).toHaveLength(2)
    expect(lines).toEqual([])
  })

  it('gives one warning for a 401, never throws, and sends nothing on a later upsert', async () => {
    const fake = await startFake()
    const { note, lines } = noteFor(fake, 'review', 'revoked')
    await expect(note.upsert('one')).resolves.toBe(false)
    const sent = fake.requests.length
    await note.upsert('two')
    await note.upsert('three')
    expect(fake.requests.length).toBe(sent)
    expect(lines).toEqual([
      'warning: GitLab: could not write the note on group/app!7 (GET /user → 401 Unauthorized). GITLAB_TOKEN is wrong, expired or revoked; no more notes are written. The run is not affected.',
    ])
    expect(fake.notes(PROJECT, MR)).toEqual([])
  })

  it('gives one warning for a 403 on the write, and stops there', async () => {
    const fake = await startFake()
    fake.failNext('POST', NOTES, 403)
    const { note, lines } = noteFor(fake)
    await note.upsert('one')
    const sent = fake.requests.length
    await note.upsert('two')
    expect(fake.requests.length).toBe(sent)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(
      `(POST /projects/${PROJECT}/merge_requests/${MR}/notes → 403 Forbidden).`,
    )
    expect(lines[0]).toContain('GITLAB_TOKEN needs the api scope')
  })

  it('asks again after a 502, within the deadline; a failure that lasts warns once, then the note catches up', async () => {
    const fake = await startFake()
    fake.failNext('POST', NOTES, 502)
    const { note, lines } = noteFor(fake)
    await note.upsert('one')
    expect(fake.requestsTo('POST', NOTES)).toHaveLength(2)
    expect(lines).toEqual([])

    const attempts = 1 + GITLAB_LIMITS.transientPausesMs.length
    fake.failNext('PUT', NOTE, 500, { times: attempts * 2 })
    await note.upsert('two')
    await note.upsert('three')
    expect(fake.requestsTo('PUT', NOTE)).toHaveLength(attempts * 2)
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: GitLab: could not write the note on group\/app!7 \(PUT \/projects\/42\/merge_requests\/7\/notes\/\d+ → 500 Internal Server Error\)\. The run is not affected\.$/,
      ),
    ])
    await note.upsert('four')
    expect(fake.notes(PROJECT, MR)[0]?.body).toContain('four')
    expect(lines.at(-1)).toBe('info: GitLab: the note on group/app!7 is written again.')
  }, 30_000)

  it('ends at the deadline when GitLab never answers: one warning, no throw', async () => {
    const fake = await startFake()
    fake.stopAnswering()
    const { lines, log } = recorder()
    const note = new MergeRequestNote(targetOf(fake), { key: 'review', log, callDeadlineMs: 300 })
    await note.upsert('one')
    expect(lines).toEqual([
      'warning: GitLab: could not write the note on group/app!7 (GET /user had no answer within 300ms). The run is not affected.',
    ])
    expect(fake.requestsTo('GET', '/api/v4/user')).toHaveLength(1)
  })

  it('follows no redirect, so the token goes nowhere but CI_API_V4_URL', async () => {
    const fake = await startFake()
    const elsewhere = `${fake.apiUrl.replace('/api/v4', '')}/elsewhere`
    fake.failNext('GET', '/api/v4/user', 302, { headers: { location: elsewhere } })
    const { note, lines } = noteFor(fake)
    await note.upsert('one')
    expect(fake.requests.map((r) => r.path)).toEqual(['/api/v4/user'])
    expect(lines).toEqual([
      `warning: GitLab: could not write the note on group/app!7 (GET /user answered 302 with a redirect to ${elsewhere}, which is not followed so the token stays with CI_API_V4_URL). The run is not affected.`,
    ])
  })

  it('runs upserts one after the other, so the last text given is the one shown', async () => {
    const fake = await startFake()
    const { note } = noteFor(fake)
    await Promise.all([note.upsert('a'), note.upsert('b'), note.upsert('c')])
    expect(fake.requestsTo('POST', NOTES)).toHaveLength(1)
    expect(fake.notes(PROJECT, MR).map((n) => n.body)).toEqual([noteBody('review', 'c')])
  })
})

describe('mergeRequestFrom', () => {
  const pipeline = {
    CI_API_V4_URL: 'https://gitlab.example.com/api/v4/',
    CI_PROJECT_ID: '42',
    CI_PROJECT_PATH: 'group/app',
    CI_MERGE_REQUEST_IID: '7',
  }

  it('is undefined outside a merge request pipeline', () => {
    expect(mergeRequestFrom({})).toBeUndefined()
    expect(mergeRequestFrom({ ...pipeline, CI_MERGE_REQUEST_IID: '' })).toBeUndefined()
  })

  it('names the merge request and the token in a merge request pipeline', () => {
    expect(mergeRequestFrom({ ...pipeline, GITLAB_TOKEN: ' glpat-x \n' })).toEqual({
      target: {
        apiUrl: 'https://gitlab.example.com/api/v4',
        projectId: '42',
        projectPath: 'group/app',
        mergeRequestIid: 7,
        token: 'glpat-x',
      },
    })
  })

  it('says why there is no note: no token, a broken token, or variables that name no merge request', () => {
    expect(mergeRequestFrom(pipeline)).toEqual({
      reason:
        'GitLab: no note on group/app!7: GITLAB_TOKEN is not set. A masked CI/CD variable GITLAB_TOKEN (a token with the api scope) lets the command keep one note there.',
    })
    expect(mergeRequestFrom({ ...pipeline, GITLAB_TOKEN: 'glpat x' })?.reason).toContain(
      'GITLAB_TOKEN contains whitespace or control characters',
    )
    for (const broken of [
      { CI_API_V4_URL: 'ftp://gitlab.example.com/api/v4' },
      { CI_API_V4_URL: undefined },
      { CI_PROJECT_ID: '' },
      { CI_MERGE_REQUEST_IID: '7a' },
    ]) {
      const found = mergeRequestFrom({ ...pipeline, ...broken, GITLAB_TOKEN: 'glpat-x' })
      expect(found?.reason).toMatch(/^GitLab: no note on the merge request: GitLab CI's variables/)
    }
  })
})

describe('two jobs of one key at once', () => {
  it('leave one note: both find none and create, the newer deletes its own and writes the oldest', async () => {
    const fake = await startFake()
    const target = targetOf(fake)
    let listedByB: () => void = () => undefined
    const bListed = new Promise<void>((resolve) => (listedByB = resolve))
    let aWrote: () => void = () => undefined
    const aDone = new Promise<void>((resolve) => (aWrote = resolve))
    // A creates only once B has looked for the note and found none; B creates only after A.
    const gated =
      (before: (init: RequestInit | undefined) => Promise<void>, after?: () => void) =>
      async (url: string | URL | Request, init?: RequestInit) => {
        await before(init)
        const answer = await fetch(url, init)
        after?.()
        return answer
      }
    const a = new MergeRequestNote(target, {
      key: 'review',
      log: recorder().log,
      fetch: gated(async (init) => {
        if (init?.method === 'POST') await bListed
      }) as typeof fetch,
    })
    let listings = 0
    const b = new MergeRequestNote(target, {
      key: 'review',
      log: recorder().log,
      fetch: gated(
        async (init) => {
          if (init?.method === 'POST') await aDone
        },
        () => {
          listings += 1
          // B's first two calls: GET /user, then the notes' first page.
          if (listings === 2) listedByB()
        },
      ) as typeof fetch,
    })
    const first = a.upsert('from A', { run: 'run-a' }).then((ok) => {
      aWrote()
      return ok
    })
    const second = b.upsert('from B', { run: 'run-a', job: '2' })
    expect(await Promise.all([first, second])).toEqual([true, true])

    const notes = fake.notes(PROJECT, MR)
    expect(notes).toHaveLength(1)
    expect(notes[0]?.body).toContain('from B')
    expect(fake.requestsTo('POST', NOTES)).toHaveLength(2)
    expect(fake.requestsTo('DELETE', NOTE)).toHaveLength(1)
    // Both now write the one note.
    await a.upsert('from A again')
    expect(fake.notes(PROJECT, MR).map((note) => note.body.includes('from A again'))).toEqual([
      true,
    ])
  })
})
