import type { GitHubSettings } from '../inputs/github.ts'
import type { Log } from '../log.ts'
import {
  approvalNeeded,
  approveCommandOf,
  judgeApprover,
  looksLikeApprove,
  MIN_APPROVE_SHA,
  screenApproval,
  type ApprovalClaim,
  type ApprovalVerdict,
} from '../model/approval.ts'
import type { EventPayload } from '../world.ts'
import { admitAuthor, roleOf } from './commenter.ts'
import type { GitHubContext, Repository } from './context.ts'
import { eventAuthorOf } from './event.ts'
import { reasonOf, withDeadline, type Octokit } from './octokit.ts'

/** The pull request an approval is about, as GitHub answers it now (not as the event had it). */
export interface ApprovalPull extends Repository {
  readonly number: number
  readonly head: string
  /** Who opened it: never its own approver. */
  readonly author: string | undefined
  /** The head is in another repository than the base. */
  readonly fork: boolean
}

/**
 * What the step may do, by `approval`: start (nothing needed, or an approval of the head came:
 * `approved` pins the run to it); wait (no create; the waiting is shown on the pull request); or
 * refuse (an approval was given and does not count, or GitHub could not say: nothing starts).
 */
export type Gate =
  | { readonly kind: 'start'; readonly approved?: Approved }
  | { readonly kind: 'wait'; readonly pull: ApprovalPull; readonly why: string }
  | { readonly kind: 'refuse'; readonly reason: string; readonly pull?: ApprovalPull }

/** An approval that counts: the head it pins, and who gave it, in words for the log. */
export interface Approved {
  readonly pull: ApprovalPull
  readonly login: string
  readonly via: ApprovalClaim['via']
  readonly reason: string
  /** A comment's: when it was made. */
  readonly madeAt?: string
  /** What it names of the head: 7 to 40 hex characters (a review's, all 40). */
  readonly sha: string
}

/** What `pull_request_target` with a fork and `approval: none` warns, once. */
export const OPEN_TO_FORKS =
  "approval is none on a pull_request_target event from a fork: anyone who opens a pull request can start a paid run with this repository's key and the workflow's prompt. Set approval: forks to start it only once a maintainer approves the commit (docs/security.md)."

/**
 * Decides by `approval` whether the step may start its run. Every question to GitHub that fails
 * refuses: nothing starts on an answer that did not come (fail closed).
 */
export async function decideApproval(
  github: GitHubSettings,
  context: GitHubContext,
  log: Log,
): Promise<Gate> {
  const { eventName, event } = context
  if (github.approval === 'none') {
    if (eventName === 'pull_request_target' && isForkEvent(event)) log.warning(OPEN_TO_FORKS)
    return { kind: 'start' }
  }
  const comment = eventName === 'issue_comment' ? commentClaim(event) : undefined
  const number = context.pullRequest
  if (number === undefined || !context.repository) {
    if (eventName !== 'issue_comment') {
      log.info(
        `approval: the ${eventName || 'unknown'} event is about no pull request, so there is no commit to approve; going on.`,
      )
      return { kind: 'start' }
    }
    return {
      kind: 'refuse',
      reason:
        "an approval pins a run to a pull request's head commit, and a comment on an issue has none",
    }
  }
  const octokit = await context.client()
  const read = await readPull(octokit, { ...context.repository, number })
  if (typeof read === 'string') return { kind: 'refuse', reason: read }
  const pull = read
  if (comment) {
    const verdict = await judge(octokit, comment, pull, github)
    if (!verdict.counts) return { kind: 'refuse', reason: verdict.reason, pull }
    const { login, via, madeAt, sha } = comment
    const approved = { pull, login, via, madeAt, sha, reason: verdict.reason }
    return { kind: 'start', approved }
  }
  const commenterBelow =
    github.approval === 'forks' && !pull.fork && eventName === 'issue_comment'
      ? !(await admitAuthor(octokit, context.repository, eventAuthorOf(event), github)).admitted
      : false
  const why = approvalNeeded(github.approval, { fork: pull.fork, commenterBelow })
  if (!why) return { kind: 'start' }
  const review = await approvingReview(octokit, pull, github, log)
  if (typeof review === 'string') return { kind: 'refuse', reason: review, pull }
  return review ? { kind: 'start', approved: review } : { kind: 'wait', pull, why }
}

/** Whether the event's pull request comes from a fork, as the event delivered it. */
function isForkEvent(event: EventPayload | undefined): boolean {
  const head = event?.pull_request?.head?.repo?.full_name
  const base = event?.pull_request?.base?.repo?.full_name
  return head !== undefined && base !== undefined && head !== base
}

/**
 * The comment as an approval, when its first line asks for one; undefined for any other
 * comment. Only the text the event delivered is read, and only a new comment approves.
 */
function commentClaim(event: EventPayload | undefined): ApprovalClaim | undefined {
  const body = event?.comment?.body
  if (!looksLikeApprove(body)) return undefined
  const author = eventAuthorOf(event)
  const sha = approveCommandOf(body)
  const action = event?.action ?? 'unknown'
  const void_ =
    action !== 'created'
      ? `the comment was ${action === 'edited' ? 'edited' : action}, and only a new comment approves (an edit could point an old approval at another commit)`
      : sha === undefined
        ? `the comment does not read "/approve <sha>" with ${MIN_APPROVE_SHA} to 40 hex characters of the head`
        : !author
          ? 'the event names no author, so their permission cannot be checked'
          : undefined
  return {
    via: 'comment',
    login: author?.login ?? '',
    isBot: author?.isBot ?? false,
    sha: sha ?? '',
    madeAt: event?.comment?.created_at,
    ...(void_ ? { void: void_ } : {}),
  }
}

/** The pull request now: its head, author and whether it is a fork's; or why it cannot be read. */
async function readPull(
  octokit: Octokit,
  where: Repository & { number: number },
): Promise<ApprovalPull | string> {
  try {
    const { data } = await octokit.rest.pulls.get({
      owner: where.owner,
      repo: where.repo,
      pull_number: where.number,
      ...withDeadline(),
    })
    const head = data.head.sha
    if (!/^[0-9a-f]{40}$/.test(head)) return `pull request #${where.number} has no head commit`
    // Nothing is started for a pull request that is done, whoever approves it.
    if (data.state !== 'open') return `pull request #${where.number} is ${data.state}`
    const headRepo = data.head.repo?.full_name
    return {
      ...where,
      head,
      author: data.user?.login,
      // A head whose repository is gone (a deleted fork) is no less a fork's.
      fork: headRepo === undefined || headRepo !== data.base.repo.full_name,
    }
  } catch (error) {
    return `pull request #${where.number} could not be read (${reasonOf(error)}), so no approval can be checked`
  }
}

/** One approval judged: the pure screening, then the author's permission as GitHub reports it. */
async function judge(
  octokit: Octokit,
  claim: ApprovalClaim,
  pull: ApprovalPull,
  github: GitHubSettings,
): Promise<ApprovalVerdict> {
  const screening = screenApproval(claim, pull)
  if (screening.kind === 'refused') return { counts: false, reason: screening.reason }
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: pull.owner,
      repo: pull.repo,
      username: screening.login,
      ...withDeadline(),
    })
    return judgeApprover(claim, roleOf(data), github.approverPermission, pull.head)
  } catch (error) {
    return {
      counts: false,
      reason: `@${claim.login}'s permission could not be checked (${reasonOf(error)})`,
    }
  }
}

/**
 * A review that approves the head and counts: each reviewer's latest verdict (APPROVED,
 * CHANGES_REQUESTED or DISMISSED), pinned by GitHub to the commit it was given on. Undefined
 * when none counts; a string when the reviews cannot be read.
 */
async function approvingReview(
  octokit: Octokit,
  pull: ApprovalPull,
  github: GitHubSettings,
  log: Log,
): Promise<Approved | undefined | string> {
  let reviews: Array<{ state: string; commit_id?: string | null; user?: ReviewUser | null }>
  try {
    reviews = await octokit.paginate(octokit.rest.pulls.listReviews, {
      owner: pull.owner,
      repo: pull.repo,
      pull_number: pull.number,
      per_page: 100,
      ...withDeadline(),
    })
  } catch (error) {
    return `the reviews of pull request #${pull.number} could not be read (${reasonOf(error)})`
  }
  const latest = new Map<string, (typeof reviews)[number]>()
  for (const review of reviews) {
    const login = review.user?.login
    if (login && ['APPROVED', 'CHANGES_REQUESTED', 'DISMISSED'].includes(review.state)) {
      latest.set(login.toLowerCase(), review)
    }
  }
  for (const review of latest.values()) {
    if (review.state !== 'APPROVED' || review.commit_id !== pull.head || !review.user) continue
    const claim: ApprovalClaim = {
      via: 'review',
      login: review.user.login,
      isBot: review.user.type === 'Bot' || review.user.login.endsWith('[bot]'),
      sha: review.commit_id,
    }
    const verdict = await judge(octokit, claim, pull, github)
    if (verdict.counts) {
      return { pull, login: claim.login, via: 'review', sha: claim.sha, reason: verdict.reason }
    }
    log.info(`approval: a review of the head does not count: ${verdict.reason}.`)
  }
  return undefined
}

interface ReviewUser {
  login: string
  type?: string
}
