import { createHash } from 'node:crypto'
import type { Log } from '../log.ts'
import { approveLine, pinValue, short } from '../model/approval.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import type { ApprovalTarget } from './approvals-given.ts'
import type { Repository } from './context.ts'
import { reasonOf, type Octokit } from './octokit.ts'
import { OwnComments } from './own-comments.ts'

/**
 * The thread's comment while a run waits for an approval (one per key, beside the run's own
 * comment, which comes once a run starts): who may approve, and the exact line to comment.
 * Its marker records the head it waits on and a digest of the prompt that waited, so that the
 * approving step starts the run with that prompt or with none.
 */
export interface ApprovalMarker {
  readonly key: string
  /** What it pins: the head commit's SHA, or an item's digest (`item` then says which). */
  readonly head: string
  /** The issue or comment it pins, where there is no head (v1.5). */
  readonly item?: { readonly kind: 'issue' | 'comment'; readonly id: number }
  /** The prompt's digest (`promptDigest`). */
  readonly prompt: string
  /** Whether an approval started the run. */
  readonly approved: boolean
}

const MARKER = /<!-- cloud-agent-approval: (\{[^<>]*\}) -->/

function renderMarker(marker: ApprovalMarker): string {
  const json = JSON.stringify(marker)
  return `<!-- cloud-agent-approval: ${json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e')} -->`
}

/** The marker of an approval comment; undefined for any other text. */
export function parseApprovalMarker(body: string): ApprovalMarker | undefined {
  const match = MARKER.exec(body)
  if (!match?.[1]) return undefined
  try {
    const parsed = JSON.parse(match[1]) as Partial<Record<keyof ApprovalMarker, unknown>>
    const { key, head, prompt, approved, item } = parsed
    if (typeof key !== 'string' || typeof head !== 'string' || typeof prompt !== 'string') {
      return undefined
    }
    const pinned = itemOf(item)
    return { key, head, prompt, approved: approved === true, ...(pinned ? { item: pinned } : {}) }
  } catch {
    return undefined
  }
}

function itemOf(value: unknown): ApprovalMarker['item'] {
  const { kind, id } = (value ?? {}) as { kind?: unknown; id?: unknown }
  if ((kind === 'issue' || kind === 'comment') && typeof id === 'number') return { kind, id }
  return undefined
}

/** A short digest of the prompt: the approving step's must be the waiting step's. */
export function promptDigest(prompt: string): string {
  return createHash('sha256').update(prompt).digest('hex').slice(0, 32)
}

/** What the waiting comment says. */
export interface WaitingWords {
  readonly key: string
  readonly target: ApprovalTarget
  /** Why the run needs an approval (our own Markdown). */
  readonly why: string
  readonly approverPermission: string
  readonly prompt: string
  readonly workflowRun: string | undefined
}

/** The waiting comment: why, who may approve, the line to comment, and what voids it. */
export function renderWaiting(words: WaitingWords): string {
  const { pin } = words.target
  const { icon } = OUTCOME_RECORDS.awaiting_approval
  const what = pin.kind === 'commit' ? `commit \`${short(pin.sha)}\`` : escapeMarkdown(pin.item)
  const how =
    pin.kind === 'commit'
      ? "or approve the pull request in a review of this commit (a review's own workflow run has no key on a fork's pull request: re-run the waiting job after it). An approval counts for this commit and one run only: a newer push, or another run, needs a new approval. Bots, the pull request's author and edited comments never approve."
      : `An approval counts for ${escapeMarkdown(pin.item)} as it reads now, and for one run only: an edit of it needs a new approval. If the workflow's prompt quotes the comment, re-run the waiting job after approving. Bots, its author and edited comments never approve.`
  return [
    `### ${icon} Waiting for approval: no run was started`,
    '',
    `The agent's run is paid with this repository's key, and ${words.why}: it starts only once someone with at least **${words.approverPermission}** permission on the repository approves ${what}.`,
    '',
    `To approve ${pin.kind === 'commit' ? 'this commit' : 'it'}, comment exactly:`,
    '',
    '```',
    approveLine(pinValue(pin)),
    '```',
    '',
    how,
    '',
    footer(words.key, words.workflowRun),
    renderMarker(markerOf(words.key, words.target, words.prompt, false)),
  ].join('\n')
}

function markerOf(
  key: string,
  target: ApprovalTarget,
  prompt: string,
  approved: boolean,
): ApprovalMarker {
  const item = target.item ? { item: target.item } : {}
  return { key, head: pinValue(target.pin), prompt, approved, ...item }
}

/** The comment once an approval started the run: who approved what. */
export function renderApproved(words: {
  key: string
  target: ApprovalTarget
  login: string
  via: 'review' | 'comment'
  prompt: string
  workflowRun: string | undefined
}): string {
  const { pin } = words.target
  const what = pin.kind === 'commit' ? `commit \`${short(pin.sha)}\`` : escapeMarkdown(pin.item)
  const works =
    pin.kind === 'commit'
      ? 'The run works on that commit; a newer push, or another run, needs a new approval.'
      : 'Another run needs a new approval.'
  return [
    `### ✅ Approved: the run starts`,
    '',
    `**${escapeMarkdown(words.login)}** approved ${what} in a ${words.via}. ${works}`,
    '',
    footer(words.key, words.workflowRun),
    renderMarker(markerOf(words.key, words.target, words.prompt, true)),
  ].join('\n')
}

function footer(key: string, workflowRun: string | undefined): string {
  const link = safeHttpUrl(workflowRun)
  const parts = [`key ${escapeMarkdown(key)}`, ...(link ? [`[workflow run](${link})`] : [])]
  return `<sub>${parts.join(' · ')}</sub>`
}

/** The key's approval comment on the thread: its id, marker, text and when it was last written. */
export interface FoundRecord {
  readonly id: number
  readonly marker: ApprovalMarker
  readonly writtenAt?: string
  readonly body: string
}

/**
 * The key's approval comment on the pull request or issue: by the action's own identity only (anyone
 * can type a marker). A GitHub failure to write it warns and says so: a
 * waiting step passes all the same, an approved one starts nothing (its record is what keeps
 * one approval to one run).
 */
export class ApprovalComment {
  readonly #comments: OwnComments
  readonly #key: string
  readonly #log: Log

  constructor(
    octokit: Octokit,
    thread: Repository & { readonly number: number },
    key: string,
    log: Log,
  ) {
    this.#comments = new OwnComments(octokit, {
      owner: thread.owner,
      repo: thread.repo,
      issueNumber: thread.number,
    })
    this.#key = key
    this.#log = log
  }

  /** The key's oldest approval comment, its marker and when it was last written; or undefined. */
  async find(): Promise<FoundRecord | undefined> {
    for (const comment of await this.#comments.list()) {
      const marker = parseApprovalMarker(comment.body ?? '')
      if (marker?.key === this.#key) {
        return { id: comment.id, marker, writtenAt: comment.updated_at, body: comment.body ?? '' }
      }
    }
    return undefined
  }

  /**
   * Writes `body` over the key's approval comment, or as a new one; `after` ends a warning. A
   * waiting comment that already says it is left alone: rewriting it would void the approvals
   * made since. An approval's record is always written: its time is what admits one run.
   */
  async write(
    body: string,
    after: string,
    known?: FoundRecord,
    mode: 'waiting' | 'approved' = 'waiting',
  ): Promise<boolean> {
    try {
      const found = known ?? (await this.find())
      if (mode === 'waiting' && found?.body === body) return true
      if (found) await this.#comments.update(found.id, body)
      else await this.#comments.create(body)
      return true
    } catch (error) {
      this.#log.warning(
        `GitHub: could not write the approval comment on ${this.#comments.where()} (${reasonOf(error)}). ${after}`,
      )
      return false
    }
  }
}
