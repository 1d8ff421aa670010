import { createOctokit, type GitHubClient } from '../../src/github/client.ts'
import { afterEach, describe, expect, it } from 'vitest'
import { FakeGitHub, MAX_COMMENT_BODY } from './server.ts'
import type { Comment, FakeGitHubOptions } from './server.ts'

const started: FakeGitHub[] = []

afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()))
})

async function startFake(options?: FakeGitHubOptions): Promise<FakeGitHub> {
  const fake = await FakeGitHub.start(options)
  started.push(fake)
  return fake
}

function client(fake: FakeGitHub, token = 'gh-token'): GitHubClient {
  return createOctokit(token, fake.apiUrl)
}

/** The rejection of `promise`, which must reject. */
async function failure(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(Error)
  return error as { status: number; message: string }
}

const repo = { owner: 'octo-org', repo: 'widgets' }

describe('auth', () => {
  it('accepts the token as "token X" (what octokit sends) and as "Bearer X"', async () => {
    const fake = await startFake({ identity: { login: 'octocat' } })
    const { data } = await client(fake).rest.users.getAuthenticated()
    expect(data.login).toBe('octocat')
    expect(fake.requests[0]?.headers.authorization).toBe('token gh-token')

    const res = await fetch(`${fake.apiUrl}/user`, {
      headers: { authorization: 'Bearer gh-token' },
    })
    expect(res.status).toBe(200)
  })

  it('answers 401 Bad credentials to a wrong or missing token, and acts on nothing', async () => {
    const fake = await startFake({ token: 'right' })
    const error = await failure(
      client(fake, 'wrong').rest.issues.createComment({ ...repo, issue_number: 1, body: 'hi' }),
    )
    expect(error.status).toBe(401)
    expect(error.message).toContain('Bad credentials')

    const res = await fetch(`${fake.apiUrl}/repos/octo-org/widgets/issues/1/comments`)
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ message: 'Bad credentials' })
    expect(fake.comments('octo-org', 'widgets', 1)).toEqual([])
  })
})

describe('identity', () => {
  it("by default acts like GITHUB_TOKEN: GET /user is 403 and comments are github-actions[bot]'s", async () => {
    const fake = await startFake()
    const octokit = client(fake)
    const error = await failure(octokit.rest.users.getAuthenticated())
    expect(error.status).toBe(403)
    expect(error.message).toContain('Resource not accessible by integration')

    const { data, status } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 7,
      body: 'hello',
    })
    expect(status).toBe(201)
    expect(data.user).toMatchObject({ login: 'github-actions[bot]', type: 'Bot', id: 41898282 })
    expect(fake.tokenUser.login).toBe('github-actions[bot]')
  })

  it('uses botLogin as the author of token comments in integration mode', async () => {
    const fake = await startFake({ identity: 'integration', botLogin: 'my-app[bot]' })
    const { data } = await client(fake).rest.issues.createComment({
      ...repo,
      issue_number: 7,
      body: 'hello',
    })
    expect(data.user).toMatchObject({ login: 'my-app[bot]', type: 'Bot' })
  })

  it('with a user identity, GET /user answers the user and comments are by them', async () => {
    const fake = await startFake({ identity: { login: 'release-bot', type: 'Bot' } })
    const octokit = client(fake)
    const { data: me } = await octokit.rest.users.getAuthenticated()
    expect(me).toMatchObject({ login: 'release-bot', type: 'Bot' })
    const { data } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 3,
      body: 'x',
    })
    expect(data.user?.login).toBe('release-bot')
    expect(data.user?.id).toBe(me.id)
  })
})

describe('comments', () => {
  it('creates, lists and updates comments with GitHub-shaped JSON', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    const seeded = fake.addComment('octo-org', 'widgets', 12, '@agent please look', 'alice')
    expect(seeded.user).toMatchObject({ login: 'alice', type: 'User' })

    const { data: created } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 12,
      body: '<!-- marker --> queued',
    })
    expect(created).toMatchObject({
      body: '<!-- marker --> queued',
      html_url: `https://github.com/octo-org/widgets/issues/12#issuecomment-${created.id}`,
      issue_url: `${fake.apiUrl}/repos/octo-org/widgets/issues/12`,
      url: `${fake.apiUrl}/repos/octo-org/widgets/issues/comments/${created.id}`,
    })
    expect(created.node_id).toMatch(/^IC_/)
    expect(created.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(created.updated_at).toBe(created.created_at)
    expect(created.id).toBeGreaterThan(seeded.id)

    const { data: listed } = await octokit.rest.issues.listComments({ ...repo, issue_number: 12 })
    expect(listed.map((c) => c.id)).toEqual([seeded.id, created.id])
    expect(listed[1]).toEqual(created)

    const { data: updated } = await octokit.rest.issues.updateComment({
      ...repo,
      comment_id: created.id,
      body: '<!-- marker --> done',
    })
    expect(updated.id).toBe(created.id)
    expect(updated.body).toBe('<!-- marker --> done')
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at))
    expect(fake.comments('octo-org', 'widgets', 12).map((c) => c.body)).toEqual([
      '@agent please look',
      '<!-- marker --> done',
    ])
    expect(fake.comment(created.id)?.body).toBe('<!-- marker --> done')

    expect(fake.requestsTo('POST', /\/issues\/12\/comments$/)[0]?.json).toEqual({
      body: '<!-- marker --> queued',
    })
    expect(fake.requestsTo('PATCH', /\/issues\/comments\/\d+$/)).toHaveLength(1)
  })

  it('keeps threads apart and matches owner and repo case-insensitively', async () => {
    const fake = await startFake()
    fake.addComment('octo-org', 'widgets', 1, 'on 1', 'bob')
    fake.addComment('octo-org', 'widgets', 2, 'on 2', 'bob')
    fake.addComment('octo-org', 'gadgets', 1, 'other repo', 'bob')
    const { data } = await client(fake).rest.issues.listComments({
      owner: 'Octo-Org',
      repo: 'Widgets',
      issue_number: 1,
    })
    expect(data.map((c) => c.body)).toEqual(['on 1'])
  })

  it('infers Bot from a [bot] login, OWNER from the repo owner, and honours createdAt', async () => {
    const fake = await startFake()
    const bot = fake.addComment('octo-org', 'widgets', 1, 'b', 'dependabot[bot]')
    const owner = fake.addComment('octo-org', 'widgets', 1, 'o', 'octo-org')
    const old = fake.addComment('octo-org', 'widgets', 1, 'old', 'eve', {
      createdAt: '2020-01-02T03:04:05.678Z',
      association: 'CONTRIBUTOR',
    })
    expect(bot.user.type).toBe('Bot')
    expect(bot.author_association).toBe('NONE')
    expect(owner.author_association).toBe('OWNER')
    expect(old).toMatchObject({
      created_at: '2020-01-02T03:04:05Z',
      updated_at: '2020-01-02T03:04:05Z',
      author_association: 'CONTRIBUTOR',
    })
  })

  it('hands out copies, so a test cannot change the stored comments by accident', async () => {
    const fake = await startFake()
    const seeded: Comment = fake.addComment('o', 'r', 1, 'original', 'bob')
    seeded.body = 'changed'
    const listed = fake.comments('o', 'r', 1)
    expect(listed[0]?.body).toBe('original')
    if (listed[0]) listed[0].user.login = 'mallory'
    expect(fake.comments('o', 'r', 1)[0]?.user.login).toBe('bob')
  })

  it('answers 404 to an update of a comment that does not exist or is in another repo', async () => {
    const fake = await startFake()
    const elsewhere = fake.addComment('octo-org', 'gadgets', 1, 'x', 'bob')
    const octokit = client(fake)
    for (const commentId of [elsewhere.id, 999]) {
      const error = await failure(
        octokit.rest.issues.updateComment({ ...repo, comment_id: commentId, body: 'y' }),
      )
      expect(error.status).toBe(404)
    }
    expect(fake.comment(elsewhere.id)?.body).toBe('x')
  })

  it('validates the body: 422 when missing or longer than GitHub allows, 400 when not JSON', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    const missing = await failure(
      octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: '' }),
    )
    expect(missing.status).toBe(422)
    expect(missing.message).toContain('missing_field')

    const tooLong = await failure(
      octokit.rest.issues.createComment({
        ...repo,
        issue_number: 1,
        body: 'x'.repeat(MAX_COMMENT_BODY + 1),
      }),
    )
    expect(tooLong.status).toBe(422)
    expect(tooLong.message).toContain('body is too long (maximum is 65536 characters)')

    await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: 'x'.repeat(MAX_COMMENT_BODY),
    })

    const res = await fetch(`${fake.apiUrl}/repos/octo-org/widgets/issues/1/comments`, {
      method: 'POST',
      headers: { authorization: 'token gh-token' },
      body: '{not json',
    })
    expect(res.status).toBe(400)
    expect(fake.comments('octo-org', 'widgets', 1)).toHaveLength(1)
  })
})

describe('pagination', () => {
  function seed(fake: FakeGitHub, count: number): void {
    for (let i = 1; i <= count; i++) fake.addComment('octo-org', 'widgets', 5, `c${i}`, 'alice')
  }

  it('octokit.paginate returns every comment across pages, in order', async () => {
    const fake = await startFake()
    seed(fake, 75)
    const all = await client(fake).paginate(client(fake).rest.issues.listComments, {
      ...repo,
      issue_number: 5,
      per_page: 20,
    })
    expect(all.map((c) => c.body)).toEqual(Array.from({ length: 75 }, (_, i) => `c${i + 1}`))
    const pages = fake.requestsTo('GET', /\/comments$/).map((r) => r.query.get('page') ?? '1')
    expect(pages).toEqual(['1', '2', '3', '4'])
  })

  it('sends a Link header with absolute next/last/prev/first URLs to itself', async () => {
    const fake = await startFake()
    seed(fake, 75)
    const base = `${fake.apiUrl}/repos/octo-org/widgets/issues/5/comments`
    const get = (query: string): Promise<Response> =>
      fetch(`${base}?${query}`, { headers: { authorization: 'token gh-token' } })

    const first = await get('per_page=20&since=2000-01-01T00:00:00Z')
    expect(((await first.json()) as unknown[]).length).toBe(20)
    expect(first.headers.get('link')).toBe(
      `<${base}?since=2000-01-01T00%3A00%3A00Z&per_page=20&page=2>; rel="next", ` +
        `<${base}?since=2000-01-01T00%3A00%3A00Z&per_page=20&page=4>; rel="last"`,
    )

    const middle = await get('per_page=20&page=2')
    expect(middle.headers.get('link')).toBe(
      `<${base}?per_page=20&page=1>; rel="prev", <${base}?per_page=20&page=3>; rel="next", ` +
        `<${base}?per_page=20&page=4>; rel="last", <${base}?per_page=20&page=1>; rel="first"`,
    )

    const last = await get('per_page=20&page=4')
    expect(((await last.json()) as unknown[]).length).toBe(15)
    expect(last.headers.get('link')).toBe(
      `<${base}?per_page=20&page=3>; rel="prev", <${base}?per_page=20&page=1>; rel="first"`,
    )

    const beyond = await get('per_page=20&page=9')
    expect(await beyond.json()).toEqual([])
  })

  it('defaults per_page to 30, caps it at 100, and sends no Link header for one page', async () => {
    const fake = await startFake()
    seed(fake, 130)
    const octokit = client(fake)
    const byDefault = await octokit.rest.issues.listComments({ ...repo, issue_number: 5 })
    expect(byDefault.data).toHaveLength(30)
    expect(byDefault.headers.link).toContain('per_page=30&page=5>; rel="last"')

    const capped = await octokit.rest.issues.listComments({
      ...repo,
      issue_number: 5,
      per_page: 500,
    })
    expect(capped.data).toHaveLength(100)
    expect(capped.headers.link).toContain('per_page=100&page=2>; rel="last"')

    const small = await octokit.rest.issues.listComments({ ...repo, issue_number: 6 })
    expect(small.data).toEqual([])
    expect(small.headers.link).toBeUndefined()
  })

  it('filters by since on updated_at', async () => {
    const fake = await startFake()
    fake.addComment('o', 'r', 1, 'old', 'bob', { createdAt: '2020-01-01T00:00:00Z' })
    fake.addComment('o', 'r', 1, 'new', 'bob', { createdAt: '2024-01-01T00:00:00Z' })
    const { data } = await client(fake).rest.issues.listComments({
      owner: 'o',
      repo: 'r',
      issue_number: 1,
      since: '2023-01-01T00:00:00Z',
    })
    expect(data.map((c) => c.body)).toEqual(['new'])
  })
})

describe('routes and faults', () => {
  it('answers 404 with a GitHub-style body to unknown routes', async () => {
    const fake = await startFake()
    for (const [method, path] of [
      ['GET', '/repos/o/r/pulls/1'],
      ['DELETE', '/repos/o/r/issues/comments/1'],
      ['GET', '/repos/o/r/issues/0/comments'],
    ] as const) {
      const res = await fetch(`${fake.apiUrl}${path}`, {
        method,
        headers: { authorization: 'token gh-token' },
      })
      expect(res.status).toBe(404)
      const body = (await res.json()) as Record<string, unknown>
      expect(body['message']).toBe('Not Found')
      expect(body['documentation_url']).toMatch(/^https:\/\/docs\.github\.com\/rest/)
    }
  })

  it('failNext fails the next matching request once, without acting on it', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    fake.failNext('POST', /\/issues\/\d+\/comments$/, 403)
    const error = await failure(
      octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'hi' }),
    )
    expect(error.status).toBe(403)
    expect(error.message).toContain('Resource not accessible by integration')
    expect(fake.comments('octo-org', 'widgets', 1)).toEqual([])

    await octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'hi' })
    expect(fake.comments('octo-org', 'widgets', 1)).toHaveLength(1)
    expect(fake.requests.map((r) => r.method)).toEqual(['POST', 'POST'])
  })

  it('failNext matches the method and path, and takes a message, headers and times', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    const seeded = fake.addComment('octo-org', 'widgets', 1, 'before', 'github-actions[bot]')
    fake.failNext('patch', `/repos/octo-org/widgets/issues/comments/${seeded.id}`, 500, {
      message: 'Boom',
      headers: { 'retry-after': '1' },
      times: 2,
    })

    const { data } = await octokit.rest.issues.listComments({ ...repo, issue_number: 1 })
    expect(data).toHaveLength(1)

    for (let i = 0; i < 2; i++) {
      const error = await failure(
        octokit.rest.issues.updateComment({ ...repo, comment_id: seeded.id, body: 'after' }),
      )
      expect(error.status).toBe(500)
      expect(error.message).toContain('Boom')
      expect(
        (error as unknown as { response: { headers: Record<string, string> } }).response.headers[
          'retry-after'
        ],
      ).toBe('1')
    }
    expect(fake.comment(seeded.id)?.body).toBe('before')
    await octokit.rest.issues.updateComment({ ...repo, comment_id: seeded.id, body: 'after' })
    expect(fake.comment(seeded.id)?.body).toBe('after')
  })

  it('failNext with * matches any method, and clearFaults drops pending faults', async () => {
    const fake = await startFake({ identity: { login: 'octocat' } })
    const octokit = client(fake)
    fake.failNext('*', /^\/user$/, 502)
    expect((await failure(octokit.rest.users.getAuthenticated())).status).toBe(502)
    fake.failNext('*', /./, 500)
    fake.clearFaults()
    expect((await octokit.rest.users.getAuthenticated()).status).toBe(200)
  })
})

describe('collaborator permission', () => {
  it('answers role_name and the legacy permission, read by default', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    fake.setRole('octo-org', 'widgets', 'maintainer-mo', 'maintain')
    fake.setRole('octo-org', 'widgets', 'triager-tia', 'triage')

    const mo = await octokit.rest.repos.getCollaboratorPermissionLevel({
      ...repo,
      username: 'maintainer-mo',
    })
    expect(mo.data).toMatchObject({ permission: 'write', role_name: 'maintain' })
    expect(mo.data.user?.permissions).toMatchObject({ maintain: true, push: true, admin: false })
    const tia = await octokit.rest.repos.getCollaboratorPermissionLevel({
      ...repo,
      username: 'triager-tia',
    })
    expect(tia.data).toMatchObject({ permission: 'read', role_name: 'triage' })
    const stranger = await octokit.rest.repos.getCollaboratorPermissionLevel({
      ...repo,
      username: 'stranger',
    })
    expect(stranger.data).toMatchObject({ permission: 'read', role_name: 'read' })

    fake.defaultRole = 'none'
    const nobody = await octokit.rest.repos.getCollaboratorPermissionLevel({
      ...repo,
      username: 'nobody',
    })
    expect(nobody.data.permission).toBe('none')
    // Roles are per repository.
    const elsewhere = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: 'octo-org',
      repo: 'other',
      username: 'maintainer-mo',
    })
    expect(elsewhere.data.role_name).toBe('none')
  })

  it('answers 404 for a login that cannot exist', async () => {
    const fake = await startFake()
    const error = await failure(
      client(fake).rest.repos.getCollaboratorPermissionLevel({ ...repo, username: 'bad login!' }),
    )
    expect(error.status).toBe(404)
  })
})

describe('commit statuses', () => {
  const sha = 'a'.repeat(40)

  it('creates statuses and lists them newest first, like GitHub', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    const created = await octokit.rest.repos.createCommitStatus({
      ...repo,
      sha,
      state: 'pending',
      context: 'cloud-agent/review',
      target_url: 'https://app.example.test/s/1',
      description: 'Working',
    })
    expect(created.status).toBe(201)
    expect(created.data).toMatchObject({ state: 'pending', context: 'cloud-agent/review' })
    await octokit.rest.repos.createCommitStatus({ ...repo, sha, state: 'success' })

    expect(fake.statuses('octo-org', 'widgets', sha).map((s) => [s.state, s.context])).toEqual([
      ['pending', 'cloud-agent/review'],
      ['success', 'default'],
    ])
    const listed = await octokit.rest.repos.listCommitStatusesForRef({ ...repo, ref: sha })
    expect(listed.data.map((s) => s.state)).toEqual(['success', 'pending'])
  })

  it('refuses what GitHub refuses: a bad state, a long description, an unknown SHA', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    const badState = await failure(
      octokit.request('POST /repos/octo-org/widgets/statuses/{sha}', { sha, state: 'done' }),
    )
    expect(badState.status).toBe(422)
    const long = await failure(
      octokit.rest.repos.createCommitStatus({
        ...repo,
        sha,
        state: 'failure',
        description: 'x'.repeat(141),
      }),
    )
    expect(long.status).toBe(422)
    expect(long.message).toContain('description is too long')
    const unknown = await failure(
      octokit.rest.repos.createCommitStatus({ ...repo, sha: 'main', state: 'success' }),
    )
    expect(unknown.status).toBe(422)
    expect(fake.statuses('octo-org', 'widgets', sha)).toEqual([])
  })
})

describe('pull requests and comment deletion', () => {
  it('answers a pull request whose head a test moves', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    fake.setPullRequest('octo-org', 'widgets', 7, { headSha: 'b'.repeat(40) })
    const before = await octokit.rest.pulls.get({ ...repo, pull_number: 7 })
    expect(before.data.head.sha).toBe('b'.repeat(40))
    expect(before.data.head.repo?.full_name).toBe('octo-org/widgets')

    fake.moveHead('octo-org', 'widgets', 7, 'c'.repeat(40))
    const after = await octokit.rest.pulls.get({ ...repo, pull_number: 7 })
    expect(after.data.head.sha).toBe('c'.repeat(40))
    expect((await failure(octokit.rest.pulls.get({ ...repo, pull_number: 8 }))).status).toBe(404)
  })

  it("names a pull request's author, and lists the reviews a test seeds by anyone", async () => {
    const fake = await startFake()
    const octokit = client(fake)
    fake.setPullRequest('octo-org', 'widgets', 7, { headSha: 'b'.repeat(40), author: 'forker' })
    expect((await octokit.rest.pulls.get({ ...repo, pull_number: 7 })).data.user?.login).toBe(
      'forker',
    )
    fake.addReview('octo-org', 'widgets', 7, { login: 'maintainer', state: 'APPROVED' })
    fake.addReview('octo-org', 'widgets', 7, {
      login: 'helper[bot]',
      state: 'COMMENTED',
      commitId: 'c'.repeat(40),
    })
    const { data } = await octokit.rest.pulls.listReviews({ ...repo, pull_number: 7 })
    expect(data.map((r) => [r.user?.login, r.user?.type, r.state, r.commit_id])).toEqual([
      ['maintainer', 'User', 'APPROVED', 'b'.repeat(40)],
      ['helper[bot]', 'Bot', 'COMMENTED', 'c'.repeat(40)],
    ])
  })

  it('deletes a comment', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    const { data } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: 'x',
    })
    const deleted = await octokit.rest.issues.deleteComment({ ...repo, comment_id: data.id })
    expect(deleted.status).toBe(204)
    expect(fake.comments('octo-org', 'widgets', 1)).toEqual([])
    const again = await failure(octokit.rest.issues.deleteComment({ ...repo, comment_id: data.id }))
    expect(again.status).toBe(404)
  })

  it('holdUntil lets matching requests through only together', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    fake.holdUntil('POST', /\/comments$/, 2)
    let firstDone = false
    const first = octokit.rest.issues
      .createComment({ ...repo, issue_number: 1, body: 'a' })
      .then(() => (firstDone = true))
    while (fake.requestsTo('POST', /\/comments$/).length < 1) {
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(firstDone).toBe(false)
    expect(fake.comments('octo-org', 'widgets', 1)).toEqual([])
    await octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'b' })
    await first
    expect(fake.comments('octo-org', 'widgets', 1)).toHaveLength(2)
  })
})

describe('a GitHub that refuses or stops answering (issue 8)', () => {
  it('secondaryRateLimitNext answers 403 with the secondary-rate-limit message and retry-after', async () => {
    const fake = await startFake()
    fake.secondaryRateLimitNext('POST', /\/comments$/, 2)
    const res = await fetch(`${fake.apiUrl}/repos/o/r/issues/1/comments`, {
      method: 'POST',
      headers: { authorization: 'token gh-token', 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'hi' }),
    })
    expect(res.status).toBe(403)
    expect(res.headers.get('retry-after')).toBe('2')
    expect(((await res.json()) as { message: string }).message).toMatch(/secondary rate limit/)
    expect(fake.comments('o', 'r', 1)).toHaveLength(0)
  })

  it('stopAnswering holds matching requests open; clearFaults lets later ones through', async () => {
    const fake = await startFake()
    fake.stopAnswering('GET')
    await expect(
      fetch(`${fake.apiUrl}/repos/o/r/issues/1/comments`, {
        headers: { authorization: 'token gh-token' },
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow()
    fake.clearFaults()
    const res = await fetch(`${fake.apiUrl}/repos/o/r/issues/1/comments`, {
      headers: { authorization: 'token gh-token' },
    })
    expect(res.status).toBe(200)
    expect(fake.requests).toHaveLength(2)
  })
})

describe('check runs and lost answers (issue 25)', () => {
  const sha = 'c0ffee0000000000000000000000000000000009'

  it('lists a commit’s check runs as GitHub does: by name, newest first, latest or all, with external_id', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    const create = (name: string, externalId: string) =>
      octokit.rest.checks.create({ ...repo, name, head_sha: sha, external_id: externalId })
    const first = await create('cloud-agent/a', 'one')
    const second = await create('cloud-agent/a', 'two')
    await create('cloud-agent/b', 'three')

    const all = await octokit.rest.checks.listForRef({
      ...repo,
      ref: sha,
      check_name: 'cloud-agent/a',
      filter: 'all',
    })
    expect(all.data.total_count).toBe(2)
    expect(all.data.check_runs.map((run) => [run.id, run.external_id])).toEqual([
      [second.data.id, 'two'],
      [first.data.id, 'one'],
    ])
    const latest = await octokit.rest.checks.listForRef({ ...repo, ref: sha })
    expect(latest.data.check_runs.map((run) => run.external_id)).toEqual(['three', 'two'])
    const paged = await octokit.paginate(octokit.rest.checks.listForRef, {
      ...repo,
      ref: sha,
      filter: 'all',
      per_page: 1,
    })
    expect(paged).toHaveLength(3)

    await octokit.rest.checks.update({
      ...repo,
      check_run_id: first.data.id,
      conclusion: 'success',
      output: {
        title: 't',
        summary: 's',
        annotations: [
          { path: 'a', start_line: 1, end_line: 1, annotation_level: 'notice', message: 'm' },
        ],
      },
    })
    const { data } = await octokit.rest.checks.get({ ...repo, check_run_id: first.data.id })
    expect(data).toMatchObject({ status: 'completed', conclusion: 'success', external_id: 'one' })
    expect(data.output.annotations_count).toBe(1)
  })

  it('afterEffect acts on the request and answers the error; after lets the first ones through', async () => {
    const fake = await startFake()
    const octokit = client(fake)
    fake.failNext('POST', /\/check-runs$/, 502, { afterEffect: true })
    const error = await failure(octokit.rest.checks.create({ ...repo, name: 'c', head_sha: sha }))
    expect(error.status).toBe(502)
    expect(fake.checkRuns('octo-org', 'widgets', sha)).toHaveLength(1)

    fake.failNext('POST', /\/check-runs$/, 503, { after: 1 })
    await octokit.rest.checks.create({ ...repo, name: 'c', head_sha: sha })
    expect(
      (await failure(octokit.rest.checks.create({ ...repo, name: 'c', head_sha: sha }))).status,
    ).toBe(503)
    expect(fake.checkRuns('octo-org', 'widgets', sha)).toHaveLength(2)
  })
})
