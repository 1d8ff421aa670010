/**
 * The approval's part of the key's comment, written while another step of the key writes the
 * comment too (a run still going below it), against the fake GitHub. GitHub has no
 * compare-and-swap: that step writes back what it read, approval part and all, so a write of
 * its made from a read taken before the approval's landed puts the old part back. Here the test
 * is that step, and its stale write lands after the approval step's usual looks (300 and 700 ms):
 * the approval step still looks, puts its part back, and stops only once that step can no longer
 * put back what it read before (a write of its has kept the part, or its run has ended).
 */
import { afterAll, describe, expect, it } from 'vitest'
import {
  ApprovalComment,
  parseApprovalMarker,
  renderWaiting,
} from '../../src/github/approval-comment.ts'
import { createOctokit } from '../../src/github/client.ts'
import { renderMarker } from '../../src/github/run-marker.ts'
import { FakeGitHub } from '../fake-github/server.ts'
import { until } from '../support/until.ts'

const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
const where = { owner: OWNER, repo: REPO }
const PATCH = /\/issues\/comments\/\d+$/
const HEAD = 'a'.repeat(40)

const started: FakeGitHub[] = []
afterAll(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()))
})

/** The report of a run of the key, as its step writes it: going, or ended. */
function report(state: 'INPROGRESS' | 'SUCCEEDED', title: string): string {
  const outcome = state === 'SUCCEEDED' ? { outcome: 'succeeded' as const } : {}
  const marker = renderMarker({
    runId: 'run_going',
    step: 'job/run',
    key: 'k',
    runs: [{ runId: 'run_going', state, startedAt: '2026-12-02T10:00:00Z', ...outcome }],
  })
  return `${marker}\n### ${title}`
}

const section = renderWaiting({
  key: 'k',
  target: { ...where, number: PR, pin: { kind: 'commit', sha: HEAD }, author: 'forker' },
  why: 'the change comes from a fork (`approval: forks`)',
  fork: true,
  approverPermission: 'write',
  prompt: 'digest',
  workflowRun: undefined,
})

/** The key's comment, showing a run still going, and the approval step about to write into it. */
async function keyWithRunGoing() {
  const gh = await FakeGitHub.start()
  started.push(gh)
  const octokit = createOctokit('gh-token', gh.apiUrl)
  const { data: made } = await octokit.rest.issues.createComment({
    ...where,
    issue_number: PR,
    body: report('INPROGRESS', 'Going'),
  })
  const warnings: string[] = []
  const log = { debug: () => {}, info: () => {}, warning: (line: string) => warnings.push(line) }
  const comment = new ApprovalComment(octokit, { ...where, number: PR }, 'k', log)
  /** A write of the run's step, as the test plays it. */
  const write = async (body: string) => {
    await octokit.rest.issues.updateComment({ ...where, comment_id: made.id, body })
  }
  /** The approval step's reads of the comment since the last write to it. */
  const readsSinceWrite = () => {
    const last = gh.requests.findLastIndex((r) => r.method === 'PATCH' && PATCH.test(r.path))
    return gh.requests.slice(last + 1).filter((r) => r.method === 'GET' && PATCH.test(r.path))
      .length
  }
  return { gh, made, comment, warnings, write, readsSinceWrite }
}

describe("the approval's part written while a run of the key writes the comment", () => {
  it("outlasts the run step's stale write, landing after the usual looks", async () => {
    const { gh, made, comment, warnings, write, readsSinceWrite } = await keyWithRunGoing()
    const writing = comment.write(section, 'Nothing was started.').then(() => 'done' as const)
    await until(() => gh.requestsTo('PATCH', PATCH).length === 1, "the approval's write")
    // The run's step read the comment before that write landed; short of CPU, its write comes
    // after three looks (the old rule stopped after two).
    const looking = until(() => readsSinceWrite() >= 3, 'three looks').then(
      () => 'looking' as const,
    )
    expect(await Promise.race([looking, writing])).toBe('looking')
    await write(report('INPROGRESS', 'Still going'))
    await until(() => gh.requestsTo('PATCH', PATCH).length === 3, "the approval's part again")
    // The run is still going and its step has written nothing since: still looking.
    const again = until(() => readsSinceWrite() >= 3, 'three more looks').then(
      () => 'looking' as const,
    )
    expect(await Promise.race([again, writing])).toBe('looking')
    // The run step's next write reads the comment afresh: it keeps the part, and the approval
    // step stops, with nothing more written.
    const fresh = gh.comment(made.id)?.body ?? ''
    await write(fresh.replace('### Still going', '### Fresher'))
    expect(await writing).toBe('done')

    const [kept, ...more] = gh.comments(OWNER, REPO, PR)
    expect(more).toEqual([])
    expect(parseApprovalMarker(kept?.body ?? '')).toMatchObject({ key: 'k', head: HEAD })
    expect(kept?.body).toContain('### Fresher')
    expect(gh.requestsTo('PATCH', PATCH)).toHaveLength(4)
    expect(warnings).toEqual([])
  })

  it("stops once the run's end shows below its part: that step writes from a fresh read now", async () => {
    const { gh, made, comment, warnings, write, readsSinceWrite } = await keyWithRunGoing()
    const writing = comment.write(section, 'Nothing was started.').then(() => 'done' as const)
    await until(() => gh.requestsTo('PATCH', PATCH).length === 1, "the approval's write")
    await until(() => readsSinceWrite() >= 1, 'a look')
    // The run's end, written from a read after the approval's part landed: it keeps the part.
    const fresh = gh.comment(made.id)?.body ?? ''
    await write(fresh.replace(report('INPROGRESS', 'Going'), report('SUCCEEDED', 'Done')))
    expect(await writing).toBe('done')
    const [kept] = gh.comments(OWNER, REPO, PR)
    expect(parseApprovalMarker(kept?.body ?? '')).toMatchObject({ key: 'k', head: HEAD })
    expect(kept?.body).toContain('### Done')
    expect(gh.requestsTo('PATCH', PATCH)).toHaveLength(2)
    expect(warnings).toEqual([])
  })

  it('with no run or set going below it, the part is written once and not looked at', async () => {
    const gh = await FakeGitHub.start()
    started.push(gh)
    const octokit = createOctokit('gh-token', gh.apiUrl)
    await octokit.rest.issues.createComment({
      ...where,
      issue_number: PR,
      body: report('SUCCEEDED', 'Done'),
    })
    const log = { debug: () => {}, info: () => {}, warning: () => {} }
    const comment = new ApprovalComment(octokit, { ...where, number: PR }, 'k', log)
    expect(await comment.write(section, 'Nothing was started.')).toBe(true)
    expect(gh.requestsTo('PATCH', PATCH)).toHaveLength(1)
    // The list (find) and the one read before the write: no look after it.
    expect(gh.requestsTo('GET', PATCH)).toHaveLength(1)
  })
})
