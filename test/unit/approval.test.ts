import { describe, expect, it } from 'vitest'
import {
  approvalAfterWait,
  approvalNeeded,
  approveCommandOf,
  approveLine,
  judgeApprover,
  looksLikeApprove,
  meetsRole,
  namesHead,
  pinValue,
  screenApproval,
  type ApprovalClaim,
} from '../../src/model/approval.ts'

const HEAD = '0123456789abcdef0123456789abcdef01234567'
const OTHER = 'fedcba9876543210fedcba9876543210fedcba98'
const PIN = { kind: 'commit', sha: HEAD } as const
const target = { pin: PIN, author: 'forker' }
const claim = (over: Partial<ApprovalClaim> = {}): ApprovalClaim => ({
  via: 'comment',
  login: 'maintainer',
  isBot: false,
  sha: HEAD.slice(0, 7),
  ...over,
})

describe('approval: when a run needs one', () => {
  it('asks for one by the policy: never, for a fork or a comment below commenter_permission, always', () => {
    const same = { fork: false }
    expect(approvalNeeded('none', { fork: true, wordsBelow: 'comment' })).toBeUndefined()
    expect(approvalNeeded('forks', same)).toBeUndefined()
    expect(approvalNeeded('forks', { ...same, fork: true })).toMatch(/fork/)
    expect(approvalNeeded('forks', { ...same, wordsBelow: 'review' })).toMatch(
      /^the review that started it is by someone below `commenter_permission`/,
    )
    expect(approvalNeeded('forks', { ...same, wordsBelow: 'issue' })).toMatch(/^the issue/)
    expect(approvalNeeded('always', same)).toMatch(/approval: always/)
  })
})

describe('approval: the /approve comment', () => {
  it('reads /approve and 7 to 40 hex characters from the first line, lower-cased', () => {
    expect(approveCommandOf(`/approve ${HEAD}`)).toBe(HEAD)
    expect(approveCommandOf('/approve 0123456')).toBe('0123456')
    expect(approveCommandOf('  /approve   0123ABC  \nlooks good')).toBe('0123abc')
    expect(approveLine(HEAD)).toBe(`/approve ${HEAD}`)
    expect(approveCommandOf(approveLine(HEAD))).toBe(HEAD)
  })

  it('reads nothing else: a short or long SHA, no SHA, other words, another line', () => {
    for (const body of [
      '/approve 012345',
      `/approve ${HEAD}0`,
      '/approve',
      '/approve xyz1234',
      `/approve ${HEAD} please`,
      `please /approve ${HEAD}`,
      `LGTM\n/approve ${HEAD}`,
      `/approved ${HEAD}`,
      '',
      undefined,
    ]) {
      expect([body, approveCommandOf(body)]).toEqual([body, undefined])
    }
    expect(looksLikeApprove('/approve later')).toBe(true)
    expect(looksLikeApprove('LGTM')).toBe(false)
  })
})

describe('approval: what counts, for one head commit only', () => {
  it('names the head by 7 or more of its characters, and nothing else', () => {
    expect(namesHead(HEAD.slice(0, 7), HEAD)).toBe(true)
    expect(namesHead(HEAD.toUpperCase(), HEAD)).toBe(true)
    expect(namesHead(HEAD.slice(0, 6), HEAD)).toBe(false)
    expect(namesHead(OTHER.slice(0, 12), HEAD)).toBe(false)
  })

  it('refuses an edited comment, a bot, the author and another commit before asking GitHub', () => {
    const refused = (over: Partial<ApprovalClaim>) => {
      const screening = screenApproval(claim(over), target)
      return screening.kind === 'refused' ? screening.reason : undefined
    }
    expect(refused({ void: 'the comment was edited' })).toBe('the comment was edited')
    expect(refused({ login: 'renovate[bot]', isBot: true })).toMatch(/bots never approve/)
    expect(refused({ login: 'Forker' })).toMatch(/author never approves/)
    expect(refused({ sha: OTHER.slice(0, 7) })).toMatch(/not the head 0123456789ab; a newer push/)
    expect(refused({ via: 'review', sha: OTHER })).toMatch(/^the review approves fedcba987654/)
    expect(screenApproval(claim(), target)).toEqual({
      kind: 'check-permission',
      login: 'maintainer',
    })
  })

  it('counts an approver at approver_permission or above, and no one below', () => {
    expect(judgeApprover(claim(), 'write', 'write', PIN)).toEqual({
      counts: true,
      reason: '@maintainer (write) approved 0123456789ab in a comment (approver_permission: write)',
    })
    expect(judgeApprover(claim(), 'triage', 'write', PIN).counts).toBe(false)
    expect(judgeApprover(claim(), 'none', 'read', PIN).reason).toMatch(/has no permission/)
    expect(judgeApprover(claim(), 'admin', 'maintain', PIN).counts).toBe(true)
    expect(meetsRole('maintain', 'admin')).toBe(false)
  })

  it('counts a comment only after the wait it answers, for the head that waited, a whole second after', () => {
    const at = (madeAt: string) => ({ madeAt, sha: HEAD.slice(0, 7) })
    const waiting = { pin: HEAD, writtenAt: '2026-11-27T20:15:00Z' }
    expect(approvalAfterWait(at('2026-11-27T20:15:01Z'), HEAD, waiting)).toBeUndefined()
    expect(approvalAfterWait(at('2026-11-27T20:16:00Z'), HEAD, waiting)).toBeUndefined()
    // GitHub orders whole seconds only: the same second could be before the wait.
    for (const same of [
      '2026-11-27T20:15:00Z',
      '2026-11-27T20:15:00.400Z',
      '2026-11-27T20:14:59Z',
    ]) {
      expect(approvalAfterWait(at(same), HEAD, waiting)).toMatch(
        /^the approval of 0123456789ab was made before, or in the same second as, the key's comment on the thread was last written/,
      )
    }
    expect(approvalAfterWait(at('2026-11-27T20:16:00Z'), OTHER, waiting)).toMatch(
      /^the head moved to fedcba987654 after the step waited for 0123456789ab/,
    )
    expect(approvalAfterWait({ sha: HEAD.slice(0, 7) }, HEAD, waiting)).toMatch(/cannot be checked/)
    expect(
      approvalAfterWait(at('2026-11-27T20:16:00Z'), HEAD, { pin: HEAD, writtenAt: undefined }),
    ).toMatch(/cannot be checked/)
  })

  it('pins an item to its digest in full: a prefix or another text counts for nothing', () => {
    const item = {
      pin: { kind: 'item', item: 'issue #12', digest: 'ab'.repeat(10) },
      author: 'stranger',
    } as const
    const screen = (sha: string, login = 'maintainer') =>
      screenApproval(claim({ sha, login }), item).kind
    expect(screen('ab'.repeat(10))).toBe('check-permission')
    expect(screen('ab'.repeat(5))).toBe('refused')
    expect(screen('ab'.repeat(10), 'Stranger')).toBe('refused')
    expect(pinValue(item.pin)).toBe('ab'.repeat(10))
    expect(judgeApprover(claim(), 'write', 'write', item.pin).reason).toContain(
      'approved issue #12',
    )
  })

  it('counts a comment with no wait before it only when it gives the whole SHA', () => {
    expect(approvalAfterWait({ sha: HEAD.slice(0, 12) }, HEAD, undefined)).toBe(
      'no step waited for this head, so a comment must give its whole SHA',
    )
    expect(approvalAfterWait({ sha: HEAD }, HEAD, undefined)).toBeUndefined()
  })
})
