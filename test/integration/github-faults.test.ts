/**
 * The check run and the review against the fake GitHub, over loopback, when GitHub fails: a
 * 5xx before the write, a 5xx after it took effect (the answer lost), a refusal, and a
 * failure that lasts. What is tested is the cause, not only the end: what the state records
 * and when, how many writes went out, and what the warning blames.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { ReviewDocument } from '../../src/agent/review-document.ts'
import { CheckRunReporter, type Annotation } from '../../src/github/check-run.ts'
import { createOctokit, type GitHubClient } from '../../src/github/client.ts'
import { isTransient, withRetries } from '../../src/github/octokit.ts'
import { postReview } from '../../src/github/review.ts'
import type { CheckRunLookup, CheckRunStateStore, SavedCheckReport } from '../../src/state.ts'
import { FakeGitHub } from '../fake-github/server.ts'

const OWNER = 'octo-org'
const REPO = 'app'
const SHA = 'c0ffee0000000000000000000000000000000002'
const PR = 7

// The tests run at once, each on its own fake: they close together, at the end.
const started: FakeGitHub[] = []
afterAll(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()))
})

async function startFake(): Promise<{ gh: FakeGitHub; octokit: GitHubClient }> {
  const gh = await FakeGitHub.start()
  started.push(gh)
  return { gh, octokit: createOctokit('gh-token', gh.apiUrl) }
}

function recorder() {
  const lines: string[] = []
  return {
    lines,
    log: {
      debug: () => undefined,
      info: (m: string) => lines.push(`info: ${m}`),
      warning: (m: string) => lines.push(`warning: ${m}`),
    },
  }
}

/** What the main step's state store is told, in order. */
function stateRecorder() {
  const events: Array<
    | ['lookup', CheckRunLookup | undefined]
    | ['id', number]
    | ['report', SavedCheckReport]
    | ['done']
  > = []
  const store: CheckRunStateStore = {
    saveCheckRunLookup: (lookup) => events.push(['lookup', lookup]),
    saveCheckRunId: (id) => events.push(['id', id]),
    saveCheckRunReport: (report) => events.push(['report', report]),
    markCheckRunDone: () => events.push(['done']),
  }
  return { events, store }
}

const REPORT = { conclusion: 'success', title: 'Succeeded', summary: 'It worked.' } as const
const TARGET = { owner: OWNER, repo: REPO, sha: SHA, key: 'review' }
const CHECK_RUN = /\/check-runs\/\d+$/
const CHECK_RUNS = /\/check-runs$/

function annotations(count: number): Annotation[] {
  return Array.from({ length: count }, (_, i) => ({
    path: 'src/a.ts',
    start_line: i + 1,
    end_line: i + 1,
    annotation_level: 'notice',
    message: `note ${i + 1}`,
  }))
}

describe('the check run, against a GitHub that fails', { concurrent: true }, () => {
  it('records it complete only once GitHub took the completion; one 502 before the write is asked again', async () => {
    const { gh, octokit } = await startFake()
    const { events, store } = stateRecorder()
    const { lines, log } = recorder()
    const reporter = CheckRunReporter.open(octokit, TARGET, log, undefined, store)
    const id = await reporter.id
    gh.failNext('PATCH', CHECK_RUN, 502)
    expect(await reporter.finish(REPORT)).toBe(true)

    expect(events.map(([event]) => event)).toEqual(['lookup', 'id', 'report', 'done'])
    expect(events[1]).toEqual(['id', id])
    expect(gh.requestsTo('PATCH', CHECK_RUN)).toHaveLength(2)
    const [check] = gh.checkRuns(OWNER, REPO, SHA)
    expect(check?.status).toBe('completed')
    expect(check?.conclusion).toBe('success')
    expect(lines).toEqual([])
  })

  it('a completion GitHub kept failing is not recorded as done, and the warning says the post step completes it', async () => {
    const { gh, octokit } = await startFake()
    const { events, store } = stateRecorder()
    const { lines, log } = recorder()
    const reporter = CheckRunReporter.open(octokit, TARGET, log, undefined, store)
    await reporter.id
    gh.failNext('PATCH', CHECK_RUN, 503, { times: 10 })
    expect(await reporter.finish(REPORT)).toBe(false)

    expect(events.map(([event]) => event)).toEqual(['lookup', 'id', 'report'])
    expect(events[2]).toEqual(['report', REPORT])
    expect(gh.checkRuns(OWNER, REPO, SHA)[0]?.status).toBe('in_progress')
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: GitHub: could not complete the check run cloud-agent\/review \(Service Unavailable[^)]*\)\. GitHub failed \(HTTP 503\) on each of 3 attempts\. The post step completes it\.$/,
      ),
    ])
  })

  it('an annotation batch whose answer was lost is not sent again: every annotation once', async () => {
    const { gh, octokit } = await startFake()
    const reporter = CheckRunReporter.open(octokit, TARGET, recorder().log)
    await reporter.id
    gh.failNext('PATCH', CHECK_RUN, 502, { afterEffect: true })
    expect(await reporter.finish(REPORT, annotations(60))).toBe(true)

    const [check] = gh.checkRuns(OWNER, REPO, SHA)
    expect(check?.annotations.map((a) => a.message)).toEqual(annotations(60).map((a) => a.message))
    expect(check?.status).toBe('completed')
    // The batch of 50, found applied by a read, then the completion with the last 10.
    expect(gh.requestsTo('PATCH', CHECK_RUN)).toHaveLength(2)
    expect(gh.requestsTo('GET', CHECK_RUN)).toHaveLength(1)
  })

  it('a completion whose answer was lost is found applied, and recorded done', async () => {
    const { gh, octokit } = await startFake()
    const { events, store } = stateRecorder()
    const reporter = CheckRunReporter.open(octokit, TARGET, recorder().log, undefined, store)
    await reporter.id
    gh.failNext('PATCH', CHECK_RUN, 502, { afterEffect: true })
    expect(await reporter.finish(REPORT, annotations(3))).toBe(true)
    expect(events.at(-1)).toEqual(['done'])
    expect(gh.requestsTo('PATCH', CHECK_RUN)).toHaveLength(1)
    expect(gh.checkRuns(OWNER, REPO, SHA)[0]?.annotations).toHaveLength(3)
  })

  it('a create that failed before GitHub made it is made once; one whose answer was lost is found', async () => {
    const { gh, octokit } = await startFake()
    gh.failNext('POST', CHECK_RUNS, 502)
    const first = CheckRunReporter.open(octokit, TARGET, recorder().log)
    expect(await first.id).toBeDefined()
    expect(gh.checkRuns(OWNER, REPO, SHA)).toHaveLength(1)

    const other = { ...TARGET, sha: SHA.replace('2', '3') }
    const { events, store } = stateRecorder()
    gh.failNext('POST', CHECK_RUNS, 504, { afterEffect: true })
    const second = CheckRunReporter.open(octokit, other, recorder().log, undefined, store)
    const id = await second.id
    const made = gh.checkRuns(OWNER, REPO, other.sha)
    expect(made).toHaveLength(1)
    expect(made[0]?.id).toBe(id)
    expect(gh.requestsTo('POST', CHECK_RUNS)).toHaveLength(3)
    // The lookup was saved before the create, with the external_id the check run carries.
    const [lookup] = events
    expect(lookup).toEqual(['lookup', { sha: other.sha, externalId: made[0]?.external_id }])
  })

  it('a refused create forgets its lookup and names the permission; a lasting 502 keeps it and blames GitHub', async () => {
    const { gh, octokit } = await startFake()
    const refused = stateRecorder()
    const refusedLog = recorder()
    gh.failNext('POST', CHECK_RUNS, 403)
    const denied = CheckRunReporter.open(octokit, TARGET, refusedLog.log, undefined, refused.store)
    expect(await denied.id).toBeUndefined()
    expect(refused.events.at(-1)).toEqual(['lookup', undefined])
    expect(refusedLog.lines[0]).toContain('check_run needs the permission checks: write.')

    const failing = stateRecorder()
    const failingLog = recorder()
    gh.failNext('POST', CHECK_RUNS, 502, { times: 10 })
    const down = CheckRunReporter.open(octokit, TARGET, failingLog.log, undefined, failing.store)
    expect(await down.id).toBeUndefined()
    expect(failing.events.map(([event]) => event)).toEqual(['lookup'])
    expect(failingLog.lines[0]).toContain('GitHub failed (HTTP 502) on each of 3 attempts.')
    expect(failingLog.lines[0]).not.toContain('checks: write')
  })

  it('the post step finds a check run by its external_id and completes it; none found, it says so', async () => {
    const { gh, octokit } = await startFake()
    const { events, store } = stateRecorder()
    // GitHub makes the check run, loses the answer, and fails every look for it.
    gh.failNext('POST', CHECK_RUNS, 502, { afterEffect: true })
    gh.failNext('GET', /\/commits\/\w+\/check-runs$/, 502, { times: 10 })
    const main = CheckRunReporter.open(octokit, TARGET, recorder().log, undefined, store)
    expect(await main.id).toBeUndefined()
    const [, lookup] = events[0] ?? []
    expect(gh.checkRuns(OWNER, REPO, SHA)[0]?.status).toBe('in_progress')
    gh.clearFaults()

    const post = CheckRunReporter.adopt(octokit, TARGET, lookup as CheckRunLookup, recorder().log)
    expect(await post.finish(REPORT)).toBe(true)
    expect(gh.checkRuns(OWNER, REPO, SHA).map((run) => run.status)).toEqual(['completed'])

    const { lines, log } = recorder()
    const nothing = CheckRunReporter.adopt(octokit, TARGET, { sha: SHA, externalId: 'x' }, log)
    expect(await nothing.finish(REPORT)).toBe(false)
    expect(lines).toEqual([
      `info: No check run cloud-agent/review with external_id x on c0ffee0: the main step's create made none.`,
    ])
  })
})

const PATCH = ['@@ -1,2 +1,3 @@', ' a', '+b', ' c'].join('\n')
const REVIEW: ReviewDocument = {
  summary: 'One remark.',
  verdict: 'comment',
  comments: [
    { path: 'src/a.ts', line: 2, body: 'On the diff.' },
    { path: 'src/a.ts', line: 40, body: 'Off the diff.' },
  ],
}
const REVIEW_TARGET = { owner: OWNER, repo: REPO, number: PR, sha: SHA, key: 'review' }

async function pullRequest() {
  const fake = await startFake()
  fake.gh.setPullRequest(OWNER, REPO, PR, { headSha: SHA })
  fake.gh.setPullRequestFiles(OWNER, REPO, PR, [{ filename: 'src/a.ts', patch: PATCH }])
  return fake
}

describe('the review, against a GitHub that fails', { concurrent: true }, () => {
  it('a review whose answer was lost is found by its marker, never posted twice', async () => {
    const { gh, octokit } = await pullRequest()
    gh.failNext('POST', /\/reviews$/, 502, { afterEffect: true })
    const { lines, log } = recorder()
    const posted = await postReview(octokit, REVIEW_TARGET, REVIEW, { runId: 'run_1' }, log)
    const reviews = gh.reviews(OWNER, REPO, PR)
    expect(reviews).toHaveLength(1)
    expect(posted?.url).toBe(reviews[0]?.html_url)
    expect(lines.filter((line) => line.startsWith('warning'))).toEqual([])
  })

  it("the same run's earlier review is not taken for the one whose create failed", async () => {
    const { gh, octokit } = await pullRequest()
    await postReview(octokit, REVIEW_TARGET, REVIEW, { runId: 'run_3' }, recorder().log)
    gh.failNext('POST', /\/reviews$/, 502)
    await postReview(octokit, REVIEW_TARGET, REVIEW, { runId: 'run_3' }, recorder().log)
    const reviews = gh.reviews(OWNER, REPO, PR)
    expect(reviews).toHaveLength(2)
    expect(reviews[1]?.body).toContain(`replaces [the earlier review](${reviews[0]?.html_url})`)
  })

  it('a continuation whose answer was lost is found too; each part once', async () => {
    const { gh, octokit } = await pullRequest()
    const comments = Array.from({ length: 30 }, (_, i) => ({
      path: 'src/b.ts',
      line: i + 1,
      body: `Remark ${i + 1}. ${'x'.repeat(4_000)}`,
    }))
    // The first create goes through; the second (the continuation) is made, its answer lost.
    gh.failNext('POST', /\/reviews$/, 502, { afterEffect: true, after: 1 })
    const review = { ...REVIEW, comments }
    const { lines, log } = recorder()
    await postReview(octokit, REVIEW_TARGET, review, { runId: 'run_2' }, log)
    const reviews = gh.reviews(OWNER, REPO, PR)
    expect(reviews).toHaveLength(2)
    expect(gh.requestsTo('POST', /\/reviews$/)).toHaveLength(2)
    const bodies = reviews.map((r) => r.body).join('\n')
    for (let line = 1; line <= 30; line++) {
      expect(bodies.split(`<code>src/b.ts:${line}</code>`)).toHaveLength(2)
    }
    expect(lines.filter((line) => line.startsWith('warning'))).toEqual([])
  })

  it('a lasting 5xx on reading the files names GitHub; a 403 on the create names the permission', async () => {
    const { gh, octokit } = await pullRequest()
    gh.failNext('GET', /\/files$/, 503, { times: 10 })
    const down = recorder()
    expect(await postReview(octokit, REVIEW_TARGET, REVIEW, { runId: 'r' }, down.log)).toBe(
      undefined,
    )
    expect(down.lines).toEqual([
      expect.stringMatching(
        /^warning: GitHub: could not post the review on octo-org\/app#7 \(Service Unavailable[^)]*\)\. GitHub failed \(HTTP 503\) on each of 3 attempts\. The review is in the step's structured_output output\. The run is not affected\.$/,
      ),
    ])
    expect(gh.requestsTo('GET', /\/files$/)).toHaveLength(3)

    gh.clearFaults()
    gh.failNext('POST', /\/reviews$/, 403)
    const denied = recorder()
    await postReview(octokit, REVIEW_TARGET, REVIEW, { runId: 'r' }, denied.log)
    expect(denied.lines.at(-1)).toContain(
      '(Resource not accessible by integration - https://docs.github.com/rest). pull_request_review needs pull-requests: write.',
    )
    expect(gh.requestsTo('POST', /\/reviews$/)).toHaveLength(1)
  })
})

describe('withRetries', () => {
  it('asks again after a 5xx or a broken connection, never after a deadline or a 4xx', async () => {
    expect(isTransient({ status: 502, response: {} })).toBe(true)
    expect(isTransient({ status: 500, cause: new TypeError('fetch failed') })).toBe(true)
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError')
    expect(isTransient({ status: 500, cause: timeout })).toBe(false)
    expect(isTransient({ status: 404, response: {} })).toBe(false)
    expect(isTransient(new Error('boom'))).toBe(false)

    let calls = 0
    const refused = withRetries(
      () => {
        calls += 1
        return Promise.reject(Object.assign(new Error('Not Found'), { status: 404 }))
      },
      { pausesMs: [0, 0] },
    )
    await expect(refused).rejects.toMatchObject({ status: 404 })
    expect(calls).toBe(1)
  })

  it('gives up when the next pause would pass the deadline all attempts share', async () => {
    let calls = 0
    const failing = withRetries(
      () => {
        calls += 1
        return Promise.reject(Object.assign(new Error('Server Error'), { status: 502 }))
      },
      { pausesMs: [0, 60_000], deadlineMs: 5_000 },
    )
    await expect(failing).rejects.toMatchObject({ name: 'TransientFailure', attempts: 2 })
    expect(calls).toBe(2)
  })
})
