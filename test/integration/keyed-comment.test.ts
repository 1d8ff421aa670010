/**
 * The step's one comment per key in a set's shape, against the fake GitHub over loopback: what
 * the one keyed comment does for both shapes (choosing the oldest of two comments made at the
 * same moment, writing again after a refusal) holds for a set's comment too. One run's shape
 * is followed through whole steps in test/e2e/pull-requests.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createOctokit } from '../../src/github/client.ts'
import { SetComment } from '../../src/github/keyed-set-comment.ts'
import { parseSetMarker } from '../../src/github/set-comment.ts'
import { FakeGitHub } from '../fake-github/server.ts'

const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
const THREAD = { owner: OWNER, repo: REPO, issueNumber: PR }
const COMMENTS = /\/issues\/7\/comments$/

// The tests run at once, each on its own fake: they close together, at the end.
const started: FakeGitHub[] = []
afterAll(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()))
})

async function startFake() {
  const gh = await FakeGitHub.start()
  started.push(gh)
  return { gh, octokit: createOctokit('gh-token', gh.apiUrl) }
}

function recorder() {
  const lines: string[] = []
  const log = {
    debug: () => undefined,
    info: (m: string) => lines.push(`info: ${m}`),
    warning: (m: string) => lines.push(`warning: ${m}`),
  }
  return { lines, log }
}

const shown = (done: number) => ({ body: `### table ${done}`, done, total: 2 })

describe("a set's comment, one per key", { concurrent: true }, () => {
  it('two sets made comments at the same moment: one is kept, the newer set heading it', async () => {
    const { gh, octokit } = await startFake()
    // Both creates reach GitHub before either is answered: neither step can see the other's.
    gh.holdUntil('POST', COMMENTS, 2)
    const older = recorder()
    const newer = recorder()
    const chosen: Record<string, number> = {}
    const open = (set: string, at: number, log: ReturnType<typeof recorder>['log']) =>
      new SetComment(octokit, THREAD, {
        step: 'job/step',
        key: 'k',
        set,
        log,
        now: () => at,
        onCommentChosen: (id) => (chosen[set] = id),
      })
    const a = open('set-a', Date.parse('2026-01-01T10:00:00Z'), older.log)
    const b = open('set-b', Date.parse('2026-01-01T10:00:05Z'), newer.log)

    a.show(shown(0))
    b.show(shown(0))
    await Promise.all([a.settled(), b.settled()])

    expect(gh.requestsTo('POST', COMMENTS)).toHaveLength(2)
    expect(gh.requestsTo('DELETE', /\/issues\/comments\/\d+$/)).toHaveLength(1)
    const comments = gh.comments(OWNER, REPO, PR)
    expect(comments).toHaveLength(1)
    const [kept] = comments
    expect(parseSetMarker(kept?.body ?? '')?.sets[0]?.set).toBe('set-b')
    // Whichever made the newer comment said so, and both point their post step at the one kept.
    expect([...older.lines, ...newer.lines]).toContain(
      'info: Another step made a comment for "k" at the same time; keeping the older one.',
    )
    expect(chosen).toEqual({ 'set-a': kept?.id, 'set-b': kept?.id })
    expect([...older.lines, ...newer.lines].filter((line) => line.startsWith('warning'))).toEqual(
      [],
    )
  })

  it('a write GitHub refused is made once more, and the comment shows the newest state', async () => {
    const { gh, octokit } = await startFake()
    const { lines, log } = recorder()
    const comment = new SetComment(octokit, THREAD, { step: 'job/step', key: 'k', set: 's', log })
    comment.show(shown(0))
    await comment.settled()
    gh.failNext('PATCH', /\/issues\/comments\/\d+$/, 422)

    comment.show(shown(1))
    await comment.settled()

    expect(gh.requestsTo('PATCH', /\/issues\/comments\/\d+$/)).toHaveLength(2)
    const [only] = gh.comments(OWNER, REPO, PR)
    expect(only?.body).toContain('### table 1')
    expect(parseSetMarker(only?.body ?? '')?.sets[0]?.done).toBe(1)
    expect(lines).toEqual([])
  })

  it('a refusal that lasts is a warning that names the runs, not a failure', async () => {
    const { gh, octokit } = await startFake()
    const { lines, log } = recorder()
    const comment = new SetComment(octokit, THREAD, { step: 'job/step', key: 'k', set: 's', log })
    comment.show(shown(0))
    await comment.settled()
    gh.failNext('PATCH', /\/issues\/comments\/\d+$/, 422, { times: 2 })

    comment.show(shown(1))
    await comment.settled()

    expect(gh.requestsTo('PATCH', /\/issues\/comments\/\d+$/)).toHaveLength(2)
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: GitHub: could not update the comment on octo-org\/app#7 \(.*\)\. The runs are not affected\.$/,
      ),
    ])
  })
})
