/**
 * The approval's part of the key's one comment: written at its head, kept by every write of the
 * run's or the set's report below it, read only where the action alone writes it; and the rule
 * that an approval counts only when made after the key's comment was last written, whatever the
 * record in it says.
 */
import { describe, expect, it } from 'vitest'
import {
  joinApproval,
  parseApprovalMarker,
  renderApproved,
  renderWaiting,
  splitApproval,
} from '../../src/github/approval-comment.ts'
import { lateness, type ApprovalTarget } from '../../src/github/approvals-given.ts'
import { keyedMarkerOf, reportOf } from '../../src/github/keyed-comment.ts'
import { renderMarker } from '../../src/github/run-marker.ts'
import { approvalAfterWait, type ApprovalClaim } from '../../src/model/approval.ts'

const HEAD = '5c1e2d4f7a9b0c3e6f8a1b2c4d5e7f9a0b1c2d3e'
const OTHER = '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432'
const KEY = 'fork-review-7'
const target: ApprovalTarget = {
  owner: 'octo-org',
  repo: 'app',
  number: 7,
  pin: { kind: 'commit', sha: HEAD },
  author: 'forker',
}
const words = {
  key: KEY,
  target,
  why: 'the change comes from a fork (`approval: forks`)',
  fork: true,
  approverPermission: 'write',
  prompt: 'digest',
  workflowRun: 'https://github.com/octo-org/app/actions/runs/1',
}
const waiting = renderWaiting(words)
const approved = renderApproved({ ...words, login: 'maintainer', via: 'comment' })
/** A run's report as keyed-run-comment.ts writes it: its marker's line first. */
const report = [
  renderMarker({ runId: 'run_1', step: 'review/review', key: KEY, runs: [] }),
  '### ✅ Review of PR #7',
  '',
  '**Succeeded**',
].join('\n')

describe("the approval's part of the key's comment", () => {
  it('heads the comment with its marker, and splits from the report below it as it was joined', () => {
    for (const section of [waiting, approved]) {
      expect(section).toMatch(/^<!-- cloud-agent-approval: \{"key":"fork-review-7"/)
      const body = joinApproval(section, report)
      expect(splitApproval(body)).toEqual({
        approval: { marker: parseApprovalMarker(section), section },
        rest: report,
      })
      expect(keyedMarkerOf(body)).toMatchObject({ kind: 'run', key: KEY })
    }
    expect(splitApproval(waiting)).toMatchObject({ rest: '' })
    expect(keyedMarkerOf(waiting)).toEqual({ kind: 'approval', key: KEY })
    expect(parseApprovalMarker(approved)).toMatchObject({ head: HEAD, approved: true })
    expect(joinApproval(undefined, report)).toBe(report)
  })

  it('is kept by a write of the report, and only in a comment by the action', () => {
    const me = 'github-actions[bot]'
    const ours = reportOf({ body: joinApproval(waiting, report), user: { login: me }, me })
    expect(ours.report.body).toBe(report)
    const written = ours.write('<!-- cloud-agent-run: {"run_id":"run_2"} -->\nnew')
    expect(written).toBe(
      `${waiting}\n\n---\n\n<sub>This key's latest run or set:</sub>\n\n<!-- cloud-agent-run: {"run_id":"run_2"} -->\nnew`,
    )
    // Written again and again, it stays the same: the rule below the wait is never doubled.
    const again = reportOf({ body: written, user: { login: me }, me })
    expect(again.write(again.report.body ?? '')).toBe(written)
    const theirs = reportOf({ body: joinApproval(waiting, report), user: { login: 'x' }, me })
    expect(theirs.write('new')).toBe('new')
  })

  it('is never read from inside a report: a marker there is text, not a record', () => {
    const spoof = `<!-- cloud-agent-approval: ${JSON.stringify({ key: KEY, head: HEAD, prompt: 'digest', approved: false })} -->`
    for (const body of [
      `${report}\n\n${spoof}`,
      `<!-- cloud-agent-set: {"key":"${KEY}","step":"s","sets":[]} -->\n${spoof}`,
      `Some words first\n${spoof}\n${report}`,
    ]) {
      expect(parseApprovalMarker(body)).toBeUndefined()
      expect(splitApproval(body).rest).toBe(body)
    }
  })

  it('reads an approval comment of 1.2 (its marker last), and writes it back marker first', () => {
    const marker = waiting.split('\n', 1)[0] ?? ''
    const old = `${waiting.slice(marker.length + 1)}\n${marker}`
    const { approval, rest } = splitApproval(old)
    expect(approval?.marker).toEqual(parseApprovalMarker(waiting))
    expect(approval?.section).toBe(waiting)
    expect(rest).toBe('')
    expect(parseApprovalMarker(joinApproval(approval?.section, report))?.head).toBe(HEAD)
  })

  it("says plainly that a review starts nothing by itself on a fork's pull request: re-run the job", () => {
    expect(waiting).toContain('starts nothing by itself')
    expect(waiting).toContain('after the review, re-run this waiting job')
    expect(renderWaiting({ ...words, fork: false })).toContain(
      're-run this waiting job, unless the workflow also runs on `pull_request_review`',
    )
  })
})

describe("an approval counts only when made after the key's comment was last written", () => {
  const review = (madeAt: string): ApprovalClaim => ({
    via: 'review',
    login: 'maintainer',
    isBot: false,
    sha: HEAD,
    madeAt,
  })
  const writtenAt = '2026-12-02T10:00:00Z'

  it('a review of a head the record does not pin: made before the last write, it counts for nothing', () => {
    // An earlier step's write left the record of another head (GitHub has no compare-and-swap).
    const record = { pin: OTHER, writtenAt }
    expect(lateness(review('2026-12-02T09:59:59Z'), target.pin, record)).toMatch(
      /was made before, or in the same second as, the key's comment/,
    )
    expect(lateness(review('2026-12-02T10:00:01Z'), target.pin, record)).toBeUndefined()
    expect(lateness(review('2026-12-02T09:00:00Z'), target.pin, undefined)).toBeUndefined()
  })

  it("a key's comment that records no approval orders a review and a whole-SHA comment all the same", () => {
    const record = { pin: undefined, writtenAt }
    expect(lateness(review('2026-12-02T10:00:00Z'), target.pin, record)).toMatch(/same second/)
    const comment = (sha: string, madeAt: string) => ({ sha, madeAt })
    expect(approvalAfterWait(comment(HEAD, '2026-12-02T09:59:00Z'), HEAD, record)).toMatch(
      /same second/,
    )
    expect(approvalAfterWait(comment(HEAD, '2026-12-02T10:00:01Z'), HEAD, record)).toBeUndefined()
    expect(approvalAfterWait(comment(HEAD.slice(0, 7), '2026-12-02T10:00:01Z'), HEAD, record)).toBe(
      'no step waited for this head, so a comment must give its whole SHA',
    )
    const item = { kind: 'item', item: 'issue #12', digest: 'ab'.repeat(10) } as const
    expect(lateness({ ...review('2026-12-02T10:00:01Z'), via: 'comment' }, item, record)).toBe(
      'no step waited for issue #12',
    )
  })
})
