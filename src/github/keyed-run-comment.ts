/** One run's comment on the thread, kept for its key: the run's state, with the key's history. */
import type { RunItem } from '../api/types.ts'
import { isTerminal } from '../model/states.ts'
import { partsOf, renderComment, spliceComment, type CommentContext } from './comment.ts'
import { mergeRuns, type RunEntry, type SetEntry } from '../model/key-history.ts'
import { KeyedComment, keyHistoryOf, ownBody, type CommentOptions } from './keyed-comment.ts'
import type { Octokit } from './octokit.ts'
import type { ListedComment, ReadComment } from './own-comments.ts'
import { parseMarker, recordOf, type Marker } from './run-marker.ts'
import { parseSetMarker } from './set-comment.ts'
import type { Thread } from './thread.ts'

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
  /**
   * The step that showed this step's run before it (a run this step took over, steered or
   * adopted): `going` while its record of the run has no outcome, so that it may yet write its
   * end from what it read before this step's; `ended` once its end has shown.
   */
  #takenFrom: 'going' | 'ended' | undefined

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
        sharedEnd: ({ context }) =>
          context.outcome?.ending.kind === 'superseded' || this.#takenFrom === 'going',
        othersGoing: (current, others, shown) => this.#othersGoing(current, others, shown),
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
    this.#comment.show(
      { run, context: full },
      JSON.stringify(partsOf(run, { runs: [], sets: [] }, full)),
      context.outcome !== undefined,
    )
  }

  /**
   * Waits for the comment updates still on their way, for a bounded time:
   * after it, the step goes on (with a warning) and nothing more is written.
   */
  async settled(maxMs?: number): Promise<void> {
    await this.#comment.settled(maxMs)
  }

  /** The comment with the run put in; undefined when the run is another step's now (see below). */
  #rewrite(current: ReadComment, { run, context }: RunShown): string | undefined {
    const own = ownBody(current)
    const trusted = own === undefined ? undefined : parseMarker(own)
    // The key's history, whichever kind wrote the comment last: a set's comment keeps its runs too.
    const earlier = own === undefined ? undefined : keyHistoryOf(own, this.#options.key)
    // A run handed over (previous_run: steer) is the newer step's: once that step has shown it,
    // its record is the run's, and this step's end would put the run back to where it was
    // handed over, whichever wrote last. So this step writes no more.
    const shown = earlier?.runs.find((record) => record.runId === run.run_id)
    if (context.outcome?.ending.kind === 'handed-over' && shown && !this.#wrote(shown)) {
      return undefined
    }
    this.#noteTakenFrom(trusted, run.run_id)
    const runs = mergeRuns(earlier?.runs ?? [], this.#record(run, context))
    // The post step knows neither the name nor whether the comment is a reply; the marker does.
    const marker = this.#marker(runs, trusted, earlier?.sets)
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

  /** What `marker` says of the step that showed the run before this one, if another did. */
  #noteTakenFrom(marker: Marker | undefined, runId: string): void {
    const record = marker?.runs.find((r) => r.runId === runId)
    if (!record || this.#wrote(record) || this.#takenFrom === 'ended') return
    this.#takenFrom = record.outcome ? 'ended' : 'going'
  }

  /** Whether `record` is one this step wrote: the commit it works on and its workflow run. */
  #wrote(record: RunEntry): boolean {
    return record.head === this.#head && record.workflowRun === this.#options.workflowRun
  }

  /**
   * Whether a run of another step that made its comment at the same moment (its comment read
   * `others`) shows in `current` with no outcome yet; a set's, whether the newest set does. For
   * an end superseded by a newer run: whether that run has yet to show its outcome (or to show
   * at all), its step writing the comment again; for a run this step took over, whether the step
   * that showed it before has yet to show its end.
   */
  #othersGoing(current: ReadComment, others: readonly string[], shown: RunShown): boolean {
    const marker = this.#trusted(current)
    if (!marker) return false
    const { run, context } = shown
    this.#noteTakenFrom(marker, run.run_id)
    if (this.#takenFrom === 'going') return true
    const ending = context.outcome?.ending
    if (ending?.kind === 'superseded') {
      const newer = marker.runs.find((r) => r.runId === ending.newerRunId)
      if (!newer?.outcome) return true
    }
    return others.some((body) => {
      const run = parseMarker(body)
      if (run) return marker.runs.some((r) => r.runId === run.runId && !r.outcome)
      return parseSetMarker(body) !== undefined && marker.sets?.[0]?.outcome === undefined
    })
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
      ending: outcome?.ending,
      head: this.#head,
    })
  }

  #marker(runs: Marker['runs'], earlier?: Marker, sets?: readonly SetEntry[]): Marker {
    return {
      runId: runs[0]?.runId ?? '',
      step: this.#options.step,
      key: this.#options.key,
      name: this.#options.name ?? earlier?.name,
      reply: this.#options.mode === 'reply' || earlier?.reply || undefined,
      runs,
      ...(sets?.length ? { sets } : {}),
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
