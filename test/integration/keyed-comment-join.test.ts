/**
 * Two steps of one key made their comments at the same moment: the newer one writes into the
 * older one what it read before, then deletes its own. Its write can land late (a runner short
 * of CPU), after the older step's last write: the older step looks until the other comment is
 * gone, then reads once more, and puts its own state back. Here the test is the other step, so
 * its late write comes exactly when the older step would otherwise have stopped looking.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { createOctokit } from '../../src/github/client.ts'
import { ThreadComment } from '../../src/github/keyed-run-comment.ts'
import { parseMarker, renderMarker } from '../../src/github/run-marker.ts'
import { FakeGitHub } from '../fake-github/server.ts'

const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
const COMMENTS = /\/issues\/7\/comments$/

const started: FakeGitHub[] = []
afterAll(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()))
})

/** Resolves once `condition` holds, checking every 10 ms; a bound for a broken step, not a window. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 40_000
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const run = (state: RunItem['state']): RunItem => ({ run_id: 'run_older', state, title: 'Older' })

describe('two steps of one key made their comments at the same moment', () => {
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

    comment.show(run('SUCCEEDED'))
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
})
