/**
 * Two steps of one key writing its one comment at the same moment, against the fake GitHub: a
 * write can carry what its step read before the other's write landed (GitHub has no
 * compare-and-swap). Two steps that made their comments at the same moment: the newer one writes
 * into the older one, then deletes its own, and the older step looks until that comment is gone,
 * then reads once more. A wait for an approval written while a run of the key writes its state:
 * the wait is read back and written again. Here the test is the other step, so its stale write
 * lands exactly where it would be lost without those looks.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import {
  ApprovalComment,
  parseApprovalMarker,
  renderWaiting,
} from '../../src/github/approval-comment.ts'
import { createOctokit } from '../../src/github/client.ts'
import { ThreadComment } from '../../src/github/keyed-run-comment.ts'
import { parseMarker, renderMarker } from '../../src/github/run-marker.ts'
import { FakeGitHub } from '../fake-github/server.ts'
import { until } from '../support/until.ts'

const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
const COMMENTS = /\/issues\/7\/comments$/

const started: FakeGitHub[] = []
afterAll(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()))
})

const run = (state: RunItem['state']): RunItem => ({ run_id: 'run_older', state, title: 'Older' })

/** The step's end: its last write, with the run's outcome. */
const end = (state: RunItem['state']) => ({
  outcome: {
    ending: { kind: 'finished' as const, run: { runId: 'run_older', name: 'Older' }, state },
  },
})

describe.concurrent('two steps of one key writing its comment at the same moment', () => {
  it("the older step puts back its state after the other's late write into its comment", async () => {
    const gh = await FakeGitHub.start()
    started.push(gh)
    const octokit = createOctokit('gh-token', gh.apiUrl)
    const warnings: string[] = []
    let chosen: number | undefined
    const comment = ThreadComment.open(
      octokit,
      { owner: OWNER, repo: REPO, issueNumber: PR },
      {
        step: 'job/older',
        key: 'k',
        mode: 'keyed',
        log: { debug: () => {}, info: () => {}, warning: (line) => warnings.push(line) },
        onCommentChosen: (id) => (chosen = id),
      },
    )
    // Both creates reach GitHub before either is answered; the older step's arrives first.
    gh.holdUntil('POST', COMMENTS, 2)
    comment.show(run('QUEUED'))
    await until(() => gh.requestsTo('POST', COMMENTS).length === 1, "the older step's create")
    const other = renderMarker({ runId: 'run_newer', step: 'job/newer', key: 'k', runs: [] })
    const [{ data: duplicate }] = await Promise.all([
      octokit.rest.issues.createComment({
        owner: OWNER,
        repo: REPO,
        issue_number: PR,
        body: `${other}\n### Newer`,
      }),
      comment.settled(),
    ])
    expect(chosen).toBeDefined()
    expect(chosen).toBeLessThan(duplicate.id)
    // What the other step read of the older comment before the older step's last write.
    const stale = gh.comment(chosen ?? 0)?.body ?? ''
    expect(parseMarker(stale)?.runs[0]?.state).toBe('QUEUED')

    comment.show(run('SUCCEEDED'), end('SUCCEEDED'))
    const lists = gh.requestsTo('GET', COMMENTS).length
    const settled = comment.settled().then(() => 'settled' as const)
    // The older step is still looking well past its usual looks (300 and 700 ms), or done.
    const first = await Promise.race([
      until(() => gh.requestsTo('GET', COMMENTS).length >= lists + 3, 'three more lists').then(
        () => 'looking' as const,
      ),
      settled,
    ])
    expect(first).toBe('looking')
    // The other step's late write, then its own comment away.
    await octokit.rest.issues.updateComment({
      owner: OWNER,
      repo: REPO,
      comment_id: chosen ?? 0,
      body: stale,
    })
    await octokit.rest.issues.deleteComment({ owner: OWNER, repo: REPO, comment_id: duplicate.id })
    expect(await settled).toBe('settled')

    const [kept, ...more] = gh.comments(OWNER, REPO, PR)
    expect(more).toEqual([])
    expect(parseMarker(kept?.body ?? '')?.runs.map((r) => [r.runId, r.state])).toEqual([
      ['run_older', 'SUCCEEDED'],
    ])
    expect(warnings).toEqual([])
  })

  it("the older step's end outlasts the other step's next write, made from what it read before", async () => {
    const gh = await FakeGitHub.start()
    started.push(gh)
    const octokit = createOctokit('gh-token', gh.apiUrl)
    const warnings: string[] = []
    let chosen = 0
    const comment = ThreadComment.open(
      octokit,
      { owner: OWNER, repo: REPO, issueNumber: PR },
      {
        step: 'job/older',
        key: 'k',
        mode: 'keyed',
        log: { debug: () => {}, info: () => {}, warning: (line) => warnings.push(line) },
        onCommentChosen: (id) => (chosen = id),
      },
    )
    // Both creates reach GitHub before either is answered; the older step's arrives first.
    gh.holdUntil('POST', COMMENTS, 2)
    comment.show(run('QUEUED'))
    await until(() => gh.requestsTo('POST', COMMENTS).length === 1, "the older step's create")
    const newer = (state: RunItem['state'], outcome?: 'succeeded') => ({
      runId: 'run_newer',
      state,
      startedAt: new Date(Date.now() + 60_000).toISOString(),
      ...(outcome ? { outcome } : {}),
    })
    const [{ data: duplicate }] = await Promise.all([
      octokit.rest.issues.createComment({
        owner: OWNER,
        repo: REPO,
        issue_number: PR,
        body: `${renderMarker({ runId: 'run_newer', step: 'job/newer', key: 'k', runs: [newer('QUEUED')] })}\n### Newer`,
      }),
      comment.settled(),
    ])
    // The other step (the test) read the older comment before the older step's end landed.
    const read = parseMarker(gh.comment(chosen)?.body ?? '')?.runs ?? []
    expect(read.map((r) => r.state)).toEqual(['QUEUED'])
    const write = async (runs: typeof read) => {
      const marker = renderMarker({ runId: 'run_newer', step: 'job/newer', key: 'k', runs })
      const where = { owner: OWNER, repo: REPO, comment_id: chosen }
      await octokit.rest.issues.updateComment({ ...where, body: `${marker}\n### Newer` })
    }
    const PATCH = new RegExp(`/issues/comments/${chosen}$`)

    // The older step's end: its run's outcome, the step's last write.
    comment.show(run('SUCCEEDED'), end('SUCCEEDED'))
    const settled = comment.settled().then(() => 'settled' as const)
    await until(() => gh.requestsTo('PATCH', PATCH).length === 1, "the older step's end")
    // The other step, short of CPU, joins after the older step's usual looks (300 and 700 ms)
    // with what it read before, then deletes its own comment.
    const lists = gh.requestsTo('GET', COMMENTS).length
    await until(() => gh.requestsTo('GET', COMMENTS).length >= lists + 3, 'three more lists')
    await write([newer('QUEUED'), ...read])
    await octokit.rest.issues.deleteComment({ owner: OWNER, repo: REPO, comment_id: duplicate.id })
    await until(() => gh.requestsTo('PATCH', PATCH).length === 3, "the older step's end again")
    // The other step's run is still going and it has written nothing since the older step's
    // end: its next write may carry what it read before, so the older step is still looking.
    const readsSince = () => {
      const after = gh.requests.findLastIndex((r) => r.method === 'PATCH' && PATCH.test(r.path))
      return gh.requests.slice(after + 1).filter((r) => r.method === 'GET' && PATCH.test(r.path))
        .length
    }
    const looking = until(() => readsSince() >= 4, 'four more reads').then(() => 'looking' as const)
    expect(await Promise.race([looking, settled])).toBe('looking')
    // That write comes: made from the comment as the other step read it before.
    await write([newer('INPROGRESS'), ...read])
    const first = await Promise.race([
      until(
        () => gh.requestsTo('PATCH', PATCH).length === 5,
        "the older step's end once more",
      ).then(() => 'rewrote' as const),
      settled,
    ])
    expect(first).toBe('rewrote')
    // The other step's end, from a fresh read: the older step's end stays.
    const fresh = parseMarker(gh.comment(chosen)?.body ?? '')?.runs ?? []
    await write([newer('SUCCEEDED', 'succeeded'), ...fresh.filter((r) => r.runId !== 'run_newer')])
    expect(await settled).toBe('settled')

    const [kept, ...more] = gh.comments(OWNER, REPO, PR)
    expect(more).toEqual([])
    expect(parseMarker(kept?.body ?? '')?.runs.map((r) => [r.runId, r.state])).toEqual([
      ['run_newer', 'SUCCEEDED'],
      ['run_older', 'SUCCEEDED'],
    ])
    expect(warnings).toEqual([])
  })

  it("a wait written while a run of the key writes its state is put back over the run's stale write", async () => {
    const gh = await FakeGitHub.start()
    started.push(gh)
    const octokit = createOctokit('gh-token', gh.apiUrl)
    const where = { owner: OWNER, repo: REPO }
    // The key's comment shows a run still going: its step may write the comment any moment.
    const report = renderMarker({
      runId: 'run_going',
      step: 'job/run',
      key: 'k',
      runs: [{ runId: 'run_going', state: 'INPROGRESS', startedAt: '2026-12-02T10:00:00Z' }],
    })
    const { data: made } = await octokit.rest.issues.createComment({
      ...where,
      issue_number: PR,
      body: `${report}\n### Going`,
    })
    const head = 'a'.repeat(40)
    const section = renderWaiting({
      key: 'k',
      target: { ...where, number: PR, pin: { kind: 'commit', sha: head }, author: 'forker' },
      why: 'the change comes from a fork (`approval: forks`)',
      fork: true,
      approverPermission: 'write',
      prompt: 'digest',
      workflowRun: undefined,
    })
    const warnings: string[] = []
    const log = { debug: () => {}, info: () => {}, warning: (line: string) => warnings.push(line) }
    // The wait's write and the run step's (made from what it read before) land together, the
    // run's last.
    const PATCH = /\/issues\/comments\/\d+$/
    gh.holdUntil('PATCH', PATCH, 2)
    const writing = new ApprovalComment(octokit, { ...where, number: PR }, 'k', log).write(
      section,
      'Nothing was started.',
    )
    await until(() => gh.requestsTo('PATCH', PATCH).length === 1, "the wait's write")
    await octokit.rest.issues.updateComment({
      ...where,
      comment_id: made.id,
      body: `${report}\n### Still going`,
    })
    await until(() => gh.requestsTo('PATCH', PATCH).length === 3, 'the wait written again')
    // The run step's next write reads the comment afresh, and keeps the wait: then it is done.
    const fresh = gh.comment(made.id)?.body ?? ''
    await octokit.rest.issues.updateComment({
      ...where,
      comment_id: made.id,
      body: fresh.replace('### Still going', '### Going on'),
    })
    expect(await writing).toBe(true)

    const [kept, ...more] = gh.comments(OWNER, REPO, PR)
    expect(more).toEqual([])
    expect(parseApprovalMarker(kept?.body ?? '')).toMatchObject({ key: 'k', head })
    expect(kept?.body).toContain('### Going on')
    expect(gh.requestsTo('PATCH', PATCH)).toHaveLength(4)
    expect(warnings).toEqual([])
  })
})
