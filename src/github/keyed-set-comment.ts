/** A set's comment on the thread, kept for its key: the set's table, with the key's history. */
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { safeHttpUrl } from '../text/markdown.ts'
import { mergeSets, type RunEntry, type SetEntry } from '../model/key-history.ts'
import {
  KeyedComment,
  keyHistoryOf,
  ownBody,
  reportOf,
  type CommentOptions,
} from './keyed-comment.ts'
import type { Octokit } from './octokit.ts'
import type { ReadComment } from './own-comments.ts'
import {
  composeSetComment,
  parseSetMarker,
  setBodyOf,
  type SetMarker,
  type SetShown,
} from './set-comment.ts'
import type { Thread } from './thread.ts'

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
      return composeSetComment(this.#marker(sets, marker.runs), body)
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
   * One write of the chosen comment, outside the queue of `show`: `rewrite` gets its report
   * (without an approval's part, which stays at its head) when it is the action's own, and
   * answers the report's new text, or undefined to leave it.
   */
  async #rewriteChosen(rewrite: (own: string) => string | undefined): Promise<void> {
    const commentId = this.#comment.commentId
    try {
      const current = commentId ? await this.#comment.comments.read(commentId) : undefined
      const parts = current && reportOf(current)
      const own = parts && ownBody(parts.report)
      const body = own === undefined ? undefined : rewrite(own)
      if (body !== undefined && parts) {
        await this.#comment.comments.update(commentId ?? 0, parts.write(body))
      }
    } catch (error) {
      this.#comment.warn('could not update the comment', error)
    }
  }

  /** Shows the set as it stands; a write already waiting takes the newest instead. */
  show(shown: SetShown): void {
    this.#comment.show(shown, JSON.stringify(shown), shown.outcome !== undefined)
  }

  /** Waits for the writes on their way, for a bounded time: GitHub can never hold the step. */
  async settled(maxMs?: number): Promise<void> {
    await this.#comment.settled(maxMs)
  }

  /** The comment with this set put in; undefined when a newer set heads it. */
  #rewrite(current: ReadComment, shown: SetShown): string | undefined {
    const own = ownBody(current)
    // The key's history, whichever kind wrote the comment last: a run's comment keeps its sets too.
    const earlier = own === undefined ? undefined : keyHistoryOf(own, this.#options.key)
    const sets = mergeSets(earlier?.sets ?? [], this.#record(shown))
    if (sets[0]?.set !== this.#options.set) return undefined
    return composeSetComment(this.#marker(sets, earlier?.runs), shown.body)
  }

  #record(shown: SetShown): SetEntry {
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

  #marker(sets: SetEntry[], runs?: readonly RunEntry[]): SetMarker {
    return {
      key: this.#options.key,
      step: this.#options.step,
      sets,
      ...(runs?.length ? { runs } : {}),
    }
  }
}
