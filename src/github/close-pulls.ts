/**
 * Closes a campaign's open pull requests (v1.5, "Verbs": `cloud-agent-run campaign close`): on
 * each, the maintainer's comment, then the close. Never sent twice: a comment's answer that is
 * lost may still have been written, so a failure is said, not retried.
 */
import type { PullAddress } from '../model/pull-status.ts'
import { GITHUB_CALL_DEADLINE_MS } from '../timing.ts'
import { reasonOf, withDeadline, type Octokit } from './octokit.ts'

/** Pull requests closed at once: a few, to stay clear of GitHub's secondary rate limit. */
const PARALLEL = 4

/** What closing one pull request did. */
export interface Closed {
  readonly url: string
  readonly closed: boolean
  /** Why it is not closed, in words; '' once closed. */
  readonly why: string
}

/** Comments on each pull request and closes it; what became of each, in the order given. */
export async function closePulls(
  octokit: Pick<Octokit, 'rest'>,
  pulls: readonly PullAddress[],
  comment: string,
  deadline: number,
  now: () => number = Date.now,
): Promise<Closed[]> {
  const results: Closed[] = new Array<Closed>(pulls.length)
  let next = 0
  const worker = async () => {
    for (let index = next++; index < pulls.length; index = next++) {
      const pull = pulls[index]
      if (!pull) continue
      const left = deadline - now()
      results[index] =
        left <= 0
          ? { url: pull.url, closed: false, why: 'the command ran out of time' }
          : await closeOne(octokit, pull, comment, Math.min(left, GITHUB_CALL_DEADLINE_MS))
    }
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker))
  return results
}

async function closeOne(
  octokit: Pick<Octokit, 'rest'>,
  pull: PullAddress,
  comment: string,
  ms: number,
): Promise<Closed> {
  const at = { owner: pull.owner, repo: pull.repo }
  try {
    await octokit.rest.issues.createComment({
      ...at,
      issue_number: pull.number,
      body: comment,
      ...withDeadline(ms),
    })
  } catch (error) {
    return { url: pull.url, closed: false, why: `the comment failed: ${reasonOf(error)}` }
  }
  try {
    await octokit.rest.pulls.update({
      ...at,
      pull_number: pull.number,
      state: 'closed',
      ...withDeadline(ms),
    })
  } catch (error) {
    return {
      url: pull.url,
      closed: false,
      why: `commented, but the close failed: ${reasonOf(error)}`,
    }
  }
  return { url: pull.url, closed: true, why: '' }
}
