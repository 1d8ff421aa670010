import { createHash } from 'node:crypto'
import type { Log } from '../log.ts'
import { approveLine, pinValue, short } from '../model/approval.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { isTerminal } from '../model/states.ts'
import { escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import { COMMENT_OUTLAST_MS, COMMENT_RECHECK_PAUSES_MS } from '../timing.ts'
import type { ApprovalTarget } from './approvals-given.ts'
import type { Repository } from './context.ts'
import { reasonOf, type Octokit } from './octokit.ts'
import { OwnComments, type ListedComment } from './own-comments.ts'
import { parseMarker } from './run-marker.ts'
import { parseSetMarker } from './set-comment.ts'

/**
 * The approval's part of the key's one comment on the thread: while a run waits, who may approve
 * and the exact line to comment; once an approval starts a run, who approved what. It heads the
 * comment, above the run's or the set's report, which every step of the key keeps as it writes
 * (keyed-comment.ts), so a key has one comment whichever step wrote it last. Its marker records
 * the head it waits on and a digest of the prompt that waited, so that the approving step starts
 * the run with that prompt or with none.
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
/** The approval's marker where it is trusted in a comment of 1.3.0 on: the comment's first line. */
const LEADING_MARKER = /^<!-- cloud-agent-approval: (\{[^<>]*\}) -->/
/** Where the run's or the set's report begins in the key's comment: its marker's line. */
const REPORT_START = /<!-- cloud-agent-(?:run|set): \{/

function renderMarker(marker: ApprovalMarker): string {
  const json = JSON.stringify(marker)
  return `<!-- cloud-agent-approval: ${json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e')} -->`
}

/** The approval's part of a comment: its marker, and its Markdown (the marker's line first). */
export interface ApprovalPart {
  readonly marker: ApprovalMarker
  readonly section: string
}

/**
 * A comment of the action's, split into the approval's part and the rest (the run's or the
 * set's report, which begins with its own marker's line; empty when there is none). The part
 * is read only where the action alone writes it: at the head of the comment, or as the whole of
 * an approval comment of 1.2 (its marker last, no report in it), which is read as
 * if written now. A marker anywhere else (in a report, say) is never an approval's.
 */
export function splitApproval(body: string): { approval?: ApprovalPart; rest: string } {
  const leading = LEADING_MARKER.exec(body)
  if (leading) {
    const marker = markerFrom(leading[1])
    if (!marker) return { rest: body }
    const after = leading[0].length
    const start = body.slice(after).search(REPORT_START)
    const end = start < 0 ? body.length : after + start
    const section = body.slice(0, end).trimEnd()
    const joined = section.endsWith(BELOW_THE_WAIT)
    return {
      approval: {
        marker,
        section: joined ? section.slice(0, -BELOW_THE_WAIT.length).trimEnd() : section,
      },
      rest: body.slice(end),
    }
  }
  const alone = MARKER.exec(body)
  if (!alone || REPORT_START.test(body)) return { rest: body }
  const marker = markerFrom(alone[1])
  if (!marker) return { rest: body }
  const text = `${body.slice(0, alone.index)}${body.slice(alone.index + alone[0].length)}`
  return { approval: { marker, section: `${renderMarker(marker)}\n${text.trim()}` }, rest: '' }
}

/**
 * A comment with the approval's part (when there is one) at its head, above `rest`. Below a
 * wait, a rule and a line say that the report is the key's last run or set, not the waiting
 * one's.
 */
export function joinApproval(section: string | undefined, rest: string): string {
  if (section === undefined) return rest
  if (rest === '') return section
  const waiting = markerFrom(LEADING_MARKER.exec(section)?.[1])?.approved === false
  return waiting ? `${section}\n\n${BELOW_THE_WAIT}\n\n${rest}` : `${section}\n\n${rest}`
}

/** What parts a wait from the report below it: the key's last run or set, not the waiting one. */
const BELOW_THE_WAIT = "---\n\n<sub>This key's latest run or set:</sub>"

/** The approval's marker in a comment of the action's (see `splitApproval`); else undefined. */
export function parseApprovalMarker(body: string): ApprovalMarker | undefined {
  return splitApproval(body).approval?.marker
}

function markerFrom(json: string | undefined): ApprovalMarker | undefined {
  if (!json) return undefined
  try {
    const parsed = JSON.parse(json) as Partial<Record<keyof ApprovalMarker, unknown>>
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

/** What the approval's part says while the run waits. */
export interface WaitingWords {
  readonly key: string
  readonly target: ApprovalTarget
  /** Why the run needs an approval (our own Markdown). */
  readonly why: string
  /** The change comes from a fork: a review's own workflow run there has no key. */
  readonly fork: boolean
  readonly approverPermission: string
  readonly prompt: string
  readonly workflowRun: string | undefined
}

/** The approval's part while the run waits: why, who may approve, the line to comment, what voids it. */
export function renderWaiting(words: WaitingWords): string {
  const { pin } = words.target
  const { icon } = OUTCOME_RECORDS.awaiting_approval
  const what = pin.kind === 'commit' ? `commit \`${short(pin.sha)}\`` : escapeMarkdown(pin.item)
  const how =
    pin.kind === 'commit'
      ? `${reviewWords(words.fork)}\n\nAn approval counts for this commit and one run only: a newer push, or another run, needs a new approval. Bots, the pull request's author and edited comments never approve.`
      : `An approval counts for ${escapeMarkdown(pin.item)} as it reads now, and for one run only: an edit of it needs a new approval. If the workflow's prompt quotes the comment, re-run the waiting job after approving. Bots, its author and edited comments never approve.`
  return [
    renderMarker(markerOf(words.key, words.target, words.prompt, false)),
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
  ].join('\n')
}

/**
 * What an approving review does: it counts, but starts the run only from a workflow run that
 * has the key. A fork's pull request's review never has it; another's has it where the workflow
 * runs on `pull_request_review`. Else the waiting job is re-run.
 */
function reviewWords(fork: boolean): string {
  return fork
    ? "Approving the pull request in a review of this commit counts too, but starts nothing by itself (a review's workflow run on a fork's pull request has no key): after the review, re-run this waiting job."
    : 'Approving the pull request in a review of this commit counts too; after the review, re-run this waiting job, unless the workflow also runs on `pull_request_review`, whose run then starts it.'
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

/** The approval's part once an approval started the run: who approved what, above the run. */
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
      ? 'for one run, which works on that commit; a newer push, or another run, needs a new approval.'
      : 'for one run; another run needs a new approval.'
  return [
    renderMarker(markerOf(words.key, words.target, words.prompt, true)),
    `🔓 **Approved**: **${escapeMarkdown(words.login)}** approved ${what} in a ${words.via}, ${works}`,
    '',
    footer(words.key, words.workflowRun),
  ].join('\n')
}

function footer(key: string, workflowRun: string | undefined): string {
  const link = safeHttpUrl(workflowRun)
  const parts = [`key ${escapeMarkdown(key)}`, ...(link ? [`[workflow run](${link})`] : [])]
  return `<sub>${parts.join(' · ')}</sub>`
}

/**
 * The key's comment on the thread, as the approval reads it: the comment the approval is written
 * in, the approval it records, and when the key's comments were last written.
 */
export interface FoundRecord {
  /** The key's comment: the oldest of the action's with the key, whatever it shows. */
  readonly id: number
  /** The approval recorded (none while the key's comment shows only runs or sets). */
  readonly marker?: ApprovalMarker
  /**
   * When a comment of the key's was last written, by any step of the key (ISO 8601, GitHub's
   * `updated_at`): an approval counts only when made after it.
   */
  readonly writtenAt?: string
}

/**
 * The approval's part of the key's one comment on the pull request or issue, in a comment by
 * the action's own identity only (anyone can type a marker). The run's or the set's report in
 * the comment is kept as it is. A GitHub failure to write it warns and says so: a waiting step
 * passes all the same, an approved one starts nothing (its record is what keeps one approval to
 * one run).
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

  /**
   * The key's comment, the approval it records and when the key's comments were last written; or
   * undefined when the key has none. Where an earlier version left the key two comments (its
   * approval's and its run's), the oldest is the key's, the approval is read from either, and
   * the later write of the two counts.
   */
  async find(): Promise<FoundRecord | undefined> {
    const keyed = (await this.#comments.list())
      .filter((comment) => keyOf(comment.body ?? '') === this.#key)
      .sort((a, b) => a.id - b.id)
    const [oldest] = keyed
    if (!oldest) return undefined
    const marker = keyed
      .map((comment) => parseApprovalMarker(comment.body ?? ''))
      .find((found) => found?.key === this.#key)
    const writtenAt = latest(keyed)
    return { id: oldest.id, ...(marker ? { marker } : {}), ...(writtenAt ? { writtenAt } : {}) }
  }

  /**
   * Writes `section` as the approval's part of the key's comment (read again first, so that a
   * run's report written since stays as it is), or as a new comment; `after` ends a warning. A
   * waiting part that already says it is left alone: rewriting it would void the approvals made
   * since. An approval's record is always written: its time is what admits one run.
   */
  async write(
    section: string,
    after: string,
    known?: FoundRecord,
    mode: 'waiting' | 'approved' = 'waiting',
  ): Promise<boolean> {
    try {
      const found = known ?? (await this.find())
      const always = mode === 'approved'
      if (found && (await this.#writeInto(found.id, section, { always, shared: false }))) {
        return true
      }
      await this.#keepOldest(await this.#comments.create(section), section)
      return true
    } catch (error) {
      this.#log.warning(
        `GitHub: could not write the approval in the comment on ${this.#comments.where()} (${reasonOf(error)}). ${after}`,
      )
      return false
    }
  }

  /**
   * Another step of the key (a run's) made its comment at the same moment as `created`: the key
   * keeps the oldest, so the approval's part goes into it, above its report, and `created` away.
   */
  async #keepOldest(created: number, section: string): Promise<void> {
    const oldest = await this.find()
    if (!oldest || oldest.id === created) return
    if (await this.#writeInto(oldest.id, section, { always: true, shared: true })) {
      await this.#comments.delete(created)
    }
  }

  /**
   * Writes `section` at the head of the key's comment `id`, above its report as it reads now
   * (`always`: even when it already says it; else such a comment is left alone). False when the
   * comment is gone, or not the action's, before anything was written.
   *
   * GitHub has no compare-and-swap, and every step of the key writes back the approval's part it
   * read. Where another step may write the comment at the same moment (`shared`: it made its
   * comment at the same moment as this one; or the report shows a run or a set still going), a
   * write of its made from a read taken before this one landed puts the old part back. So the
   * write is read back, and made again (a few times at most) when it was put back, until that
   * step can no longer do so: its writes go one at a time, each from a read after the last
   * landed, so once one of them has landed keeping this part (the comment is no longer this
   * write while it shows the part), every later one reads after it; and once the report shows
   * nothing going, its step has written its end. Never a count of looks, which a step short of
   * CPU outlasts: a bound within the comment's settle time (COMMENT_OUTLAST_MS from each write).
   */
  async #writeInto(
    id: number,
    section: string,
    { always, shared }: { always: boolean; shared: boolean },
  ): Promise<boolean> {
    let lookUntil = 0
    let current = await this.#comments.read(id)
    let writes = 0
    let written: string | undefined
    for (let looks = 0; ; looks += 1) {
      if (!current || current.user?.login !== current.me) return writes > 0
      const { approval, rest } = splitApproval(current.body ?? '')
      const shows = approval?.section === section
      if (writes === 0 && shows && !always) return true
      if (!shows || writes === 0) {
        if (writes >= MAX_WRITES) return true
        written = joinApproval(section, rest)
        await this.#comments.update(id, written)
        writes += 1
        lookUntil = Date.now() + COMMENT_OUTLAST_MS
        if (!(shared || stillGoing(rest))) return true
      } else if (current.body !== written || !stillGoing(rest)) {
        return true
      }
      const pause = COMMENT_RECHECK_PAUSES_MS[looks] ?? COMMENT_RECHECK_PAUSES_MS[1]
      if (Date.now() + pause > lookUntil) return true
      await new Promise((resolve) => setTimeout(resolve, pause))
      current = await this.#comments.read(id)
    }
  }
}

/** At most this many writes of the approval's part, in one write of it. */
const MAX_WRITES = 3

/** Whether a report shows a run or a set still going: its step may write the comment any moment. */
function stillGoing(report: string): boolean {
  const run = parseMarker(report)
  if (run) return run.runs.some((record) => !record.outcome && !isTerminal(record.state))
  const set = parseSetMarker(report)
  return set !== undefined && set.sets[0] !== undefined && set.sets[0].outcome === undefined
}

/** The key an own comment is kept for: its approval's, its run's (never a reply's) or its set's. */
function keyOf(body: string): string | undefined {
  const approval = parseApprovalMarker(body)
  if (approval) return approval.key
  const run = parseMarker(body)
  if (run) return run.reply ? undefined : run.key
  return parseSetMarker(body)?.key
}

/** The latest `updated_at` of the comments (ISO 8601), or undefined when none says. */
function latest(comments: readonly ListedComment[]): string | undefined {
  let found: { at: number; iso: string } | undefined
  for (const { updated_at: iso } of comments) {
    const at = Date.parse(iso ?? '')
    if (iso && Number.isFinite(at) && (!found || at > found.at)) found = { at, iso }
  }
  return found?.iso
}
