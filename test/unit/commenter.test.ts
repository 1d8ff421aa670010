import { describe, expect, it } from 'vitest'
import { judgeRole, roleOf, screenAuthor } from '../../src/github/commenter.ts'
import { eventAuthorOf, eventHeadSha, eventThread } from '../../src/github/event.ts'

const rules = { commenterPermission: 'write' as const, allowedBots: ['renovate'] }
const person = { login: 'alice', isBot: false, what: 'comment' as const }

describe('screenAuthor: what is decided before asking GitHub', () => {
  it('refuses the action’s own comments, whatever else is true', () => {
    const own = screenAuthor(
      { login: 'github-actions[bot]', isBot: true, what: 'comment' },
      'github-actions[bot]',
      { ...rules, allowedBots: ['github-actions'] },
    )
    expect(own).toMatchObject({ kind: 'decided', admission: { admitted: false } })
    expect(screenAuthor({ ...person, login: 'Agent-User' }, 'agent-user', rules)).toMatchObject({
      admission: { admitted: false, reason: expect.stringContaining("action's own") },
    })
  })

  it('admits only the bots allowed_bots lists, with or without [bot]', () => {
    expect(
      screenAuthor({ login: 'renovate[bot]', isBot: true, what: 'comment' }, 'me', rules),
    ).toMatchObject({ admission: { admitted: true } })
    expect(
      screenAuthor({ login: 'dependabot[bot]', isBot: true, what: 'comment' }, 'me', rules),
    ).toMatchObject({
      admission: {
        admitted: false,
        reason: '@dependabot[bot] is a bot, and allowed_bots does not list it',
      },
    })
  })

  it('sends people on to the permission check, and refuses an event without an author', () => {
    expect(screenAuthor(person, 'me', rules)).toEqual({ kind: 'check-permission', login: 'alice' })
    expect(screenAuthor(undefined, 'me', rules)).toMatchObject({ admission: { admitted: false } })
  })
})

describe('roleOf and judgeRole', () => {
  it('reads role_name, which tells triage and maintain apart, else permission', () => {
    expect(roleOf({ permission: 'read', role_name: 'triage' })).toBe('triage')
    expect(roleOf({ permission: 'write', role_name: 'maintain' })).toBe('maintain')
    expect(roleOf({ permission: 'write', role_name: 'security-reviewer' })).toBe('write')
    expect(roleOf({ permission: 'none', role_name: 'none' })).toBe('none')
    expect(roleOf({})).toBe('none')
  })

  it.each([
    ['read', 'write', false],
    ['triage', 'write', false],
    ['write', 'write', true],
    ['maintain', 'write', true],
    ['admin', 'write', true],
    ['none', 'read', false],
    ['read', 'read', true],
    ['maintain', 'admin', false],
  ] as const)('%s against commenter_permission %s: admitted %s', (role, least, admitted) => {
    expect(judgeRole('alice', role, least).admitted).toBe(admitted)
  })

  it('says why in words', () => {
    expect(judgeRole('alice', 'read', 'write').reason).toBe(
      '@alice has read permission on the repository; commenter_permission asks for at least write',
    )
    expect(judgeRole('bob', 'none', 'read').reason).toContain('@bob has no permission')
  })
})

describe('the event payload', () => {
  it('finds the author of a comment, a review, else the sender', () => {
    expect(
      eventAuthorOf({
        comment: { user: { login: 'alice', type: 'User' } },
        sender: { login: 'x' },
      }),
    ).toEqual({ login: 'alice', isBot: false, what: 'comment' })
    expect(eventAuthorOf({ review: { user: { login: 'r[bot]' } } })).toEqual({
      login: 'r[bot]',
      isBot: true,
      what: 'review',
    })
    expect(eventAuthorOf({ sender: { login: 'app', type: 'Bot' } })).toMatchObject({ isBot: true })
    expect(eventAuthorOf({})).toBeUndefined()
    expect(eventAuthorOf(undefined)).toBeUndefined()
  })

  it('reads the head SHA of a pull_request event and the pull request of a comment', () => {
    expect(eventHeadSha({ pull_request: { number: 1, head: { sha: 'a'.repeat(40) } } })).toBe(
      'a'.repeat(40),
    )
    expect(eventHeadSha({ pull_request: { head: { sha: 'main' } } })).toBeUndefined()
    expect(eventThread({ issue: { number: 7, pull_request: {} } })).toEqual({
      number: 7,
      pullRequest: true,
    })
    expect(eventThread({ issue: { number: 7 } })).toEqual({ number: 7, pullRequest: false })
    expect(eventThread({ pull_request: { number: 8 } })).toEqual({ number: 8, pullRequest: true })
  })

  it('reads a check’s pull request as the thread, never one of another repository', () => {
    const pull = (number: number, repo: string) => ({
      number,
      base: { repo: { url: `https://api.github.com/repos/${repo}` } },
    })
    const listed = [pull(3, 'upstream/app'), pull(4, 'octo-org/App')]
    for (const event of ['workflow_run', 'check_suite', 'check_run'] as const) {
      const payload = { [event]: { pull_requests: listed } }
      expect(eventThread(payload, 'octo-org/app')).toEqual({ number: 4, pullRequest: true })
      expect(eventThread({ [event]: { pull_requests: [] } }, 'octo-org/app')).toBeUndefined()
    }
    expect(eventThread({ workflow_run: { pull_requests: [{ number: 9 }] } })).toEqual({
      number: 9,
      pullRequest: true,
    })
  })
})
