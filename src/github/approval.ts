import type { GitHubSettings } from '../inputs/github.ts'
import type { Log } from '../log.ts'
import {
  approvalAfterWait,
  approvalNeeded,
  approveCommandOf,
  looksLikeApprove,
  madeAfterRecord,
  MIN_APPROVE_SHA,
  pinValue,
  type ApprovalClaim,
  type WaitingRecord,
} from '../model/approval.ts'
import type { EventPayload } from '../world.ts'
import { ApprovalComment, type FoundRecord } from './approval-comment.ts'
import { readApprovalEvent, type ApprovalEvent } from './approval-event.ts'
import { readTarget, type PinnableSubject } from './approval-target.ts'
import {
  approvalOnThread,
  commentStands,
  judge,
  type ApprovalTarget,
  type Approved,
} from './approvals-given.ts'
import { admitAuthor } from './commenter.ts'
import type { GitHubContext, Repository } from './context.ts'
import { eventAuthorOf } from './event.ts'
import { reasonOf, type Octokit } from './octokit.ts'

export type { ApprovalTarget, Approved } from './approvals-given.ts'

/**
 * What the step may do, by `approval`: start (nothing needed, or an approval came: `approved`
 * pins the run to it, `record` is the key's comment as found); wait (no create; the waiting is
 * shown on the thread; `fork`: the change is a fork's); or refuse (an approval was given and does not count, there is
 * nothing an approval could be pinned to, or GitHub could not say: nothing starts).
 */
export type Gate =
  | {
      readonly kind: 'start'
      readonly approved?: Approved
      readonly record?: FoundRecord
    }
  | {
      readonly kind: 'wait'
      readonly target: ApprovalTarget
      readonly why: string
      readonly fork: boolean
      readonly record?: FoundRecord
    }
  | { readonly kind: 'refuse'; readonly reason: string; readonly target?: ApprovalTarget }

/** What `pull_request_target` with a fork and `approval: none` warns, once. */
export const OPEN_TO_FORKS =
  "approval is none on a pull_request_target event from a fork: anyone who opens a pull request can start a paid run with this repository's key and the workflow's prompt. Set approval: forks to start it only once a maintainer approves the commit (docs/security.md)."

/**
 * Decides by `approval` whether the step may start its run, on every event (v1.5): a pull
 * request's head, an issue or a comment on one, or an event with neither. Every question to
 * GitHub that fails refuses: nothing starts on an answer that did not come (fail closed).
 */
export async function decideApproval(
  github: GitHubSettings,
  context: GitHubContext,
  log: Log,
): Promise<Gate> {
  const { eventName, event, repository } = context
  const facts = readApprovalEvent(
    eventName,
    event,
    repository && `${repository.owner}/${repository.repo}`,
  )
  if (github.approval === 'none') {
    if (eventName === 'pull_request_target' && facts.fork) log.warning(OPEN_TO_FORKS)
    return { kind: 'start' }
  }
  if (!repository) {
    return { kind: 'refuse', reason: 'the workflow names no repository whose people could approve' }
  }
  const octokit = await context.client()
  const { subject } = facts
  if (subject.kind === 'none' || subject.kind === 'unpinnable') {
    return await unpinned(github, facts, octokit, repository, eventName)
  }
  const claim = eventName === 'issue_comment' ? commentClaim(event) : undefined
  const thread = {
    ...repository,
    number: subject.kind === 'pull' ? subject.number : subject.item.thread,
  }
  const found = await findRecord(octokit, thread, github.key, log)
  if (typeof found === 'string') return { kind: 'refuse', reason: found }
  // An `/approve` on an issue approves the item its step waited for, not the comment itself.
  const waited = claim && subject.kind === 'item' ? waitedItem(found, subject.item.thread) : subject
  if (typeof waited === 'string') return { kind: 'refuse', reason: waited }
  const read = await readTarget(octokit, repository, waited, facts.fork)
  if (typeof read === 'string') return { kind: 'refuse', reason: read }
  const { target, fork } = read
  const record = found && { pin: found.marker?.head, writtenAt: found.writtenAt }
  if (claim) {
    const approved = await decideClaim(octokit, claim, target, record, github, event)
    if (typeof approved === 'string') return { kind: 'refuse', reason: approved, target }
    return { kind: 'start', approved, ...(found ? { record: found } : {}) }
  }
  const why = await needOf(github, facts, fork, octokit, repository)
  if (!why) return { kind: 'start' }
  const given = await approvalOnThread(octokit, target, record, github, log)
  if (typeof given === 'string') return { kind: 'refuse', reason: given, target }
  const withRecord = found ? { record: found } : {}
  return given
    ? { kind: 'start', approved: given, ...withRecord }
    : { kind: 'wait', target, why, fork, ...withRecord }
}

/**
 * An event with nothing an approval could be pinned to: `forks` starts it when it has no
 * fork's change and no words from below `commenter_permission`; `always` when its sender has
 * `approver_permission` (a push, a dispatch by a maintainer). Anything else is refused,
 * naming `approval`: it never starts with an info line.
 */
async function unpinned(
  github: GitHubSettings,
  facts: ApprovalEvent,
  octokit: Octokit,
  repository: Repository,
  eventName: string,
): Promise<Gate> {
  const event = `the ${eventName || 'unknown'} event`
  if (github.approval === 'always') {
    const sender = await admitAuthor(octokit, repository, facts.sender, {
      commenterPermission: github.approverPermission,
      allowedBots: [],
    })
    if (sender.admitted && facts.subject.kind === 'none') return { kind: 'start' }
    const why = facts.subject.kind === 'unpinnable' ? facts.subject.why : sender.reason
    return {
      kind: 'refuse',
      reason: `approval: always needs a maintainer's approval of every run, and ${event} has nothing one could be pinned to (${why}); use approval: forks, or start it from an event a maintainer makes`,
    }
  }
  const why = await needOf(github, facts, facts.fork, octokit, repository)
  if (!why) return { kind: 'start' }
  const reason =
    facts.subject.kind === 'unpinnable' ? facts.subject.why : `${event} has nothing to pin it to`
  return {
    kind: 'refuse',
    reason: `${why.replace(/`/g, '')}, and ${reason}, so no approval can admit it`,
  }
}

/**
 * Why the run needs an approval, or undefined: by `approval`, whether the change is a fork's,
 * and whether the words that started it come from someone below `commenter_permission`
 * (every event that carries a person's words, checked alike). With `always`, an item's author
 * who has `approver_permission` needs no one else's approval (they could not give their own).
 */
async function needOf(
  github: GitHubSettings,
  facts: ApprovalEvent,
  fork: boolean,
  octokit: Octokit,
  repository: Repository,
): Promise<string | undefined> {
  if (github.approval === 'always' && facts.subject.kind === 'item' && facts.words) {
    const author = await admitAuthor(octokit, repository, facts.words.author, {
      commenterPermission: github.approverPermission,
      allowedBots: [],
    })
    if (author.admitted) return undefined
  }
  const wordsBelow =
    github.approval === 'forks' && !fork && facts.words
      ? !(await admitAuthor(octokit, repository, facts.words.author, github)).admitted
      : false
  return approvalNeeded(github.approval, {
    fork,
    ...(wordsBelow && facts.words ? { wordsBelow: facts.words.kind } : {}),
  })
}

/** The item the key's step waited for on an issue, from its record; why there is none. */
function waitedItem(found: FoundRecord | undefined, thread: number): PinnableSubject | string {
  const item = found?.marker?.item
  if (!item) return `no step of this workflow waits for an approval on issue #${thread}`
  const label =
    item.kind === 'issue' ? `issue #${thread}` : `the comment ${item.id} on issue #${thread}`
  return { kind: 'item', item: { thread, kind: item.kind, id: item.id, label } }
}

/** The key's comment on the thread, as the approval reads it, or undefined; a string when unreadable. */
async function findRecord(
  octokit: Octokit,
  target: Repository & { readonly number: number },
  key: string,
  log: Log,
): Promise<FoundRecord | undefined | string> {
  try {
    return await new ApprovalComment(octokit, target, key, log).find()
  } catch (error) {
    return `the waiting comment could not be read (${reasonOf(error)})`
  }
}

/**
 * The event's own `/approve` comment, judged: it names the pin (an item's digest in full), was
 * made after the key's record was last written, still stands as it was made, and its author
 * has `approver_permission`. The approved thing or why it does not count.
 */
async function decideClaim(
  octokit: Octokit,
  claim: ApprovalClaim,
  target: ApprovalTarget,
  record: WaitingRecord | undefined,
  github: GitHubSettings,
  event: EventPayload | undefined,
): Promise<Approved | string> {
  const verdict = await judge(octokit, claim, target, github)
  if (!verdict.counts) return verdict.reason
  const late =
    target.pin.kind === 'commit'
      ? approvalAfterWait(claim, target.pin.sha, record)
      : !record || record.pin !== pinValue(target.pin)
        ? `no step waits for an approval of ${target.pin.item} as it reads now`
        : madeAfterRecord(claim.madeAt, record, target.pin.item)
  if (late) return late
  const gone = await commentStands(octokit, target, {
    id: event?.comment?.id,
    body: event?.comment?.body ?? '',
  })
  if (gone) return gone
  const { login, via, sha } = claim
  return { target, login, via, sha, reason: verdict.reason }
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
