import type { GitHubSettings } from '../inputs/github.ts'
import type { RunTarget } from '../model/step.ts'
import { staleHeadNote } from './comment.ts'
import { admitAuthor } from './commenter.ts'
import type { GitHubContext } from './context.ts'
import { eventAuthorOf } from './event.ts'
import { reasonOf, withDeadline } from './octokit.ts'
import { GITHUB_CALL_DEADLINE_MS, HEAD_MOVED_DEADLINE_MS } from '../timing.ts'
import type { ReviewDocument } from '../agent/review-document.ts'
import { CheckRunReporter, reportFromSaved, type CheckReport } from './check-run.ts'
import { postReview } from './review.ts'
import { CommitStatusReporter, statusContext } from './status.ts'
import { ThreadComment, type ThreadCommentOptions } from './keyed-run-comment.ts'
import { SetComment, type SetCommentOptions } from './keyed-set-comment.ts'
import type { StepTarget } from '../model/step.ts'
import type { Log } from '../log.ts'
import type { CheckRunLookup, CheckRunStateStore, SavedRun, StateStore } from '../state.ts'

/** What the comment needs to know of the step beyond the GitHub settings. */
export interface CommentRole {
  /** `reply` for continue_run: the answer to a person's comment is a new comment. */
  mode: ThreadCommentOptions['mode']
  /** The `name` input, when given. */
  name?: string
}

/** The step's comment, when one is asked for and the event has a thread; else undefined. */
export async function openThreadComment(
  github: GitHubSettings,
  context: GitHubContext,
  log: Log,
  comment: Pick<ThreadCommentOptions, 'commentId' | 'onCommentChosen'> & Partial<CommentRole> = {},
): Promise<ThreadComment | undefined> {
  if (!context.hasToken) return undefined
  if (context.thread.kind === 'none') {
    log.info(`No comment thread: ${context.thread.reason}. Going on without one.`)
    return undefined
  }
  return ThreadComment.open(await context.client(), context.thread.thread, {
    step: context.step,
    key: github.key,
    mode: 'keyed',
    workflowRun: context.workflowRun,
    log,
    ...comment,
  })
}

/** A set's comment, when one is asked for and the event has a thread; else undefined. */
export async function openSetComment(
  github: GitHubSettings,
  context: GitHubContext,
  log: Log,
  comment: Pick<SetCommentOptions, 'set' | 'commentId' | 'onCommentChosen'>,
): Promise<SetComment | undefined> {
  if (!github.comment || !context.hasToken) return undefined
  if (context.thread.kind === 'none') {
    log.info(`No comment thread: ${context.thread.reason}. Going on without one.`)
    return undefined
  }
  return new SetComment(await context.client(), context.thread.thread, {
    step: context.step,
    key: github.key,
    workflowRun: context.workflowRun,
    log,
    ...comment,
  })
}

/** Turns `continue_run` into the thread's run to follow up, or a new run when there is none. */
export async function resolveTarget(
  target: RunTarget,
  comment: ThreadComment | undefined,
  log: Log,
): Promise<StepTarget> {
  if (target.kind !== 'continue') return target
  const runId = await comment?.findRun()
  if (runId) {
    log.info(`continue_run: this thread's run is ${runId}; sending it the message as a follow-up.`)
    return { kind: 'existing', runId, followup: target.message }
  }
  log.info('continue_run: no earlier run on this thread; creating one.')
  return { kind: 'create', request: target.request }
}

/**
 * Whether the event's author may talk to the agent (`continue_run`). The
 * message itself always comes from the event as delivered (the inputs), never
 * from text fetched now, which its author could have edited since.
 */
export async function mayTalkToAgent(
  github: GitHubSettings,
  context: GitHubContext,
  log: Log,
): Promise<boolean> {
  const admission = await admitAuthor(
    await context.client(),
    context.repository ?? { owner: '', repo: '' },
    eventAuthorOf(context.event),
    github,
  )
  if (admission.admitted) {
    log.info(`continue_run: acting on it: ${admission.reason}.`)
    return true
  }
  log.info(`continue_run: not acting on it: ${admission.reason}. Nothing was started.`)
  return false
}

/** The commit the run works on: a pull request's head, else GITHUB_SHA. */
export interface WorkCommit {
  sha: string
  /** The pull request whose head it is, to see later whether the head has moved. */
  pullRequest?: { owner: string; repo: string; number: number }
}

const SHA = /^[0-9a-f]{40}$/

/**
 * The commit the run works on. A pull_request event carries its head; an
 * issue_comment on a pull request does not, so GitHub is asked (only when a
 * token is at hand); anything else works on GITHUB_SHA.
 */
export async function resolveWorkCommit(
  context: GitHubContext,
  log: Log,
): Promise<WorkCommit | undefined> {
  const { repository, pullRequest: number } = context
  const pullRequest = number !== undefined && repository ? { ...repository, number } : undefined
  if (context.eventHeadSha) return { sha: context.eventHeadSha, pullRequest }
  if (pullRequest && context.hasToken) {
    const head = await currentHead(context, pullRequest, log)
    if (head) return { sha: head, pullRequest }
  }
  return context.sha ? { sha: context.sha } : undefined
}

/** The pull request's head now, or undefined when GitHub cannot say within `deadlineMs`. */
async function currentHead(
  context: GitHubContext,
  pullRequest: NonNullable<WorkCommit['pullRequest']>,
  log: Log,
  deadlineMs = GITHUB_CALL_DEADLINE_MS,
): Promise<string | undefined> {
  try {
    const octokit = await context.client()
    const { data } = await octokit.rest.pulls.get({
      owner: pullRequest.owner,
      repo: pullRequest.repo,
      pull_number: pullRequest.number,
      ...withDeadline(deadlineMs),
    })
    return SHA.test(data.head.sha) ? data.head.sha : undefined
  } catch (error) {
    log.warning(
      `GitHub: could not read the head of pull request #${pullRequest.number} (${reasonOf(error)}). The run is not affected.`,
    )
    return undefined
  }
}

/** A note for the comment when the pull request's head has moved on since the run started. */
export async function headMovedNote(
  context: GitHubContext,
  commit: WorkCommit | undefined,
  log: Log,
): Promise<string | undefined> {
  if (!commit?.pullRequest || !context.hasToken) return undefined
  const head = await currentHead(context, commit.pullRequest, log, HEAD_MOVED_DEADLINE_MS)
  return head ? staleHeadNote(commit.sha, head) : undefined
}

/** The step's commit status, when `commit_status` asks for one and there is a commit. */
export async function openCommitStatus(
  github: GitHubSettings,
  context: GitHubContext,
  commit: WorkCommit | undefined,
  log: Log,
): Promise<CommitStatusReporter | undefined> {
  if (!github.commitStatus || !context.hasToken) return undefined
  if (!commit || !context.repository) {
    log.warning(
      'commit_status: no commit to set a status on (no pull request head, no GITHUB_SHA).',
    )
    return undefined
  }
  return new CommitStatusReporter(
    await context.client(),
    { ...context.repository, sha: commit.sha, context: statusContext(github.key) },
    log,
  )
}

/** The step's check run, created in progress now, when `check_run` asks for one and there is a commit. */
async function openCheckRun(
  github: GitHubSettings,
  context: GitHubContext,
  commit: WorkCommit | undefined,
  log: Log,
  record?: CheckRunStateStore,
): Promise<CheckRunReporter | undefined> {
  if (!commit || !context.repository) {
    log.warning('check_run: no commit to report on (no pull request head, no GITHUB_SHA).')
    return undefined
  }
  return CheckRunReporter.open(
    await context.client(),
    { ...context.repository, sha: commit.sha, key: github.key },
    log,
    context.workflowRun,
    record,
  )
}

/** The check run the main step opened and never completed (the post step completes it). */
async function adoptCheckRun(
  github: GitHubSettings,
  context: GitHubContext,
  known: { id: number } | CheckRunLookup,
  log: Log,
): Promise<CheckRunReporter> {
  const repository = context.repository ?? { owner: '', repo: '' }
  return CheckRunReporter.adopt(
    await context.client(),
    { ...repository, key: github.key },
    known,
    log,
  )
}

/** `pull_request_review`: posts the review on the event's pull request, when there is one. */
export async function postPullRequestReview(
  github: GitHubSettings,
  context: GitHubContext,
  commit: WorkCommit | undefined,
  review: ReviewDocument,
  run: { runId: string; sessionLink?: string },
  log: Log,
): Promise<void> {
  if (!commit?.pullRequest) {
    log.warning(
      'pull_request_review: this event is not about a pull request, so no review was posted; the review is in the structured_output output.',
    )
    return
  }
  await postReview(
    await context.client(),
    { ...commit.pullRequest, sha: commit.sha, key: github.key },
    review,
    run,
    log,
  )
}

/**
 * The commit's status and, with `check_run`, its check run, each saved for the post step: the
 * check run is created (and saved) before the first run, so that a post step after a hard kill
 * completes it.
 */
export async function openCommitSurfaces(
  github: GitHubSettings,
  checkRun: boolean,
  context: GitHubContext,
  commit: WorkCommit | undefined,
  log: Log,
  state: Pick<StateStore, 'saveStatusSha'> & CheckRunStateStore,
): Promise<{ status?: CommitStatusReporter; checkRun?: CheckRunReporter }> {
  const status = await openCommitStatus(github, context, commit, log)
  if (status && commit) state.saveStatusSha(commit.sha)
  const checks = checkRun ? await openCheckRun(github, context, commit, log, state) : undefined
  await checks?.id
  return { status, checkRun: checks }
}

/**
 * Completes the check run the main step left in progress (one run's or a set's): with the
 * conclusion the main step reached when it saved one, else with `stopped`.
 */
export async function finishLeftCheckRun(
  github: GitHubSettings,
  context: GitHubContext,
  saved: SavedRun,
  stopped: CheckReport,
  log: Log,
): Promise<void> {
  // By its ID, or by its external_id when the create's answer was lost.
  const known = saved.checkRunId !== undefined ? { id: saved.checkRunId } : saved.checkRunLookup
  if (!known) return
  const checkRun = await adoptCheckRun(github, context, known, log)
  await checkRun.finish(saved.checkRunReport ? reportFromSaved(saved.checkRunReport) : stopped)
}
