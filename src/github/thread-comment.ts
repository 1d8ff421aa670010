import type { RunItem } from '../api/types.ts'
import { isTerminal } from '../model/states.ts'
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
import { keyedMarkerOf, newerOtherKind } from './set-comment.ts'
import {
  OwnComments,
  retryableRefusal,
  type ListedComment,
  type ReadComment,
} from './own-comments.ts'
import { COMMENT_RECHECK_PAUSES_MS, GITHUB_LIMITS } from '../timing.ts'
import type { Thread } from './thread.ts'
import { NewestWrites } from './writes.ts'
import type { Log } from '../log.ts'

export interface ThreadCommentOptions {
  /** `<job>/<step>`, written into the marker. */
  step: string
  /** One comment per thread and key: the `name` input, else the workflow and job. */
  key: string
  /** The `name` input, when given: `continue_run` then continues only runs of that name. */
  name?: string
  /**
   * `keyed`: the thread's one comment for the key, which a later step updates.
   * `reply`: a new comment, the answer to a person's comment (`continue_run`).
   */
  mode: 'keyed' | 'reply'
  log: Log
  /** The step's comment, when an earlier step (the main one, for the post step) chose it. */
  commentId?: number
  /** Told the ID of the comment once it is made or chosen, so that the post step can finish it. */
  onCommentCreated?: (commentId: number) => void
  /** The workflow run of the step, linked from the comment. */
  workflowRun?: string
  now?: () => number
}

/**
 * The step's comment on its pull request or issue: one comment per key,
 * kept up to date, with the earlier runs in a history; and the run a previous
 * workflow run left there. A GitHub failure never fails the run's step: it
 * becomes a warning.
 */
export class ThreadComment {
  readonly #comments: OwnComments
  readonly #options: ThreadCommentOptions
  readonly #onCommentCreated: (commentId: number) => void
  readonly #now: () => number
  #commentId: number | undefined
  /** When this step first showed each run: orders the runs in the comment. */
  readonly #firstSeen = new Map<string, string>()
  /** Updates go out one at a time, in order, so the last state seen is the one shown. */
  readonly #writes = new NewestWrites<{ run: RunItem; context: CommentContext }>((shown) =>
    this.#writeOrRetryShort(shown),
  )
  #lastShown = ''
  /**
   * Whether another step made a comment for this key at the same moment as this one: until
   * its run shows in the comment, nothing in the comment says that step is writing it too.
   */
  #concurrentStep = false
  #overtakenNoted = false
  /** The commit the step's run works on, recorded with the run (see `workOn`). */
  #head: string | undefined

  private constructor(octokit: Octokit, thread: Thread, options: ThreadCommentOptions) {
    this.#comments = new OwnComments(octokit, thread)
    this.#options = options
    this.#commentId = options.commentId
    this.#onCommentCreated = options.onCommentCreated ?? (() => undefined)
    this.#now = options.now ?? Date.now
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
      this.#warn('could not read the thread for an earlier run', error)
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
      this.#warn('could not read the thread for the head a run works on', error)
      return undefined
    }
  }

  /** Shows the run's state in the step's comment, choosing or creating the comment the first time. */
  show(run: RunItem, context: Pick<CommentContext, 'notes' | 'answer' | 'outcome'> = {}): void {
    const full = { ...context, workflowRun: this.#options.workflowRun }
    const shown = JSON.stringify(partsOf(run, [], full))
    if (shown === this.#lastShown) return
    this.#lastShown = shown
    if (!this.#firstSeen.has(run.run_id)) {
      this.#firstSeen.set(run.run_id, new Date(this.#now()).toISOString())
    }
    this.#writes.push({ run, context: full })
  }

  /**
   * Waits for the comment updates still on their way, for a bounded time:
   * after it, the step goes on (with a warning) and nothing more is written.
   */
  async settled(maxMs: number = GITHUB_LIMITS.settleMs): Promise<void> {
    await this.#writes.settle(maxMs, this.#options.log, `the comment on ${this.#where()}`)
  }

  async #writeOrRetryShort({ run, context }: { run: RunItem; context: CommentContext }) {
    try {
      await this.#write(run, context)
    } catch (error) {
      const retryIn = retryableRefusal(error)
      if (retryIn === undefined || this.#writes.stopped) {
        this.#warn('could not update the comment', error)
        return
      }
      // Refused (too long, or a secondary rate limit): once more, shorter, so the
      // comment never stays "in progress" on a finished run.
      if (retryIn > 0) await new Promise((resolve) => setTimeout(resolve, retryIn))
      try {
        if (!this.#writes.stopped) await this.#write(run, { ...context, short: true })
      } catch (retryError) {
        this.#warn('could not update the comment, even with a shorter text', retryError)
      }
    }
  }

  async #write(run: RunItem, context: CommentContext): Promise<void> {
    if (this.#commentId === undefined && this.#options.mode === 'keyed') {
      const [oldest] = await this.#keyedComments()
      if (oldest) this.#choose(oldest.id)
    }
    if (this.#commentId === undefined) return await this.#create(run, context)
    if (!(await this.#update(run, context))) await this.#create(run, context)
  }

  async #create(run: RunItem, context: CommentContext): Promise<void> {
    const body = renderComment(run, this.#marker([this.#record(run, context)]), context)
    const created = await this.#comments.create(body)
    if (this.#options.mode === 'reply') return this.#choose(created)
    // Another step with the same key may have created its comment at the same time: the oldest wins.
    const keyed = await this.#keyedComments()
    const [oldest] = keyed
    if (keyed.length > 1) this.#concurrentStep = true
    if (!oldest || oldest.id === created) return this.#choose(created)
    this.#options.log.info(
      `Another step made a comment for "${this.#options.key}" at the same time; keeping the older one.`,
    )
    await this.#comments.delete(created)
    this.#choose(oldest.id)
    await this.#update(run, context)
  }

  /**
   * Rewrites the chosen comment with this run put in; false when the comment is
   * gone. GitHub has no compare-and-swap, so a step with the same key writing at
   * the same moment can put back this run's older state: the write is read back,
   * and repeated (a few times at most) until the comment shows this run as it is;
   * when another step's run heads the comment, read back again a little later.
   */
  async #update(run: RunItem, context: CommentContext): Promise<boolean> {
    let current = await this.#readChosen()
    if (!current) return false
    let writes = 0
    let looks = 0
    for (;;) {
      if (this.#overtakenBySet(current, run)) return true
      await this.#rewrite(current, run, context)
      writes += 1
      for (;;) {
        current = await this.#readChosen()
        if (!current) return true
        const marker = this.#trusted(current)
        const shown = marker?.runs.find((r) => r.runId === run.run_id)
        const wanted = this.#record(run, context)
        if (shown?.state !== wanted.state || shown.outcome !== wanted.outcome) break
        // Another step may be writing this comment too (it made a comment at the same time as
        // this one, its run heads it or is still going, or superseded ours and may not be shown
        // yet): a write of its that read the comment before ours landed may yet come. Look
        // again a little later.
        const shared =
          this.#concurrentStep ||
          marker?.runs[0]?.runId !== run.run_id ||
          marker.runs.some((r) => r.runId !== run.run_id && !r.outcome && !isTerminal(r.state)) ||
          context.outcome?.ending.kind === 'superseded'
        if (!shared || looks >= COMMENT_RECHECK_PAUSES_MS.length || this.#writes.stopped)
          return true
        await new Promise((resolve) => setTimeout(resolve, COMMENT_RECHECK_PAUSES_MS[looks]))
        looks += 1
      }
      if (writes >= MAX_WRITES) return true
    }
  }

  async #readChosen(): Promise<ReadComment | undefined> {
    const read = await this.#comments.read(this.#commentId ?? 0)
    if (!read) this.#commentId = undefined
    return read
  }

  /**
   * Whether a set's step with the same key, started after this step first showed the run, has
   * taken the comment over: it is the comment's subject now, and this step writes no more.
   */
  #overtakenBySet(comment: ReadComment, run: RunItem): boolean {
    if (comment.user?.login !== comment.me) return false
    const startedAt = this.#firstSeen.get(run.run_id) ?? new Date(this.#now()).toISOString()
    if (!newerOtherKind(keyedMarkerOf(comment.body ?? ''), 'run', startedAt)) return false
    if (!this.#overtakenNoted) {
      this.#overtakenNoted = true
      this.#options.log.info(
        `A newer step with the key "${this.#options.key}" shows in the comment now; this run's outcome is in its job summary.`,
      )
    }
    return true
  }

  #trusted(comment: ReadComment): Marker | undefined {
    return comment.user?.login === comment.me ? parseMarker(comment.body ?? '') : undefined
  }

  async #rewrite(current: ReadComment, run: RunItem, context: CommentContext): Promise<void> {
    const trusted = this.#trusted(current)
    const earlier = trusted?.key === this.#options.key ? trusted.runs : []
    const runs = mergeRuns(earlier, this.#record(run, context))
    // The post step knows neither the name nor whether the comment is a reply; the marker does.
    const marker = this.#marker(runs, trusted)
    // When a newer run (another step's) is the comment's subject now, this step only updates the history.
    const body =
      runs[0]?.runId === run.run_id || !trusted
        ? renderComment(run, marker, context)
        : spliceComment(current.body ?? '', marker)
    await this.#comments.update(this.#commentId ?? 0, body)
  }

  #choose(commentId: number): void {
    if (this.#commentId === commentId) return
    this.#commentId = commentId
    this.#onCommentCreated(commentId)
  }

  #record(run: RunItem, context: CommentContext) {
    const startedAt = this.#firstSeen.get(run.run_id) ?? new Date(this.#now()).toISOString()
    const { workflowRun, outcome } = context
    return recordOf(run, { startedAt, workflowRun, outcome, head: this.#head })
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

  /**
   * This key's comments (a run's, not replies, or a set's) by the action's own identity,
   * oldest first: one key has one comment, whichever kind of step wrote it.
   */
  async #keyedComments(): Promise<ListedComment[]> {
    return (await this.#comments.list())
      .filter((comment) => keyedMarkerOf(comment.body ?? '')?.key === this.#options.key)
      .sort((a, b) => a.id - b.id)
  }

  /** The thread's markers written by the action's own identity, in thread order. */
  async #trustedMarkers(): Promise<Array<{ comment: ListedComment; marker: Marker }>> {
    return (await this.#comments.list()).flatMap((comment) => {
      const marker = parseMarker(comment.body ?? '')
      return marker ? [{ comment, marker }] : []
    })
  }

  #warn(what: string, error: unknown): void {
    this.#options.log.warning(
      `GitHub: ${what} on ${this.#where()} (${reasonOf(error)}). The run is not affected.`,
    )
  }

  #where(): string {
    return this.#comments.where()
  }
}

/** At most this many writes of one update. */
const MAX_WRITES = 3
