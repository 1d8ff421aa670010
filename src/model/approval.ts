/**
 * Who may start a run (v1.4): a maintainer's approval pinned to one commit. The rules are pure:
 * what GitHub says (the pull request, a review, a comment, a permission) comes in as facts, and a
 * verdict in words for the log and the comment comes out. `github/approval.ts` asks GitHub.
 */

/** `approval`'s words: when a run needs an approval before it may start. */
export const APPROVAL_POLICIES = ['none', 'forks', 'always'] as const
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number]

/** Repository roles, least first: what `commenter_permission` and `approver_permission` name. */
export const REPOSITORY_ROLES = ['read', 'triage', 'write', 'maintain', 'admin'] as const
export type RepositoryRole = (typeof REPOSITORY_ROLES)[number]

/** Every role GitHub's permission endpoint may name, `none` included, least first. */
export const ROLE_WORDS: ReadonlyArray<RepositoryRole | 'none'> = ['none', ...REPOSITORY_ROLES]

/** Each role's rank: its place in ROLE_WORDS. */
const RANK = Object.fromEntries(ROLE_WORDS.map((role, rank) => [role, rank])) as Readonly<
  Record<RepositoryRole | 'none', number>
>

/** Whether `role` is at least `least`. */
export function meetsRole(role: RepositoryRole | 'none', least: RepositoryRole): boolean {
  return RANK[role] >= RANK[least]
}

/** What decides whether a step needs an approval, as the event and GitHub tell it. */
export interface ApprovalNeedFacts {
  /** The pull request's head is in another repository than its base. */
  readonly fork: boolean
  /** The event is a comment whose author is below `commenter_permission` (or could not be checked). */
  readonly commenterBelow: boolean
}

/** Why the step needs an approval, in words for the comment and the log; undefined when it does not. */
export function approvalNeeded(
  policy: ApprovalPolicy,
  facts: ApprovalNeedFacts,
): string | undefined {
  if (policy === 'always')
    return 'this workflow asks for an approval of every commit (`approval: always`)'
  if (policy === 'none') return undefined
  if (facts.fork) return 'this pull request comes from a fork (`approval: forks`)'
  if (facts.commenterBelow) {
    return 'the comment that started it is by someone below `commenter_permission` (`approval: forks`)'
  }
  return undefined
}

/** The fewest hex characters of the head that an `/approve` comment must give. */
export const MIN_APPROVE_SHA = 7

const HEX = /^[0-9a-f]+$/

/**
 * The commit an `/approve <sha>` comment names: its first line, `/approve` and 7 to 40 hex
 * characters, lower-cased; undefined for any other comment. Linear: a split and two checks.
 */
export function approveCommandOf(body: string | undefined): string | undefined {
  const firstLine = (body ?? '').trimStart().split('\n', 1)[0] ?? ''
  const words = firstLine.trim().split(/[ \t]+/)
  if (words.length !== 2 || words[0] !== '/approve') return undefined
  const sha = (words[1] ?? '').toLowerCase()
  return sha.length >= MIN_APPROVE_SHA && sha.length <= 40 && HEX.test(sha) ? sha : undefined
}

/** Whether a comment's first line asks to approve (even a malformed one), to say why it does not count. */
export function looksLikeApprove(body: string | undefined): boolean {
  return (body ?? '').trimStart().startsWith('/approve')
}

/** The exact line a maintainer comments to approve `head`. */
export function approveLine(head: string): string {
  return `/approve ${head}`
}

/** One approval as GitHub delivered it: a review, or an `/approve` comment. */
export interface ApprovalClaim {
  readonly via: 'review' | 'comment'
  readonly login: string
  readonly isBot: boolean
  /** The commit it approves: a review's `commit_id`, or the hex the comment gives (7 or more). */
  readonly sha: string
  /** A comment edited after it was made (the `edited` event), or a review not APPROVED. */
  readonly void?: string
  /** When the comment was made (ISO 8601), as the event delivered it. */
  readonly madeAt?: string
}

/** The pull request an approval is judged against, as GitHub answers it now. */
export interface ApprovalTarget {
  readonly head: string
  /** The pull request's author: never their own approver. */
  readonly author: string | undefined
}

export type ApprovalScreening =
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'check-permission'; readonly login: string }

/** What can be said of an approval before asking GitHub for its author's permission. */
export function screenApproval(claim: ApprovalClaim, target: ApprovalTarget): ApprovalScreening {
  const who = `@${claim.login}`
  const refuse = (reason: string): ApprovalScreening => ({ kind: 'refused', reason })
  if (claim.void) return refuse(claim.void)
  if (claim.isBot) return refuse(`${who} is a bot, and bots never approve`)
  if (target.author !== undefined && claim.login.toLowerCase() === target.author.toLowerCase()) {
    return refuse(`${who} opened the pull request, and its author never approves it`)
  }
  if (!namesHead(claim.sha, target.head)) {
    return refuse(
      `the ${claim.via === 'review' ? 'review' : 'comment'} approves ${short(claim.sha)}, not the head ${short(target.head)}; a newer push needs a new approval`,
    )
  }
  return { kind: 'check-permission', login: claim.login }
}

/** Whether `sha` (7 or more hex characters, or a full SHA) names `head`. */
export function namesHead(sha: string, head: string): boolean {
  const given = sha.toLowerCase()
  return given.length >= MIN_APPROVE_SHA && head.toLowerCase().startsWith(given)
}

export type ApprovalVerdict =
  | { readonly counts: true; readonly reason: string }
  | { readonly counts: false; readonly reason: string }

/** An approval whose author's permission GitHub gave: it counts at `approver_permission` or above. */
export function judgeApprover(
  claim: Pick<ApprovalClaim, 'login' | 'via'>,
  role: RepositoryRole | 'none',
  least: RepositoryRole,
  head: string,
): ApprovalVerdict {
  const who = `@${claim.login}`
  if (meetsRole(role, least)) {
    const how = claim.via === 'review' ? 'a review' : 'a comment'
    return {
      counts: true,
      reason: `${who} (${role}) approved ${short(head)} in ${how} (approver_permission: ${least})`,
    }
  }
  return {
    counts: false,
    reason: `${who} has ${role === 'none' ? 'no' : role} permission on the repository; approver_permission asks for at least ${least}`,
  }
}

/** The waiting comment as the approving step reads it: the head it waited on, when it was written. */
export interface WaitingRecord {
  readonly head: string
  /** When the comment was last written (ISO 8601, GitHub's `updated_at`). */
  readonly writtenAt: string | undefined
}

/**
 * Whether an `/approve` comment came after the wait it answers, for the head that waited: its
 * 7 characters could name a newer commit made to share them and pushed right after the
 * approval, before the approving run reads the head. Such a push moves the head away from the
 * waiting comment's, or rewrites that comment after the approval was made: either way the
 * approval counts for nothing. Without a wait, only the whole SHA counts. Undefined when it counts.
 */
export function approvalAfterWait(
  comment: { readonly madeAt?: string; readonly sha: string },
  head: string,
  waiting: WaitingRecord | undefined,
): string | undefined {
  // With no wait to order it against, only the whole SHA names the head beyond doubt.
  if (!waiting) {
    return comment.sha.length < 40
      ? 'no step waited for this head, so a comment must give its whole SHA'
      : undefined
  }
  const { madeAt } = comment
  if (waiting.head !== head) {
    return `the head moved to ${short(head)} after the step waited for ${short(waiting.head)}; a newer push needs a new approval`
  }
  const made = Date.parse(madeAt ?? '')
  const written = Date.parse(waiting.writtenAt ?? '')
  if (!Number.isFinite(made) || !Number.isFinite(written)) {
    return 'GitHub did not say when the approval and the wait were made, so their order cannot be checked'
  }
  if (made < written) {
    return `the comment was made before the step waited for ${short(head)}; comment the line the waiting comment gives now`
  }
  return undefined
}

/** A commit as the log and the comment name it. */
export function short(sha: string): string {
  return sha.slice(0, 12)
}
