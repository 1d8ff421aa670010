import type { GitHubSettings } from '../inputs/github.ts'
import type { Log } from '../log.ts'
import {
  approvalAfterWait,
  approveCommandOf,
  judgeApprover,
  madeAfterRecord,
  pinValue,
  pinWords,
  screenApproval,
  type ApprovalClaim,
  type ApprovalPin,
  type ApprovalVerdict,
  type WaitingRecord,
} from '../model/approval.ts'
import { roleOf } from './commenter.ts'
import type { Repository } from './context.ts'
import { reasonOf, withDeadline, type Octokit } from './octokit.ts'

/**
 * What an approval is about, as GitHub answers it now (never as the event had it): the thread
 * that holds the approval comment (a pull request or an issue), what is pinned, and who wrote
 * it (never its own approver).
 */
export interface ApprovalTarget extends Repository {
  /** The pull request's or issue's number: where the approval comment is. */
  readonly number: number
  readonly pin: ApprovalPin
  readonly author: string | undefined
  /** An item's kind and id, for the record (a pull request's head needs none). */
  readonly item?: { readonly kind: 'issue' | 'comment'; readonly id: number }
}

/** An approval that counts: what it pins, and who gave it, in words for the log. */
export interface Approved {
  readonly target: ApprovalTarget
  readonly login: string
  readonly via: ApprovalClaim['via']
  readonly reason: string
  /** What it names: a head's 7 to 40 hex characters (a review's, all 40), or an item's digest. */
  readonly sha: string
}

/** One approval judged: the pure screening, then its author's permission as GitHub reports it. */
export async function judge(
  octokit: Octokit,
  claim: ApprovalClaim,
  target: ApprovalTarget,
  github: GitHubSettings,
): Promise<ApprovalVerdict> {
  const screening = screenApproval(claim, target)
  if (screening.kind === 'refused') return { counts: false, reason: screening.reason }
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: target.owner,
      repo: target.repo,
      username: screening.login,
      ...withDeadline(),
    })
    return judgeApprover(claim, roleOf(data), github.approverPermission, target.pin)
  } catch (error) {
    return {
      counts: false,
      reason: `@${claim.login}'s permission could not be checked (${reasonOf(error)})`,
    }
  }
}

/**
 * Whether an `/approve` comment is still there and still says what it said when it was made:
 * an edit or a delete before the deciding step reads it voids it. Undefined when it stands.
 */
export async function commentStands(
  octokit: Octokit,
  where: Repository,
  comment: { readonly id: number | undefined; readonly body: string },
): Promise<string | undefined> {
  if (comment.id === undefined) return 'the event names no comment id, so it cannot be re-read'
  try {
    const { data } = await octokit.rest.issues.getComment({
      ...where,
      comment_id: comment.id,
      ...withDeadline(),
    })
    const edited = data.updated_at !== data.created_at || (data.body ?? '') !== comment.body
    return edited
      ? 'the comment was edited since it was made, and only an unedited one approves'
      : undefined
  } catch (error) {
    if ((error as { status?: number }).status === 404) return 'the comment was deleted'
    return `the comment could not be re-read (${reasonOf(error)})`
  }
}

/**
 * An approval already on the thread that counts for the target: each reviewer's latest verdict
 * (pull requests only), then the `/approve` comments, unedited, oldest first. With a record,
 * only one made after it was last written counts (it admits one run); without one, only one
 * that names the pin in full. Undefined when none counts; a string when GitHub cannot say.
 */
export async function approvalOnThread(
  octokit: Octokit,
  target: ApprovalTarget,
  record: WaitingRecord | undefined,
  github: GitHubSettings,
  log: Log,
): Promise<Approved | undefined | string> {
  const claims = target.pin.kind === 'commit' ? await reviewClaims(octokit, target) : []
  if (typeof claims === 'string') return claims
  const comments = await commentClaims(octokit, target)
  if (typeof comments === 'string') return comments
  for (const claim of [...claims, ...comments]) {
    const late = lateness(claim, target.pin, record)
    if (late) continue
    const verdict = await judge(octokit, claim, target, github)
    if (verdict.counts) {
      const { login, via, sha } = claim
      return { target, login, via, sha, reason: verdict.reason }
    }
    log.info(
      `approval: ${claim.via === 'review' ? 'a review' : 'a comment'} does not count: ${verdict.reason}.`,
    )
  }
  return undefined
}

/**
 * Why a claim found on the thread is too old or too vague to count now; undefined when not.
 * With a record, only a claim made after the key's comment was last written counts, whatever
 * the record pins: a review names its whole commit, but one made before that write either
 * answered an earlier wait or has admitted its run (GitHub has no compare-and-swap, so a step of
 * the key writing at the same moment could leave an older record in the comment; never an older
 * time).
 */
export function lateness(
  claim: ApprovalClaim,
  pin: ApprovalPin,
  record: WaitingRecord | undefined,
): string | undefined {
  if (pin.kind === 'commit' && claim.via === 'comment') {
    return approvalAfterWait(claim, pin.sha, record)
  }
  if (pin.kind === 'item' && record?.pin === undefined) return `no step waited for ${pin.item}`
  if (!record) return undefined
  if (pin.kind === 'item' && record.pin !== pinValue(pin)) {
    return `the step waited for ${record.pin}, not ${pinWords(pin)}`
  }
  return madeAfterRecord(claim.madeAt, record, pinWords(pin))
}

interface ReviewUser {
  login: string
  type?: string
}

/** Each reviewer's latest verdict, as claims: APPROVED ones only, pinned to their commit. */
async function reviewClaims(
  octokit: Octokit,
  target: ApprovalTarget,
): Promise<ApprovalClaim[] | string> {
  let reviews: Array<{
    state: string
    commit_id?: string | null
    user?: ReviewUser | null
    submitted_at?: string | null
  }>
  try {
    reviews = await octokit.paginate(octokit.rest.pulls.listReviews, {
      owner: target.owner,
      repo: target.repo,
      pull_number: target.number,
      per_page: 100,
      ...withDeadline(),
    })
  } catch (error) {
    return `the reviews of pull request #${target.number} could not be read (${reasonOf(error)})`
  }
  const latest = new Map<string, (typeof reviews)[number]>()
  for (const review of reviews) {
    const login = review.user?.login
    if (login && ['APPROVED', 'CHANGES_REQUESTED', 'DISMISSED'].includes(review.state)) {
      latest.set(login.toLowerCase(), review)
    }
  }
  const claims: ApprovalClaim[] = []
  for (const review of latest.values()) {
    if (review.state !== 'APPROVED' || !review.user || !review.commit_id) continue
    if (pinValue(target.pin) !== review.commit_id) continue
    claims.push({
      via: 'review',
      login: review.user.login,
      isBot: review.user.type === 'Bot' || review.user.login.endsWith('[bot]'),
      sha: review.commit_id,
      ...(review.submitted_at ? { madeAt: review.submitted_at } : {}),
    })
  }
  return claims
}

/** The thread's unedited `/approve` comments that name the pin, as claims, oldest first. */
async function commentClaims(
  octokit: Octokit,
  target: ApprovalTarget,
): Promise<ApprovalClaim[] | string> {
  let comments: Array<{
    body?: string
    user?: ReviewUser | null
    created_at: string
    updated_at: string
  }>
  try {
    comments = await octokit.paginate(octokit.rest.issues.listComments, {
      owner: target.owner,
      repo: target.repo,
      issue_number: target.number,
      per_page: 100,
      ...withDeadline(),
    })
  } catch (error) {
    return `the comments of #${target.number} could not be read (${reasonOf(error)})`
  }
  const pin = pinValue(target.pin)
  const claims: ApprovalClaim[] = []
  for (const comment of comments) {
    const sha = approveCommandOf(comment.body)
    if (!sha || !comment.user || comment.updated_at !== comment.created_at) continue
    if (!pin.startsWith(sha)) continue
    claims.push({
      via: 'comment',
      login: comment.user.login,
      isBot: comment.user.type === 'Bot' || comment.user.login.endsWith('[bot]'),
      sha,
      madeAt: comment.created_at,
    })
  }
  return claims
}
