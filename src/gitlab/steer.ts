/**
 * What `--previous-run steer` reads of GitLab in a merge request pipeline, as github/compare.ts
 * reads GitHub for a pull request: the pipeline's commit as the head, the head the merge
 * request's note recorded for a run, what changed between two heads (merge_base and compare),
 * and, when the job is cancelled, whether a newer pipeline of the merge request exists.
 */
import type { ForgeSteering, HeadChange } from '../model/head.ts'
import { GitLabFailure, gitlabReason, jobFinished, type GitLabApi } from './api.ts'
import type { NoteRecord } from './note-text.ts'

export interface MergeRequestSteeringOptions {
  readonly api: Pick<GitLabApi, 'mergeBase' | 'compare' | 'mergeRequestPipelines'>
  /** The project's path or ID, as GitLab takes it. */
  readonly project: string
  readonly mergeRequest: number
  /** The pipeline's commit: `CI_COMMIT_SHA`. */
  readonly head: string | undefined
  /** This job's pipeline: `CI_PIPELINE_ID`. */
  readonly pipeline: string | undefined
  /** The note's record as it was when this job began, before it wrote its own. */
  readonly recorded: () => Promise<NoteRecord | undefined>
}

/** The most commits a steering follow-up lists of GitLab's compare. */
const COMMITS_LISTED = 250

export function mergeRequestSteering(options: MergeRequestSteeringOptions): ForgeSteering {
  return {
    source: {
      head: options.head,
      recordedHead: async (runId) => {
        const record = await options.recorded()
        return record?.run === runId ? record.head : undefined
      },
      compare: (base, head) => compareOnGitLab(options, base, head),
    },
    newerStep: (deadline) => newerPipeline(options, deadline),
  }
}

/**
 * What changed from `base` to `head`: the commits after `base` when it is an ancestor of
 * `head` (their merge base is `base`), or that it is not (a force push). Never throws: GitLab
 * failing is `unknown`, with why; a commit GitLab does not know is a force push that left it.
 */
async function compareOnGitLab(
  options: MergeRequestSteeringOptions,
  base: string,
  head: string,
): Promise<HeadChange> {
  if (base === head) return { kind: 'identical' }
  try {
    const mergeBase = await options.api.mergeBase(options.project, base, head)
    if (mergeBase !== base) return { kind: 'not-ancestor' }
    const commits = await options.api.compare(options.project, base, head)
    return {
      kind: 'ahead',
      commits: commits.slice(0, COMMITS_LISTED).map((commit) => ({
        sha: commit.id,
        title: commit.title.trim(),
      })),
    }
  } catch (error) {
    if (error instanceof GitLabFailure && error.status === 404) return { kind: 'not-ancestor' }
    return { kind: 'unknown', why: `GitLab's compare failed: ${gitlabReason(error)}` }
  }
}

/**
 * A newer pipeline of the merge request, in any state but finished: the one that cancelled this
 * job (interruptible, auto-cancel). Undefined when none shows (a person's cancel); throws when
 * GitLab could not say by `deadline` (then the job cancels its run, as ever).
 */
async function newerPipeline(
  options: MergeRequestSteeringOptions,
  deadline: number,
): Promise<string | undefined> {
  const own = Number(options.pipeline)
  if (!Number.isSafeInteger(own) || own <= 0) return undefined
  const listed = await Promise.race([
    options.api.mergeRequestPipelines(options.project, options.mergeRequest),
    new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error('GitLab did not list the pipelines in time')),
        Math.max(0, deadline - Date.now()),
      ).unref(),
    ),
  ])
  const newer = listed.find((pipeline) => pipeline.id > own && !jobFinished(pipeline.status))
  return newer
    ? `a newer pipeline of the merge request, ${newer.id}, is ${newer.status}`
    : undefined
}
