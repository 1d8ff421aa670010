import { createHash } from 'node:crypto'
import { ITEM_DIGEST_LENGTH, type WordsKind } from '../model/approval.ts'
import type { EventPayload } from '../world.ts'
import { eventThread, type EventAuthor } from './event.ts'

/**
 * What the approval gate reads of an event, whatever its name (v1.5: the gate holds on every
 * event): the thing an approval is pinned to, whether the change comes from a fork, and who
 * wrote the words that started the step. Pure: the payload in, facts out; GitHub is asked
 * later (github/approval.ts) what the payload cannot be trusted to say (the head now, a
 * permission).
 */
export interface ApprovalEvent {
  readonly subject: ApprovalSubject
  /** The head comes from another repository than this one, as the event delivered it. */
  readonly fork: boolean
  /** The author of the person's words that started the step (a comment, review, issue). */
  readonly words?: { readonly kind: WordsKind; readonly author: EventAuthor | undefined }
  /** Who made the event happen (the sender), for an event with no words and no head. */
  readonly sender: EventAuthor | undefined
}

/**
 * What an approval pins: a pull request's head; an item where there is no head (an issue, a
 * comment on an issue), pinned to its id and text; nothing an approval could be pinned to
 * (`unpinnable`: a discussion, a fork's workflow run naming no pull request), or no one's words
 * and no change at all (`none`: a schedule, a push, a dispatch).
 */
export type ApprovalSubject =
  | { readonly kind: 'pull'; readonly number: number }
  | { readonly kind: 'item'; readonly item: ApprovalItemRef }
  | { readonly kind: 'unpinnable'; readonly why: string }
  | { readonly kind: 'none' }

/** An item with no head, as the event delivered it: GitHub is asked for its text when deciding. */
export interface ApprovalItemRef {
  /** The issue whose thread holds the item and its approval comment. */
  readonly thread: number
  readonly kind: 'issue' | 'comment'
  /** The issue's number, or the comment's id. */
  readonly id: number
  /** The item in words: `issue #12`, `the comment 3456 on issue #12`. */
  readonly label: string
}

/** Events whose payload carries a person's words, and where: the author of each. */
const WORDS: Readonly<Record<string, WordsKind>> = {
  issue_comment: 'comment',
  pull_request_review: 'review',
  pull_request_review_comment: 'comment',
  discussion_comment: 'comment',
  issues: 'issue',
  discussion: 'discussion',
}

/** Reads the event for the gate. `repository` is `owner/repo`, the workflow's. */
export function readApprovalEvent(
  eventName: string,
  event: EventPayload | undefined,
  repository: string | undefined,
): ApprovalEvent {
  const fork = forkOf(eventName, event, repository)
  const wordsKind = WORDS[eventName]
  const words = wordsKind ? { kind: wordsKind, author: wordsAuthorOf(eventName, event) } : undefined
  return {
    subject: subjectOf(eventName, event, fork, repository),
    fork,
    ...(words ? { words } : {}),
    sender: authorOf(event?.sender),
  }
}

function subjectOf(
  eventName: string,
  event: EventPayload | undefined,
  fork: boolean,
  repository: string | undefined,
): ApprovalSubject {
  const thread = eventThread(event, repository)
  if (thread?.pullRequest) return { kind: 'pull', number: thread.number }
  if (eventName === 'issues' || eventName === 'issue_comment') {
    const issue = event?.issue?.number
    const id = eventName === 'issues' ? issue : event?.comment?.id
    if (isId(issue) && isId(id)) {
      const item: ApprovalItemRef =
        eventName === 'issues'
          ? { thread: issue, kind: 'issue', id, label: `issue #${issue}` }
          : { thread: issue, kind: 'comment', id, label: `the comment ${id} on issue #${issue}` }
      return { kind: 'item', item }
    }
    return { kind: 'unpinnable', why: `the ${eventName} event names no issue or comment` }
  }
  if (eventName === 'discussion' || eventName === 'discussion_comment') {
    return {
      kind: 'unpinnable',
      why: 'a discussion cannot carry the approval comment (GitHub writes discussion comments only through GraphQL)',
    }
  }
  if (fork) {
    return {
      kind: 'unpinnable',
      why: `the ${eventName} event comes from a fork and names no pull request whose head could be approved`,
    }
  }
  return { kind: 'none' }
}

/**
 * Whether the change comes from a fork, as the event says: a pull request's head in another
 * repository than its base, or a workflow_run's or check_suite's `head_repository` that is not
 * the workflow's repository (a fork's pull request CI).
 */
function forkOf(
  eventName: string,
  event: EventPayload | undefined,
  repository: string | undefined,
): boolean {
  const head = event?.pull_request?.head?.repo?.full_name
  const base = event?.pull_request?.base?.repo?.full_name
  if (head !== undefined && base !== undefined && head.toLowerCase() !== base.toLowerCase()) {
    return true
  }
  const suite = eventName === 'check_suite' ? event?.check_suite : event?.workflow_run
  if (eventName !== 'workflow_run' && eventName !== 'check_suite') return false
  const from = suite?.head_repository?.full_name
  const own = repository ?? event?.repository?.full_name
  // A run whose head repository is gone or unnamed is no less a fork's.
  return !from || !own || from.toLowerCase() !== own.toLowerCase()
}

/** The author of the words: a comment's or review's; an issue's or discussion's is its sender's. */
function wordsAuthorOf(
  eventName: string,
  event: EventPayload | undefined,
): EventAuthor | undefined {
  if (eventName === 'pull_request_review') return authorOf(event?.review?.user)
  if (eventName === 'issues' || eventName === 'discussion') {
    // An edit is the editor's words: the sender, whoever opened the item.
    return authorOf(event?.sender)
  }
  return authorOf(event?.comment?.user)
}

function authorOf(user: { login?: string; type?: string } | undefined): EventAuthor | undefined {
  const login = user?.login
  if (typeof login !== 'string' || login === '') return undefined
  return { login, isBot: user?.type === 'Bot' || login.endsWith('[bot]'), what: 'event' }
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

/**
 * An item's digest: its id and its text as GitHub answers them now. An approval names it in
 * full, so an edit of the text after the approval (even to a text made to share a prefix)
 * voids it.
 */
export function itemDigest(item: ApprovalItemRef, text: string): string {
  return createHash('sha256')
    .update(`${item.kind}:${item.id}\n${text}`)
    .digest('hex')
    .slice(0, ITEM_DIGEST_LENGTH)
}
