import type { HeadChange, SteerSource } from '../model/head.ts'
import type { ThreadComment } from './thread-comment.ts'
import type { GitHubContext } from './context.ts'
import { reasonOf, withDeadline, withRetries } from './octokit.ts'

/** The most commits a steering follow-up lists; GitHub's compare gives at most 250. */
const COMMITS_LISTED = 250

/**
 * What changed from `base` to `head` on the step's repository, as GitHub's compare says: the
 * commits after `base` when it is an ancestor of `head`, or that it is not (a force push).
 * Never throws: GitHub failing or refusing is `unknown`, with why.
 */
export async function compareHeads(
  github: GitHubContext,
  base: string,
  head: string,
): Promise<HeadChange> {
  if (base === head) return { kind: 'identical' }
  const repository = github.repository
  if (!repository || !github.hasToken) return { kind: 'unknown', why: 'no GitHub token' }
  try {
    const octokit = await github.client()
    const { data } = await withRetries((deadline) =>
      octokit.rest.repos.compareCommitsWithBasehead({
        ...repository,
        basehead: `${base}...${head}`,
        per_page: COMMITS_LISTED,
        ...deadline,
      }),
    )
    switch (data.status) {
      case 'identical':
        return { kind: 'identical' }
      case 'ahead':
        return {
          kind: 'ahead',
          commits: data.commits.map((commit) => ({
            sha: commit.sha,
            title: (commit.commit.message.split('\n', 1)[0] ?? '').trim(),
          })),
        }
      default:
        // behind or diverged: the old head is not in the new one's history.
        return { kind: 'not-ancestor' }
    }
  } catch (error) {
    // A head GitHub does not know (404) is a force push that left it unreachable, or no commit.
    if ((error as { status?: number }).status === 404) return { kind: 'not-ancestor' }
    return { kind: 'unknown', why: `GitHub's compare failed: ${reasonOf(error)}` }
  }
}

/**
 * What `previous_run: steer` reads of GitHub: this step's head, the head the thread's comment
 * records for a run, and what changed between two heads.
 */
export function steerSource(
  github: GitHubContext,
  head: string | undefined,
  thread: ThreadComment | undefined,
): SteerSource {
  return {
    head,
    recordedHead: async (runId) => thread?.headOf(runId),
    compare: (base, next) => compareHeads(github, base, next),
  }
}

/**
 * What shows that a newer step for the pull request has started, when the workflow cancels this
 * one (previous_run: steer): the pull request's head has moved past this step's. Undefined when
 * it has not, or GitHub cannot say by `deadline` (then the step cancels its run, as ever).
 */
export function newerStepOf(
  github: GitHubContext,
  ownHead: string | undefined,
): (deadline: number) => Promise<string | undefined> {
  return async (deadline) => {
    const repository = github.repository
    const number = github.pullRequest
    if (!repository || !number || !ownHead || !github.hasToken) return undefined
    const octokit = await github.client()
    const { data } = await octokit.rest.pulls.get({
      ...repository,
      pull_number: number,
      ...withDeadline(Math.max(0, deadline - Date.now())),
    })
    const head = data.head.sha
    return head && head !== ownHead
      ? `the pull request's head moved on to ${head.slice(0, 12)}`
      : undefined
  }
}
