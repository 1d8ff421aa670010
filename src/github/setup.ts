import type { GitHubSettings, RunTarget } from '../inputs.ts'
import { staleHeadNote, workflowRunUrl } from './comment.ts'
import { admitAuthor } from './commenter.ts'
import { Conversation, type ConversationOptions } from './conversation.ts'
import { eventAuthorOf, eventHeadSha, eventPullRequest, readEventPayload } from './event.ts'
import { loadOctokit, reasonOf, withDeadline } from './octokit.ts'
import { GITHUB_CALL_DEADLINE_MS, HEAD_MOVED_DEADLINE_MS } from '../timing.ts'
import type { ReviewDocument } from '../agent/review-document.ts'
import { CheckRunReporter } from './check-run.ts'
import { postReview } from './review.ts'
import { CommitStatusReporter, statusContext } from './status.ts'
import { threadFromEvent } from './thread.ts'
import type { StepTarget } from '../model/step.ts'
import type { Log } from '../log.ts'

/** What the conversation needs to know of the step beyond the GitHub settings. */
export interface ConversationRole {
  /** `reply` for continue_run: the answer to a person's comment is a new comment. */
  mode: ConversationOptions['mode']
  /** The `name` input, when given. */
  name?: string
}

/** The step's conversation, when one is asked for and the event has a thread; else undefined. */
export async function openConversation(
  github: GitHubSettings,
  log: Log,
  comment: Pick<ConversationOptions, 'commentId' | 'onCommentCreated'> &
    Partial<ConversationRole> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<Conversation | undefined> {
  if (!github.token) return undefined
  const lookup = threadFromEvent(env)
  if (lookup.kind === 'none') {
    log.info(`No comment thread: ${lookup.reason}. Going on without one.`)
    return undefined
  }
  const step = `${env.GITHUB_JOB ?? 'job'}/${env.GITHUB_ACTION ?? 'step'}`
  return Conversation.open(github.token, lookup.thread, {
    step,
    key: github.key,
    mode: 'keyed',
    workflowRun: workflowRunUrl(env),
    log,
    ...comment,
  })
}

/** Turns `continue_run` into the thread's run to follow up, or a new run when there is none. */
export async function resolveTarget(
  target: RunTarget,
  conversation: Conversation | undefined,
  log: Log,
): Promise<StepTarget> {
  if (target.kind !== 'continue') return target
  const runId = await conversation?.findRun()
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
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  const octokit = await loadOctokit(github.token, env)
  const admission = await admitAuthor(
    octokit,
    { owner, repo },
    eventAuthorOf(readEventPayload(env)),
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
  github: GitHubSettings,
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<WorkCommit | undefined> {
  const payload = readEventPayload(env)
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  const number = eventPullRequest(payload)
  const pullRequest = number !== undefined && owner && repo ? { owner, repo, number } : undefined
  const fromEvent = eventHeadSha(payload)
  if (fromEvent) return { sha: fromEvent, pullRequest }
  if (pullRequest && github.token) {
    const head = await currentHead(github, pullRequest, log, env)
    if (head) return { sha: head, pullRequest }
  }
  const sha = env.GITHUB_SHA ?? ''
  return SHA.test(sha) ? { sha } : undefined
}

/** The pull request's head now, or undefined when GitHub cannot say within `deadlineMs`. */
async function currentHead(
  github: GitHubSettings,
  pullRequest: NonNullable<WorkCommit['pullRequest']>,
  log: Log,
  env: NodeJS.ProcessEnv,
  deadlineMs = GITHUB_CALL_DEADLINE_MS,
): Promise<string | undefined> {
  try {
    const octokit = await loadOctokit(github.token, env)
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
  github: GitHubSettings,
  commit: WorkCommit | undefined,
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  if (!commit?.pullRequest || !github.token) return undefined
  const head = await currentHead(github, commit.pullRequest, log, env, HEAD_MOVED_DEADLINE_MS)
  return head ? staleHeadNote(commit.sha, head) : undefined
}

/** The step's commit status, when `commit_status` asks for one and there is a commit. */
export async function openCommitStatus(
  github: GitHubSettings,
  commit: WorkCommit | undefined,
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CommitStatusReporter | undefined> {
  if (!github.commitStatus || !github.token) return undefined
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  if (!commit || !owner || !repo) {
    log.warning(
      'commit_status: no commit to set a status on (no pull request head, no GITHUB_SHA).',
    )
    return undefined
  }
  const octokit = await loadOctokit(github.token, env)
  return new CommitStatusReporter(
    octokit,
    { owner, repo, sha: commit.sha, context: statusContext(github.key) },
    log,
  )
}

/** The step's check run, created in progress now, when `check_run` asks for one and there is a commit. */
export async function openCheckRun(
  github: GitHubSettings,
  commit: WorkCommit | undefined,
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CheckRunReporter | undefined> {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  if (!commit || !owner || !repo) {
    log.warning('check_run: no commit to report on (no pull request head, no GITHUB_SHA).')
    return undefined
  }
  const octokit = await loadOctokit(github.token, env)
  return CheckRunReporter.open(
    octokit,
    { owner, repo, sha: commit.sha, key: github.key },
    log,
    workflowRunUrl(env),
  )
}

/** The check run the main step opened and never completed (the post step completes it). */
export async function adoptCheckRun(
  github: GitHubSettings,
  id: number,
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CheckRunReporter> {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  const octokit = await loadOctokit(github.token, env)
  return CheckRunReporter.adopt(octokit, { owner, repo, key: github.key }, id, log)
}

/** `pull_request_review`: posts the review on the event's pull request, when there is one. */
export async function postPullRequestReview(
  github: GitHubSettings,
  commit: WorkCommit | undefined,
  review: ReviewDocument,
  context: { runId: string; sessionLink?: string },
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (!commit?.pullRequest) {
    log.warning(
      'pull_request_review: this event is not about a pull request, so no review was posted; the review is in the structured_output output.',
    )
    return
  }
  const octokit = await loadOctokit(github.token, env)
  await postReview(
    octokit,
    { ...commit.pullRequest, sha: commit.sha, key: github.key },
    review,
    context,
    log,
  )
}
