import type { ForgeSteering, HeadChange, SteerSource } from '../model/head.ts'
import type { ThreadComment } from './keyed-run-comment.ts'
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
function steerSource(
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

/** previous_run: steer on GitHub: what it reads, and what shows a newer step on a cancel. */
export function githubSteering(
  step: { github: GitHubContext; thread: ThreadComment | undefined; world: { runId?: string } },
  head: string | undefined,
): ForgeSteering {
  return {
    source: steerSource(step.github, head, step.thread),
    newerStep: newerStepOf(step.github, head, step.world.runId),
  }
}

/**
 * What shows that a newer step for the pull request has started, when the workflow cancels this
 * one (previous_run: steer): the pull request's head has moved past this step's, or a newer
 * workflow run of this step's workflow for the same pull request exists in any state but
 * completed. Either is enough. Undefined when neither does; throws when GitHub could not say
 * either way by `deadline` (then the step cancels its run, as ever).
 */
function newerStepOf(
  github: GitHubContext,
  ownHead: string | undefined,
  ownWorkflowRun: string | undefined,
): (deadline: number) => Promise<string | undefined> {
  return async (deadline) => {
    const repository = github.repository
    const number = github.pullRequest
    if (!repository || !number || !github.hasToken) return undefined
    const octokit = await github.client()
    const within = () => withDeadline(Math.max(0, deadline - Date.now()))
    const headMoved = async (): Promise<string | undefined> => {
      if (!ownHead) return undefined
      const { data } = await octokit.rest.pulls.get({
        ...repository,
        pull_number: number,
        ...within(),
      })
      const head = data.head.sha
      return head && head !== ownHead
        ? `the pull request's head moved on to ${head.slice(0, 12)}`
        : undefined
    }
    const newerWorkflowRun = async (): Promise<string | undefined> => {
      const own = Number(ownWorkflowRun)
      if (!Number.isSafeInteger(own) || own <= 0) return undefined
      const { data: run } = await octokit.rest.actions.getWorkflowRun({
        ...repository,
        run_id: own,
        ...within(),
      })
      const { data } = await octokit.rest.actions.listWorkflowRuns({
        ...repository,
        workflow_id: run.workflow_id,
        per_page: NEWER_RUNS_LISTED,
        ...within(),
      })
      // Listed newest first; a workflow run's ID grows with its start.
      const newer = data.workflow_runs.find(
        (other) =>
          other.id > own &&
          other.status !== 'completed' &&
          (other.pull_requests ?? []).some((pull) => pull.number === number),
      )
      return newer
        ? `a newer workflow run of this workflow for the pull request, ${newer.id}, is ${newer.status ?? 'going'}`
        : undefined
    }
    const [moved, started] = await Promise.allSettled([headMoved(), newerWorkflowRun()])
    for (const signal of [moved, started]) {
      if (signal.status === 'fulfilled' && signal.value) return signal.value
    }
    // Neither shows a newer step: a person's cancel, unless GitHub could not say.
    for (const signal of [moved, started]) {
      if (signal.status === 'rejected') throw signal.reason
    }
    return undefined
  }
}

/** How many of the workflow's latest runs the hand-over looks through for a newer one. */
const NEWER_RUNS_LISTED = 50
