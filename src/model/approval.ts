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
  /** The change comes from a fork: a pull request's head, or a workflow_run's or check_suite's. */
  readonly fork: boolean
  /**
   * The event carries a person's words (a comment, a review, an issue) and its author is below
   * `commenter_permission` (or could not be checked): what they wrote, for the comment's words.
   */
  readonly wordsBelow?: WordsKind
}

/** What a person wrote that started the step, for the words that say why it waits. */
export type WordsKind = 'comment' | 'review' | 'issue' | 'discussion'

/** Why the step needs an approval, in words for the comment and the log; undefined when it does not. */
export function approvalNeeded(
  policy: ApprovalPolicy,
  facts: ApprovalNeedFacts,
): string | undefined {
  if (policy === 'always')
    return 'this workflow asks for an approval of every run (`approval: always`)'
  if (policy === 'none') return undefined
  if (facts.fork) return 'the change comes from a fork (`approval: forks`)'
  if (facts.wordsBelow) {
    return `the ${facts.wordsBelow} that started it is by someone below \`commenter_permission\` (\`approval: forks\`)`
  }
  return undefined
}

/**
 * What an approval is pinned to: a pull request's head commit, or, where the event has no head
 * (an issue, a comment on one), the item itself as it read when the step waited: its digest
 * changes with its id and its text, so an edit after the approval voids it.
 */
export type ApprovalPin =
  | { readonly kind: 'commit'; readonly sha: string }
  | { readonly kind: 'item'; readonly item: string; readonly digest: string }

/** What `/approve` names for a pin: the commit's SHA, or the item's digest. */
export function pinValue(pin: ApprovalPin): string {
  return pin.kind === 'commit' ? pin.sha : pin.digest
}

/** The pin in words: `commit 5c1e2d4f7a9b`, `issue #12 as it reads now`. */
export function pinWords(pin: ApprovalPin): string {
  return pin.kind === 'commit' ? `commit ${short(pin.sha)}` : `${pin.item} as it reads now`
}

/** How many hex characters of an item's digest its `/approve` line gives, all of which must match. */
export const ITEM_DIGEST_LENGTH = 20

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
  /** When the comment was made or the review submitted (ISO 8601), as GitHub gave it. */
  readonly madeAt?: string
}

/** What an approval is judged against, as GitHub answers it now. */
export interface ApprovalTarget {
  readonly pin: ApprovalPin
  /** Who opened the pull request or wrote the item: never their own approver. */
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
  const { pin } = target
  if (target.author !== undefined && claim.login.toLowerCase() === target.author.toLowerCase()) {
    return refuse(
      pin.kind === 'commit'
        ? `${who} opened the pull request, and its author never approves it`
        : `${who} wrote ${pin.item}, and its author never approves it`,
    )
  }
  if (pin.kind === 'item') {
    return claim.sha === pin.digest
      ? { kind: 'check-permission', login: claim.login }
      : refuse(
          `the comment approves ${claim.sha}, not ${pin.item} as it reads now (${pin.digest}); an edited item needs a new approval`,
        )
  }
  if (!namesHead(claim.sha, pin.sha)) {
    return refuse(
      `the ${claim.via === 'review' ? 'review' : 'comment'} approves ${short(claim.sha)}, not the head ${short(pin.sha)}; a newer push needs a new approval`,
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
  pin: ApprovalPin,
): ApprovalVerdict {
  const who = `@${claim.login}`
  if (meetsRole(role, least)) {
    const how = claim.via === 'review' ? 'a review' : 'a comment'
    const what = pin.kind === 'commit' ? short(pin.sha) : pin.item
    return {
      counts: true,
      reason: `${who} (${role}) approved ${what} in ${how} (approver_permission: ${least})`,
    }
  }
  return {
    counts: false,
    reason: `${who} has ${role === 'none' ? 'no' : role} permission on the repository; approver_permission asks for at least ${least}`,
  }
}

/** The key's approval record as the approving step reads it: what it pinned, when it was written. */
export interface WaitingRecord {
  /**
   * The commit SHA or item digest the record waited on (or started a run for); undefined when
   * the key's comment records no approval (it shows only runs or sets).
   */
  readonly pin: string | undefined
  /** When the key's comment was last written, by any step of the key (ISO 8601, GitHub's `updated_at`). */
  readonly writtenAt: string | undefined
}

/**
 * Whether an approval was made after the key's comment was last written, at GitHub's one-second
 * resolution: the same second counts for nothing, since GitHub cannot tell its order. The
 * comment is rewritten when a newer head waits and when an approval starts a run (and as the
 * key's runs go), so an approval older than it was either for another wait or has admitted its
 * one run. Undefined when it was made after.
 */
export function madeAfterRecord(
  madeAt: string | undefined,
  record: WaitingRecord,
  what: string,
): string | undefined {
  const made = Date.parse(madeAt ?? '')
  const written = Date.parse(record.writtenAt ?? '')
  if (!Number.isFinite(made) || !Number.isFinite(written)) {
    return 'GitHub did not say when the approval and the wait were made, so their order cannot be checked'
  }
  if (Math.floor(made / 1000) <= Math.floor(written / 1000)) {
    return `the approval of ${what} was made before, or in the same second as, the key's comment on the thread was last written; an approval counts only when made after it, and admits one run: approve again`
  }
  return undefined
}

/**
 * Whether an `/approve` comment came after the wait it answers, for the head that waited: its
 * 7 characters could name a newer commit made to share them and pushed right after the
 * approval, before the approving run reads the head. Such a push moves the head away from the
 * waiting comment's, or rewrites that comment after the approval was made: either way the
 * approval counts for nothing. Without a wait, only the whole SHA counts, and only once made
 * after the key's comment (if any) was last written. Undefined when it counts.
 */
export function approvalAfterWait(
  comment: { readonly madeAt?: string; readonly sha: string },
  head: string,
  waiting: WaitingRecord | undefined,
): string | undefined {
  // With no wait to order it against, only the whole SHA names the head beyond doubt.
  if (waiting?.pin === undefined) {
    if (comment.sha.length < 40) {
      return 'no step waited for this head, so a comment must give its whole SHA'
    }
    return waiting && madeAfterRecord(comment.madeAt, waiting, short(head))
  }
  if (waiting.pin !== head) {
    return `the head moved to ${short(head)} after the step waited for ${short(waiting.pin)}; a newer push needs a new approval`
  }
  return madeAfterRecord(comment.madeAt, waiting, short(head))
}

/** A commit as the log and the comment name it. */
export function short(sha: string): string {
  return sha.slice(0, 12)
}
