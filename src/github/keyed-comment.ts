import type { RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { isTerminal } from '../model/states.ts'
import { safeHttpUrl } from '../text/markdown.ts'
import { COMMENT_RECHECK_PAUSES_MS, GITHUB_LIMITS } from '../timing.ts'
import {
  mergeRuns,
  parseMarker,
  partsOf,
  recordOf,
  renderComment,
  spliceComment,
  type CommentContext,
  type Marker,
} from './comment.ts'
import { reasonOf, type Octokit } from './octokit.ts'
import {
  OwnComments,
  retryableRefusal,
  type ListedComment,
  type ReadComment,
} from './own-comments.ts'
import {
  composeSetComment,
  keyedMarkerOf,
  mergeSets,
  newerOtherKind,
  parseSetMarker,
  setBodyOf,
  type KeyedMarker,
  type SetMarker,
  type SetRecord,
  type SetShown,
} from './set-comment.ts'
import type { Thread } from './thread.ts'
import { NewestWrites } from './writes.ts'

/**
 * What a comment shows, in one shape: one run's (`comment.ts`) or a set's (`set-comment.ts`).
 * The rest of keeping the comment is the same for both shapes: `KeyedComment`.
 */
interface CommentRendering<S> {
  /** The kind of step that writes it: a newer step of the other kind with the key takes it over. */
  readonly kind: KeyedMarker['kind']
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
}

/** What a comment of either shape is opened with. */
interface CommentOptions {
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
function ownBody(comment: ReadComment): string | undefined {
  return comment.user?.login === comment.me ? (comment.body ?? '') : undefined
}

/**
 * The step's comment on its pull request or issue, in either shape: the thread's oldest
 * comment for the key (a duplicate made at the same moment is deleted), kept up to date one
 * write at a time with the newest state, written again in fewer words when GitHub refuses,
 * left alone once a newer step has taken it over, and waited for a bounded time. A GitHub
 * failure never fails the step: it becomes a warning.
 */
class KeyedComment<S> {
  readonly comments: OwnComments
  readonly #options: KeyedCommentOptions
  readonly #rendering: CommentRendering<S>
  readonly #writes = new NewestWrites<S>((shown) => this.#writeOrRetry(shown))
  #commentId: number | undefined
  #lastShown: string | undefined
  /**
   * Whether another step made a comment for this key at the same moment as this one: until
   * its own state shows in the comment, nothing in the comment says that step writes it too.
   */
  #concurrentStep = false
  /** A newer step with the key took the comment over: this one writes no more. */
  #overtaken = false

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

  /** Shows `shown` unless `as` is what was shown last; a write already waiting takes it instead. */
  show(shown: S, as: string = JSON.stringify(shown)): void {
    if (as === this.#lastShown) return
    this.#lastShown = as
    this.#writes.push(shown)
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

  async #writeOrRetry(shown: S): Promise<void> {
    try {
      await this.#write(shown)
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
        if (!this.#writes.stopped) await this.#write(shorter ? shorter(shown) : shown)
      } catch (retryError) {
        const what = shorter ? ', even with a shorter text' : ''
        this.warn(`could not update the comment${what}`, retryError)
      }
    }
  }

  async #write(shown: S): Promise<void> {
    if (this.#overtaken) return
    if (this.#commentId === undefined && !this.#options.reply) {
      const [oldest] = await this.keyed()
      if (oldest) this.#choose(oldest.id)
    }
    if (this.#commentId === undefined) return await this.#create(shown)
    if (!(await this.#update(shown))) await this.#create(shown)
  }

  async #create(shown: S): Promise<void> {
    const created = await this.comments.create(this.#rendering.compose(shown))
    if (this.#options.reply) return this.#choose(created)
    // Another step with the same key may have made its comment at the same time: the oldest wins.
    const keyed = await this.keyed()
    const [oldest] = keyed
    if (keyed.length > 1) this.#concurrentStep = true
    if (!oldest || oldest.id === created) return this.#choose(created)
    this.#options.log.info(
      `Another step made a comment for "${this.#options.key}" at the same time; keeping the older one.`,
    )
    await this.comments.delete(created)
    this.#choose(oldest.id)
    await this.#update(shown)
  }

  /**
   * Rewrites the chosen comment with `shown` put in; false when the comment is gone. GitHub
   * has no compare-and-swap, so where the rendering reads its write back, a step with the same
   * key writing at the same moment is caught: the write is repeated (a few times at most) until
   * the comment shows `shown`, and read back again a little later while another step may write.
   */
  async #update(shown: S): Promise<boolean> {
    let current = await this.#readChosen()
    if (!current) return false
    let writes = 0
    let looks = 0
    for (;;) {
      const body = this.#overtakenBy(current, shown)
        ? undefined
        : this.#rendering.rewrite(current, shown)
      if (body === undefined) return this.#noteOvertaken()
      await this.comments.update(this.#commentId ?? 0, body)
      writes += 1
      const readBack = this.#rendering.readBack
      if (!readBack) return true
      for (;;) {
        current = await this.#readChosen()
        if (!current) return true
        const seen = readBack(current, shown, this.#concurrentStep)
        if (seen === 'rewrite') break
        if (seen === 'done' || looks >= COMMENT_RECHECK_PAUSES_MS.length || this.#writes.stopped)
          return true
        await new Promise((resolve) => setTimeout(resolve, COMMENT_RECHECK_PAUSES_MS[looks]))
        looks += 1
      }
      if (writes >= MAX_WRITES) return true
    }
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

export interface ThreadCommentOptions extends CommentOptions {
  /** The `name` input, when given: `continue_run` then continues only runs of that name. */
  name?: string
  /**
   * `keyed`: the thread's one comment for the key, which a later step updates.
   * `reply`: a new comment, the answer to a person's comment (`continue_run`).
   */
  mode: 'keyed' | 'reply'
}

interface RunShown {
  run: RunItem
  context: CommentContext
}

/**
 * One run's comment: the run's state, with the earlier runs of the key in a history; and the
 * run a previous workflow run left on the thread.
 */
export class ThreadComment {
  readonly #comment: KeyedComment<RunShown>
  readonly #options: ThreadCommentOptions
  readonly #now: () => number
  /** When this step first showed each run: orders the runs in the comment. */
  readonly #firstSeen = new Map<string, string>()
  /** The commit the step's run works on, recorded with the run (see `workOn`). */
  #head: string | undefined

  private constructor(octokit: Octokit, thread: Thread, options: ThreadCommentOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
    this.#comment = new KeyedComment(
      octokit,
      thread,
      { ...options, reply: options.mode === 'reply' },
      {
        kind: 'run',
        startedAt: ({ run }) => this.#startedAt(run),
        compose: ({ run, context }) =>
          renderComment(run, this.#marker([this.#record(run, context)]), context),
        rewrite: (current, shown) => this.#rewrite(current, shown),
        shorter: ({ run, context }) => ({ run, context: { ...context, short: true } }),
        readBack: (current, shown, concurrentStep) =>
          this.#readBack(current, shown, concurrentStep),
      },
    )
  }

  static open(octokit: Octokit, thread: Thread, options: ThreadCommentOptions): ThreadComment {
    return new ThreadComment(octokit, thread, options)
  }

  /**
   * The run of the newest trusted marker on the thread, if any; with a `name`,
   * only a run of that name. Newest means the latest run a comment shows.
   */
  async findRun(): Promise<string | undefined> {
    try {
      let found: { runId: string; at: number } | undefined
      for (const { comment, marker } of await this.#trustedMarkers()) {
        if (this.#options.name !== undefined && marker.name !== this.#options.name) continue
        const at = Date.parse(marker.runs[0]?.startedAt ?? comment.created_at)
        if (!found || at >= found.at) found = { runId: marker.runId, at }
      }
      return found?.runId
    } catch (error) {
      this.#comment.warn('could not read the thread for an earlier run', error)
      return undefined
    }
  }

  /** The commit the step's run works on: recorded with the run, for the next steer to compare. */
  workOn(head: string): void {
    this.#head = head
  }

  /**
   * The commit `runId` works on, as the thread's comment for this key last recorded it (a
   * steered run's is the steering step's); undefined when none records it.
   */
  async headOf(runId: string): Promise<string | undefined> {
    try {
      const records = (await this.#trustedMarkers())
        .filter(({ marker }) => marker.key === this.#options.key)
        .flatMap(({ marker }) => marker.runs.filter((record) => record.runId === runId))
      return records.find((record) => record.head !== undefined)?.head
    } catch (error) {
      this.#comment.warn('could not read the thread for the head a run works on', error)
      return undefined
    }
  }

  /** Shows the run's state in the step's comment, choosing or creating the comment the first time. */
  show(run: RunItem, context: Pick<CommentContext, 'notes' | 'answer' | 'outcome'> = {}): void {
    const full = { ...context, workflowRun: this.#options.workflowRun }
    if (!this.#firstSeen.has(run.run_id)) {
      this.#firstSeen.set(run.run_id, new Date(this.#now()).toISOString())
    }
    this.#comment.show({ run, context: full }, JSON.stringify(partsOf(run, [], full)))
  }

  /**
   * Waits for the comment updates still on their way, for a bounded time:
   * after it, the step goes on (with a warning) and nothing more is written.
   */
  async settled(maxMs?: number): Promise<void> {
    await this.#comment.settled(maxMs)
  }

  #rewrite(current: ReadComment, { run, context }: RunShown): string {
    const trusted = this.#trusted(current)
    const earlier = trusted?.key === this.#options.key ? trusted.runs : []
    const runs = mergeRuns(earlier, this.#record(run, context))
    // The post step knows neither the name nor whether the comment is a reply; the marker does.
    const marker = this.#marker(runs, trusted)
    // When a newer run (another step's) is the comment's subject now, this step only updates the history.
    return runs[0]?.runId === run.run_id || !trusted
      ? renderComment(run, marker, context)
      : spliceComment(current.body ?? '', marker)
  }

  #readBack(current: ReadComment, { run, context }: RunShown, concurrentStep: boolean) {
    const marker = this.#trusted(current)
    const shown = marker?.runs.find((r) => r.runId === run.run_id)
    const wanted = this.#record(run, context)
    if (shown?.state !== wanted.state || shown.outcome !== wanted.outcome) return 'rewrite'
    // Another step may be writing this comment too (it made a comment at the same time as
    // this one, its run heads it or is still going, or superseded ours and may not be shown
    // yet): a write of its that read the comment before ours landed may yet come.
    const shared =
      concurrentStep ||
      marker?.runs[0]?.runId !== run.run_id ||
      marker.runs.some((r) => r.runId !== run.run_id && !r.outcome && !isTerminal(r.state)) ||
      context.outcome?.ending.kind === 'superseded'
    return shared ? 'look' : 'done'
  }

  #trusted(comment: ReadComment): Marker | undefined {
    const own = ownBody(comment)
    return own === undefined ? undefined : parseMarker(own)
  }

  #startedAt(run: RunItem): string {
    return this.#firstSeen.get(run.run_id) ?? new Date(this.#now()).toISOString()
  }

  #record(run: RunItem, context: CommentContext) {
    const { workflowRun, outcome } = context
    return recordOf(run, {
      startedAt: this.#startedAt(run),
      workflowRun,
      outcome,
      head: this.#head,
    })
  }

  #marker(runs: Marker['runs'], earlier?: Marker): Marker {
    return {
      runId: runs[0]?.runId ?? '',
      step: this.#options.step,
      key: this.#options.key,
      name: this.#options.name ?? earlier?.name,
      reply: this.#options.mode === 'reply' || earlier?.reply || undefined,
      runs,
    }
  }

  /** The thread's markers written by the action's own identity, in thread order. */
  async #trustedMarkers(): Promise<Array<{ comment: ListedComment; marker: Marker }>> {
    return (await this.#comment.comments.list()).flatMap((comment) => {
      const marker = parseMarker(comment.body ?? '')
      return marker ? [{ comment, marker }] : []
    })
  }
}

export interface SetCommentOptions extends CommentOptions {
  /** The set's own tag. */
  set: string
}

/**
 * A set's comment: the set's table (at most one write per poll, the newest state), with the
 * earlier sets of the key in a collapsed history.
 */
export class SetComment {
  readonly #comment: KeyedComment<SetShown>
  readonly #options: SetCommentOptions
  readonly #startedAt: string

  constructor(octokit: Octokit, thread: Thread, options: SetCommentOptions) {
    this.#options = options
    this.#startedAt = new Date((options.now ?? Date.now)()).toISOString()
    this.#comment = new KeyedComment(
      octokit,
      thread,
      { ...options, reply: false },
      {
        kind: 'set',
        startedAt: () => this.#startedAt,
        compose: (shown) => composeSetComment(this.#marker([this.#record(shown)]), shown.body),
        rewrite: (current, shown) => this.#rewrite(current, shown),
      },
    )
  }

  /**
   * The post step's word on a set whose step stopped before it ended (a hard
   * kill): the headline says so, with `note`, above the table as last shown.
   * Nothing is written when a newer set heads the comment, or it is gone.
   */
  async markStopped(note: string): Promise<void> {
    await this.#rewriteChosen((own) => {
      const marker = parseSetMarker(own)
      const ours = marker?.sets[0]
      if (!marker || ours?.set !== this.#options.set || ours.outcome) return undefined
      const headline = `### ${OUTCOME_RECORDS.interrupted.icon} Cloud agent tasks: interrupted`
      const body = setBodyOf(own).replace(
        /^### ⏳ Cloud agent tasks: [^\n]*/,
        () => `${headline}\n\n> [!WARNING]\n> ${note}`,
      )
      const sets = [{ ...ours, outcome: 'interrupted' as const }, ...marker.sets.slice(1)]
      return composeSetComment(this.#marker(sets), body)
    })
  }

  /**
   * A reconcile pass's word on a detached set (wait: false) once its last run ended: the set's
   * end, as its step would have shown it had it waited. Only while the comment still shows the
   * set started; when a newer set heads the comment, its body stays, and the set's line in the
   * history shows the end. Nothing is written when the comment is gone or not the action's.
   */
  async showHandedOverEnd(shown: SetShown): Promise<void> {
    await this.#rewriteChosen((own) => {
      const marker = parseSetMarker(own)
      if (marker?.key !== this.#options.key) return undefined
      const at = marker.sets.findIndex((record) => record.set === this.#options.set)
      const ours = marker.sets[at]
      if (!ours || (ours.outcome !== undefined && ours.outcome !== 'started')) return undefined
      const { outcome, done, total } = shown
      const sets = marker.sets.map((record, index) =>
        index === at ? { ...record, outcome, done, total } : record,
      )
      const body = at === 0 ? shown.body : setBodyOf(own)
      return composeSetComment({ ...marker, sets }, body)
    })
  }

  /**
   * One write of the chosen comment, outside the queue of `show`: `rewrite` gets its text when
   * it is the action's own, and answers the new text, or undefined to leave it.
   */
  async #rewriteChosen(rewrite: (own: string) => string | undefined): Promise<void> {
    const commentId = this.#comment.commentId
    try {
      const current = commentId ? await this.#comment.comments.read(commentId) : undefined
      const own = current && ownBody(current)
      const body = own === undefined ? undefined : rewrite(own)
      if (body !== undefined) await this.#comment.comments.update(commentId ?? 0, body)
    } catch (error) {
      this.#comment.warn('could not update the comment', error)
    }
  }

  /** Shows the set as it stands; a write already waiting takes the newest instead. */
  show(shown: SetShown): void {
    this.#comment.show(shown)
  }

  /** Waits for the writes on their way, for a bounded time: GitHub can never hold the step. */
  async settled(maxMs?: number): Promise<void> {
    await this.#comment.settled(maxMs)
  }

  /** The comment with this set put in; undefined when a newer set heads it. */
  #rewrite(current: ReadComment, shown: SetShown): string | undefined {
    const own = ownBody(current)
    const trusted = own === undefined ? undefined : parseSetMarker(own)
    const earlier = trusted?.key === this.#options.key ? trusted.sets : []
    const sets = mergeSets(earlier, this.#record(shown))
    if (sets[0]?.set !== this.#options.set) return undefined
    return composeSetComment(this.#marker(sets), shown.body)
  }

  #record(shown: SetShown): SetRecord {
    return {
      set: this.#options.set,
      outcome: shown.outcome,
      done: shown.done,
      total: shown.total,
      workflowRun: safeHttpUrl(this.#options.workflowRun),
      startedAt: this.#startedAt,
      ...(shown.handedOff?.length ? { handedOff: shown.handedOff } : {}),
    }
  }

  #marker(sets: SetRecord[]): SetMarker {
    return { key: this.#options.key, step: this.#options.step, sets }
  }
}
