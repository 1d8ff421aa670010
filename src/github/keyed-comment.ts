/**
 * The step's one comment per thread and key, whatever shape it shows (one run's, a set's): the
 * keeping of it, and the marker facts both shapes share.
 */
import type { Log } from '../log.ts'
import { joinApproval, parseApprovalMarker, splitApproval } from './approval-comment.ts'
import { COMMENT_OUTLAST_MS, COMMENT_RECHECK_PAUSES_MS, GITHUB_LIMITS } from '../timing.ts'
import { reasonOf, type Octokit } from './octokit.ts'
import {
  OwnComments,
  retryableRefusal,
  type ListedComment,
  type ReadComment,
} from './own-comments.ts'
import { parseMarker } from './run-marker.ts'
import { parseSetMarker } from './set-comment.ts'
import type { Thread } from './thread.ts'
import { NewestWrites } from './writes.ts'
import type { KeyHistory } from '../model/key-history.ts'

/**
 * The key a comment of the action's is kept for, whether a run's, a set's, or only an approval's
 * (a run that waits, or started with `comment: false`): one key has one comment on a thread,
 * whichever kind of step wrote it last. `newestStart` is when the newest step it shows started
 * (ISO 8601). A reply to a person's comment is kept for no key.
 */
export interface KeyedMarker {
  kind: 'run' | 'set' | 'approval'
  key: string
  newestStart?: string
}

export function keyedMarkerOf(body: string): KeyedMarker | undefined {
  const run = parseMarker(body)
  if (run) {
    if (run.reply || run.key === undefined) return undefined
    return { kind: 'run', key: run.key, newestStart: run.runs[0]?.startedAt }
  }
  const set = parseSetMarker(body)
  if (set) return { kind: 'set', key: set.key, newestStart: set.sets[0]?.startedAt }
  const approval = parseApprovalMarker(body)
  return approval && { kind: 'approval', key: approval.key }
}

/** Whether the comment shows a step of the other kind that started after `startedAt`. */
export function newerOtherKind(
  marker: KeyedMarker | undefined,
  kind: KeyedMarker['kind'],
  startedAt: string,
): boolean {
  if (marker === undefined || marker.kind === kind || marker.newestStart === undefined) return false
  return Date.parse(marker.newestStart) > Date.parse(startedAt)
}

/**
 * The key's history in a comment of the action's with the key, whichever kind wrote it: its
 * runs and its sets, each newest first (the one it shows first). None for another key's.
 */
export function keyHistoryOf(body: string, key: string): KeyHistory {
  const run = parseMarker(body)
  if (run) return run.key === key ? { runs: run.runs, sets: run.sets ?? [] } : NO_HISTORY
  const set = parseSetMarker(body)
  return set?.key === key ? { runs: set.runs ?? [], sets: set.sets } : NO_HISTORY
}

const NO_HISTORY: KeyHistory = { runs: [], sets: [] }

/**
 * What a comment shows, in one shape: one run's (`comment.ts`) or a set's (`set-comment.ts`).
 * The rest of keeping the comment is the same for both shapes: `KeyedComment`.
 */
interface CommentRendering<S> {
  /** The kind of step that writes it: a newer step of the other kind with the key takes it over. */
  readonly kind: 'run' | 'set'
  /** When the step first showed what `shown` shows (ISO 8601). */
  startedAt(shown: S): string
  /** A new comment's text. */
  compose(shown: S): string
  /** The comment's text with `shown` put in; undefined when a newer step of this kind heads it. */
  rewrite(current: ReadComment, shown: S): string | undefined
  /** `shown` in fewer words, for the write after GitHub refused one; absent: the same again. */
  shorter?(shown: S): S
  /**
   * A write read back: `rewrite` when the comment does not show `shown` (another step wrote
   * over it), `look` when it does but another step may yet write over it, else `done`.
   * Absent: a write is not read back.
   */
  readBack?(current: ReadComment, shown: S, concurrentStep: boolean): 'rewrite' | 'look' | 'done'
  /**
   * Whether another step writes the comment too and may yet put back what it read before `shown`,
   * an end, landed: the newer step whose run replaced this one's (superseded), or the step that
   * showed the run before this one took it over (steered) and has not shown its end yet.
   */
  sharedEnd?(shown: S): boolean
  /**
   * Whether the comment shows the run of another step with no outcome yet (that step writes the
   * comment again, its end at least): a step whose comment, made at the same moment as this
   * one's, read `others` (their bodies); or, for a `sharedEnd`, that other step. Asked only where
   * `readBack` is given.
   */
  othersGoing?(current: ReadComment, others: readonly string[], shown: S): boolean
}

/** What a comment of either shape is opened with. */
export interface CommentOptions {
  /** `<job>/<step>`, written into the marker. */
  step: string
  /**
   * One comment per thread and key (the `name` input, else the workflow and job), whichever
   * kind of step wrote it last.
   */
  key: string
  log: Log
  /** The workflow run of the step, linked from the comment. */
  workflowRun?: string
  /** The step's comment, when an earlier step (the main one, for the post step) chose it. */
  commentId?: number
  /** Told the comment's ID once it is made or chosen, so that the post step can finish it. */
  onCommentChosen?: (commentId: number) => void
  now?: () => number
}

interface KeyedCommentOptions extends CommentOptions {
  /** A new comment kept for no key: the answer to a person's comment. */
  reply: boolean
}

/** The text of a comment by the action's own identity: the only one whose marker is trusted. */
export function ownBody(comment: ReadComment): string | undefined {
  return comment.user?.login === comment.me ? (comment.body ?? '') : undefined
}

/**
 * A comment of the key's as a step of one shape reads it, and how its new text is written: the
 * approval's part (who may approve, or who approved) heads the comment of a key whose run waited
 * for one, and every write keeps it as it is, above the run's or the set's report; the shape
 * reads and writes only the report. Another's comment keeps nothing.
 */
export function reportOf(comment: ReadComment): {
  readonly report: ReadComment
  readonly write: (body: string) => string
} {
  const own = ownBody(comment)
  if (own === undefined) return { report: comment, write: (body) => body }
  const { approval, rest } = splitApproval(own)
  return {
    report: { ...comment, body: rest },
    write: (body) => joinApproval(approval?.section, body),
  }
}

/**
 * The step's comment on its pull request or issue, in either shape: the thread's oldest
 * comment for the key (a duplicate made at the same moment is deleted), kept up to date one
 * write at a time with the newest state, written again in fewer words when GitHub refuses,
 * left alone once a newer step has taken it over, and waited for a bounded time. A GitHub
 * failure never fails the step: it becomes a warning.
 */
export class KeyedComment<S> {
  readonly comments: OwnComments
  readonly #options: KeyedCommentOptions
  readonly #rendering: CommentRendering<S>
  readonly #writes = new NewestWrites<Shown<S>>(({ shown, final }) =>
    this.#writeOrRetry(shown, final),
  )
  #commentId: number | undefined
  #lastShown: string | undefined
  /**
   * Whether another step made a comment for this key at the same moment as this one: until
   * its own state shows in the comment, nothing in the comment says that step writes it too.
   */
  #concurrentStep = false
  /** A newer step with the key took the comment over: this one writes no more. */
  #overtaken = false
  /**
   * The comment this step made at the same moment as an older one of the key's, which it joined:
   * deleted once its state is written into the older one.
   */
  #joinedFrom: number | undefined
  /** No other comment of the key is left but the chosen one: a step that made one has joined. */
  #alone = false
  /** The other comments of the key (their bodies) this step met when it made its own. */
  #concurrentWith: string[] = []

  constructor(
    octokit: Octokit,
    thread: Thread,
    options: KeyedCommentOptions,
    rendering: CommentRendering<S>,
  ) {
    this.comments = new OwnComments(octokit, thread)
    this.#options = options
    this.#rendering = rendering
    this.#commentId = options.commentId
  }

  get commentId(): number | undefined {
    return this.#commentId
  }

  /**
   * Shows `shown` unless `as` is what was shown last; a write already waiting takes it instead.
   * `final`: `shown` is the end; a progress `shown` after it is dropped, never written over it.
   */
  show(shown: S, as: string = JSON.stringify(shown), final = false): void {
    if (as === this.#lastShown) return
    this.#lastShown = as
    this.#writes.push({ shown, final }, final)
  }

  /** Waits for the writes on their way, for a bounded time: after it, nothing more is written. */
  async settled(maxMs: number = GITHUB_LIMITS.settleMs): Promise<void> {
    await this.#writes.settle(maxMs, this.#options.log, `the comment on ${this.comments.where()}`)
  }

  warn(what: string, error: unknown): void {
    const [where, reason] = [this.comments.where(), reasonOf(error)]
    this.#options.log.warning(
      this.#rendering.kind === 'run'
        ? `GitHub: ${what} on ${where} (${reason}). The run is not affected.`
        : `GitHub: ${what} on ${where} (${reason}). The runs are not affected.`,
    )
  }

  /** This key's comments (a run's, not replies, or a set's) by the action's own identity, oldest first. */
  async keyed(): Promise<ListedComment[]> {
    return (await this.comments.list())
      .filter((comment) => keyedMarkerOf(comment.body ?? '')?.key === this.#options.key)
      .sort((a, b) => a.id - b.id)
  }

  async #writeOrRetry(shown: S, final: boolean): Promise<void> {
    try {
      await this.#write(shown, final)
    } catch (error) {
      const retryIn = retryableRefusal(error)
      if (retryIn === undefined || this.#writes.stopped) {
        return this.warn('could not update the comment', error)
      }
      // Refused (too long, or a secondary rate limit): once more, shorter where it can be, so
      // the comment never stays "in progress" on a finished run.
      if (retryIn > 0) await new Promise((resolve) => setTimeout(resolve, retryIn))
      const shorter = this.#rendering.shorter
      try {
        if (!this.#writes.stopped) await this.#write(shorter ? shorter(shown) : shown, final)
      } catch (retryError) {
        const what = shorter ? ', even with a shorter text' : ''
        this.warn(`could not update the comment${what}`, retryError)
      }
    }
  }

  async #write(shown: S, final: boolean): Promise<void> {
    if (this.#overtaken) return
    if (this.#commentId === undefined && !this.#options.reply) {
      const [oldest] = await this.keyed()
      if (oldest) this.#choose(oldest.id)
    }
    if (this.#commentId === undefined) return await this.#create(shown, final)
    if (!(await this.#update(shown, final))) await this.#create(shown, final)
  }

  async #create(shown: S, final: boolean): Promise<void> {
    const created = await this.comments.create(this.#rendering.compose(shown))
    if (this.#options.reply) return this.#choose(created)
    // Another step with the same key may have made its comment at the same time: the oldest wins.
    const keyed = await this.keyed()
    const [oldest] = keyed
    if (keyed.length > 1) this.#concurrentStep = true
    this.#concurrentWith = keyed.flatMap((c) => (c.id === created ? [] : [c.body ?? '']))
    if (!oldest || oldest.id === created) return this.#choose(created)
    this.#options.log.info(
      `Another step made a comment for "${this.#options.key}" at the same time; keeping the older one.`,
    )
    // Into the older one first, then this one away: until then the other step, listing the key's
    // comments, sees two and so looks until this step's write has landed in its comment.
    this.#joinedFrom = created
    this.#choose(oldest.id)
    const joined = await this.#update(shown, final).catch(async (error: unknown) => {
      await this.comments.delete(created)
      throw error
    })
    // The older one is gone (a person deleted it): this step's own stays.
    if (!joined) return this.#choose(created)
    await this.comments.delete(created)
  }

  /**
   * Rewrites the chosen comment with `shown` put in; false when the comment is gone. GitHub
   * has no compare-and-swap, so where the rendering reads its write back, a step with the same
   * key writing at the same moment is caught: the write is repeated (a few times at most) until
   * the comment shows `shown`, and read back again a little later while another step may write.
   * The step's end (`final`, its last write) in a comment another step made at the same moment,
   * or of a run a newer step's replaced, is looked at until that step can no longer put back what
   * it read before (`#outlasts`), for COMMENT_OUTLAST_MS at most after each write.
   */
  async #update(shown: S, final = false): Promise<boolean> {
    let current = await this.#readChosen()
    if (!current) return false
    let writes = 0
    let looks = 0
    for (;;) {
      const { report, write } = reportOf(current)
      const body = this.#overtakenBy(current, shown)
        ? undefined
        : this.#rendering.rewrite(report, shown)
      if (body === undefined) return this.#noteOvertaken()
      const written = write(body)
      await this.comments.update(this.#commentId ?? 0, written)
      writes += 1
      const lookUntil = Date.now() + COMMENT_OUTLAST_MS
      const readBack = this.#rendering.readBack
      if (!readBack) return true
      for (;;) {
        current = await this.#readChosen()
        if (!current) return true
        const seen = readBack(current, shown, this.#concurrentStep)
        if (seen === 'rewrite') break
        // Settled, or a newer value waits: its write reads the comment afresh and looks in turn.
        if (this.#writes.stopped || this.#writes.waiting) return true
        if (final && (this.#concurrentStep || this.#rendering.sharedEnd?.(shown) === true)) {
          if (await this.#outlasts(current, written, shown)) return true
          // Within the settle time, so that the step ends quietly: the other step wrote nothing.
          if (Date.now() >= lookUntil) return true
        } else if (seen === 'done' || looks >= COMMENT_RECHECK_PAUSES_MS.length) {
          return true
        }
        const pause =
          COMMENT_RECHECK_PAUSES_MS[Math.min(looks, COMMENT_RECHECK_PAUSES_MS.length - 1)]
        await new Promise((resolve) => setTimeout(resolve, pause))
        looks += 1
      }
      if (writes >= MAX_WRITES) return true
    }
  }

  /**
   * Whether the step's end, shown in `current`, can no longer be covered by a write of another
   * step: one that made a comment for the key at the same moment as this one, or one the end is
   * shared with (`sharedEnd`). That step writes what it last read, so
   * any write of its that read the comment before this step's end landed may yet put back what
   * was there; the writes of one step go one at a time, each reading after the last landed. So
   * the end is safe once (1) a step that made a comment at the same moment has joined: no other
   * comment of the key is left (it writes into the oldest, then deletes its own), and (2) either
   * the comment is no longer this step's write while it still shows the end (another write
   * landed that read it, and every later one reads after it) or no other run in it is still
   * going (its step has written its own end, from a read after this one's). Never a count of
   * looks: a bound within the settle time of the step (COMMENT_OUTLAST_MS) ends it.
   */
  async #outlasts(current: ReadComment, written: string, shown: S): Promise<boolean> {
    if (this.#concurrentStep && !this.#alone) {
      const others = (await this.keyed()).filter(
        (comment) => comment.id !== this.#commentId && comment.id !== this.#joinedFrom,
      )
      if (others.length > 0) return false
      this.#alone = true
    }
    if (ownBody(current) !== written) return true
    return !(this.#rendering.othersGoing?.(current, this.#concurrentWith, shown) ?? false)
  }

  /** Whether a step of the other kind with the key, started after this one, shows in the comment. */
  #overtakenBy(current: ReadComment, shown: S): boolean {
    const own = ownBody(current)
    if (own === undefined) return false
    const { kind } = this.#rendering
    return newerOtherKind(keyedMarkerOf(own), kind, this.#rendering.startedAt(shown))
  }

  #noteOvertaken(): true {
    if (!this.#overtaken) {
      this.#overtaken = true
      this.#options.log.info(
        `A newer step with the key "${this.#options.key}" shows in the comment now; this ${this.#rendering.kind}'s outcome is in its job summary.`,
      )
    }
    return true
  }

  async #readChosen(): Promise<ReadComment | undefined> {
    const read = await this.comments.read(this.#commentId ?? 0)
    if (!read) this.#commentId = undefined
    return read
  }

  #choose(commentId: number): void {
    if (this.#commentId === commentId) return
    this.#commentId = commentId
    this.#options.onCommentChosen?.(commentId)
  }
}

/** At most this many writes of one update. */
const MAX_WRITES = 3

/** A value to show, and whether it is the step's end (see `KeyedComment.show`). */
interface Shown<S> {
  shown: S
  final: boolean
}
