/**
 * An older step of a key, superseded by a newer one, writing its end into the key's one comment
 * while the newer step writes it too, against the fake GitHub (GitHub has no compare-and-swap).
 * Here the test is the newer step: its writes land where they would be lost, or would cover the
 * older step's end, without the rule each test names.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { createOctokit } from '../../src/github/client.ts'
import { ThreadComment } from '../../src/github/keyed-run-comment.ts'
import { parseMarker, renderMarker, type Marker } from '../../src/github/run-marker.ts'
import type { RunEntry } from '../../src/model/key-history.ts'
import { FakeGitHub } from '../fake-github/server.ts'
import { until } from '../support/until.ts'

const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
const OLD_HEAD = 'a'.repeat(40)
const NEW_HEAD = 'c'.repeat(40)
const OLDER_RUN = 'https://github.com/octo-org/app/actions/runs/100'
const NEWER_RUN = 'https://github.com/octo-org/app/actions/runs/101'

const started: FakeGitHub[] = []
afterAll(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()))
})

const older = (state: RunItem['state']): RunItem => ({ run_id: 'run_older', state, title: 'Older' })

/** The older step, its comment showing its run going, and the newer step's writes as the test plays them. */
async function olderStepShowing(state: RunItem['state']) {
  const gh = await FakeGitHub.start()
  started.push(gh)
  const octokit = createOctokit('gh-token', gh.apiUrl)
  const lines: string[] = []
  const warnings: string[] = []
  let chosen = 0
  const comment = ThreadComment.open(
    octokit,
    { owner: OWNER, repo: REPO, issueNumber: PR },
    {
      step: 'job/review',
      key: 'k',
      mode: 'keyed',
      workflowRun: OLDER_RUN,
      log: {
        debug: () => {},
        info: (line) => lines.push(line),
        warning: (line) => warnings.push(line),
      },
      onCommentChosen: (id) => (chosen = id),
    },
  )
  comment.workOn(OLD_HEAD)
  comment.show(older(state))
  await comment.settled()
  const PATCH = new RegExp(`/issues/comments/${chosen}$`)
  /** The comment's runs as it reads now. */
  const runs = (): RunEntry[] => parseMarker(gh.comment(chosen)?.body ?? '')?.runs ?? []
  /** A write of the newer step: the runs it read, with its own record put in. */
  const write = async (list: readonly RunEntry[]) => {
    const marker: Marker = {
      runId: list[0]?.runId ?? '',
      step: 'job/review',
      key: 'k',
      runs: [...list],
    }
    const where = { owner: OWNER, repo: REPO, comment_id: chosen }
    await octokit.rest.issues.updateComment({
      ...where,
      body: `${renderMarker(marker)}\n### Newer`,
    })
  }
  /** The older step's reads of its comment since the last write to it. */
  const readsSinceWrite = () => {
    const last = gh.requests.findLastIndex((r) => r.method === 'PATCH' && PATCH.test(r.path))
    return gh.requests.slice(last + 1).filter((r) => r.method === 'GET' && PATCH.test(r.path))
      .length
  }
  return { gh, comment, lines, warnings, runs, write, readsSinceWrite, PATCH }
}

describe('an older step superseded by a newer one writes its end into the key’s comment', () => {
  it("cancelled for a newer run: its end outlasts the newer step's write made from what it read before", async () => {
    const { gh, comment, warnings, runs, write, readsSinceWrite, PATCH } =
      await olderStepShowing('INPROGRESS')
    const newer = (state: string, outcome?: 'succeeded'): RunEntry => ({
      runId: 'run_newer',
      state,
      startedAt: new Date(Date.now() + 60_000).toISOString(),
      ...(outcome ? { outcome } : {}),
    })
    // The newer step shows its run; then it reads the comment for its next write, before the
    // older step's end lands.
    await write([newer('QUEUED'), ...runs()])
    const read = runs()
    expect(read.map((r) => [r.runId, r.state])).toEqual([
      ['run_newer', 'QUEUED'],
      ['run_older', 'INPROGRESS'],
    ])
    // The older step's end: its run cancelled for the newer one (previous_run: cancel).
    const ending = {
      kind: 'superseded' as const,
      run: { runId: 'run_older', name: 'Older' },
      newerRunId: 'run_newer',
    }
    const patches = gh.requestsTo('PATCH', PATCH).length
    comment.show(older('CANCELLED'), { outcome: { ending } })
    const settled = comment.settled().then(() => 'settled' as const)
    await until(() => gh.requestsTo('PATCH', PATCH).length === patches + 1, "the older step's end")
    // The newer step, short of CPU, writes after the older step's usual looks (300 and 700 ms).
    const looking = until(() => readsSinceWrite() >= 3, 'three looks').then(
      () => 'looking' as const,
    )
    expect(await Promise.race([looking, settled])).toBe('looking')
    await write([newer('INPROGRESS'), ...read.slice(1)])
    await until(
      () => gh.requestsTo('PATCH', PATCH).length === patches + 3,
      "the older step's end again",
    )
    // The newer run is going and its step has written nothing since: the older step looks on.
    const again = until(() => readsSinceWrite() >= 3, 'three more looks').then(
      () => 'looking' as const,
    )
    expect(await Promise.race([again, settled])).toBe('looking')
    // The newer step's end, from a fresh read: the older step's end stays, and it is done.
    await write([newer('SUCCEEDED', 'succeeded'), ...runs().slice(1)])
    expect(await settled).toBe('settled')
    expect(runs().map((r) => [r.runId, r.state, r.outcome])).toEqual([
      ['run_newer', 'SUCCEEDED', 'succeeded'],
      ['run_older', 'CANCELLED', 'superseded'],
    ])
    expect(warnings).toEqual([])
  })

  it("handing its run over: its end never covers the newer step's record of the run", async () => {
    const { comment, lines, warnings, runs, write } = await olderStepShowing('INPROGRESS')
    // The newer step steers the run and shows it first: its own record of the run.
    const [mine] = runs()
    const steered: RunEntry = {
      runId: 'run_older',
      state: 'INPROGRESS',
      startedAt: mine?.startedAt ?? '',
      head: NEW_HEAD,
      workflowRun: NEWER_RUN,
    }
    await write([steered])
    // The older step's end, read afresh after that write: handed to the newer step.
    const ending = {
      kind: 'handed-over' as const,
      run: { runId: 'run_older', name: 'Older' },
      reason: "the pull request's head moved on to cccccccccccc",
    }
    comment.show(older('INPROGRESS'), { outcome: { ending } })
    await comment.settled()
    expect(runs()).toEqual([steered])
    expect(lines).toContain(
      'A newer step with the key "k" shows in the comment now; this run\'s outcome is in its job summary.',
    )
    expect(warnings).toEqual([])
  })

  it('handing its run over before the newer step has shown it: its end shows', async () => {
    const { comment, warnings, runs } = await olderStepShowing('INPROGRESS')
    const ending = {
      kind: 'handed-over' as const,
      run: { runId: 'run_older', name: 'Older' },
      reason: "the pull request's head moved on to cccccccccccc",
    }
    comment.show(older('INPROGRESS'), { outcome: { ending } })
    await comment.settled()
    expect(runs().map((r) => [r.runId, r.outcome, r.head, r.workflowRun])).toEqual([
      ['run_older', 'superseded', OLD_HEAD, OLDER_RUN],
    ])
    expect(warnings).toEqual([])
  })

  it("the newer step's end outlasts the older step's hand-over, written from what it read before", async () => {
    const gh = await FakeGitHub.start()
    started.push(gh)
    const octokit = createOctokit('gh-token', gh.apiUrl)
    const where = { owner: OWNER, repo: REPO }
    // The older step's comment: its run going, as it left it.
    const left: RunEntry = {
      runId: 'run_older',
      state: 'INPROGRESS',
      startedAt: '2026-12-02T10:00:00.000Z',
      head: OLD_HEAD,
      workflowRun: OLDER_RUN,
    }
    const marker = (runs: RunEntry[]) =>
      `${renderMarker({ runId: 'run_older', step: 'job/review', key: 'k', runs })}\n### Older`
    const { data: made } = await octokit.rest.issues.createComment({
      ...where,
      issue_number: PR,
      body: marker([left]),
    })
    const warnings: string[] = []
    const comment = ThreadComment.open(
      octokit,
      { owner: OWNER, repo: REPO, issueNumber: PR },
      {
        step: 'job/review',
        key: 'k',
        mode: 'keyed',
        workflowRun: NEWER_RUN,
        log: { debug: () => {}, info: () => {}, warning: (line) => warnings.push(line) },
      },
    )
    comment.workOn(NEW_HEAD)
    const PATCH = new RegExp(`/issues/comments/${made.id}$`)
    const runs = (): RunEntry[] => parseMarker(gh.comment(made.id)?.body ?? '')?.runs ?? []
    const readsSinceWrite = () => {
      const last = gh.requests.findLastIndex((r) => r.method === 'PATCH' && PATCH.test(r.path))
      return gh.requests.slice(last + 1).filter((r) => r.method === 'GET' && PATCH.test(r.path))
        .length
    }
    // The newer step steers the run and shows it; the older step, cancelled for the push, read
    // the comment before that write landed.
    comment.show(older('INPROGRESS'))
    await until(() => gh.requestsTo('PATCH', PATCH).length === 1, "the newer step's first write")
    // The steered run's end, the newer step's last write.
    const ending = {
      kind: 'finished' as const,
      run: { runId: 'run_older', name: 'Older' },
      state: 'SUCCEEDED' as const,
    }
    comment.show(older('SUCCEEDED'), { outcome: { ending } })
    const settled = comment.settled().then(() => 'settled' as const)
    await until(() => gh.requestsTo('PATCH', PATCH).length === 2, "the newer step's end")
    const looking = until(() => readsSinceWrite() >= 3, 'three looks').then(
      () => 'looking' as const,
    )
    expect(await Promise.race([looking, settled])).toBe('looking')
    // The older step's hand-over, from what it read before: its end lands now.
    const handedOver: RunEntry = { ...left, outcome: 'superseded' }
    await octokit.rest.issues.updateComment({
      ...where,
      comment_id: made.id,
      body: marker([handedOver]),
    })
    // The newer step puts its end back, from a read that shows the older step's end: that step
    // writes no more, so the newer step is done.
    expect(await settled).toBe('settled')
    expect(runs().map((r) => [r.runId, r.state, r.outcome, r.head])).toEqual([
      ['run_older', 'SUCCEEDED', 'succeeded', NEW_HEAD],
    ])
    expect(gh.requestsTo('PATCH', PATCH)).toHaveLength(4)
    expect(warnings).toEqual([])
  })

  it("the newer step's end is not looked at once the older step's hand-over has shown", async () => {
    const { warnings, runs, write, gh, PATCH } = await olderStepShowing('INPROGRESS')
    const [mine] = runs()
    // The older step (here, the one the helper opened) handed over: its end shows.
    await write([{ ...(mine as RunEntry), outcome: 'superseded' }])
    const newer = ThreadComment.open(
      createOctokit('gh-token', gh.apiUrl),
      { owner: OWNER, repo: REPO, issueNumber: PR },
      {
        step: 'job/review',
        key: 'k',
        mode: 'keyed',
        workflowRun: NEWER_RUN,
        log: { debug: () => {}, info: () => {}, warning: (line) => warnings.push(line) },
      },
    )
    newer.workOn(NEW_HEAD)
    const ending = {
      kind: 'finished' as const,
      run: { runId: 'run_older', name: 'Older' },
      state: 'SUCCEEDED' as const,
    }
    const before = gh.requestsTo('GET', PATCH).length
    newer.show(older('SUCCEEDED'), { outcome: { ending } })
    await newer.settled()
    expect(runs().map((r) => [r.runId, r.outcome, r.head])).toEqual([
      ['run_older', 'succeeded', NEW_HEAD],
    ])
    // One read before the write, one after it: no look for a step that writes no more.
    expect(gh.requestsTo('GET', PATCH).length - before).toBe(2)
    expect(warnings).toEqual([])
  })
})
