import type { Log } from '../log.ts'
import { OUTCOME_RECORDS, OUTCOMES, type Outcome } from '../model/outcome.ts'
import { safeHttpUrl } from '../text/markdown.ts'
import { GITHUB_LIMITS } from '../timing.ts'
import { MAX_COMMENT_CHARS, mergeNewestFirst, parseMarker } from './comment.ts'
import { reasonOf, type Octokit } from './octokit.ts'
import { OwnComments, retryableRefusal, type ListedComment } from './own-comments.ts'
import type { Thread } from './thread.ts'
import { NewestWrites } from './writes.ts'

/** One set as its comment lists it, so that a later set with the same key can keep it in the history. */
export interface SetRecord {
  /** The set's own tag (the `gh_set` metadata of its runs). */
  set: string
  /** How the set ended, once it has. */
  outcome?: Outcome
  done: number
  total: number
  workflowRun?: string
  /** When the step first showed the set (ISO 8601); orders the sets, newest first. */
  startedAt: string
}

/**
 * The hidden marker of a set's comment: one comment per thread and key, as
 * for one run, but a marker of its own, so that `continue_run` never takes a
 * set for a run to continue. Trusted only in a comment by the action's own identity.
 */
export interface SetMarker {
  key: string
  step: string
  /** Newest first; the first is the set the comment shows. */
  sets: SetRecord[]
}

/** The most sets a comment keeps in its history. */
const MAX_SETS = 20

/** Room the comment keeps for its marker and history; the table gets the rest. */
export const SET_COMMENT_TABLE_CHARS = MAX_COMMENT_CHARS - 16_000

const SET_MARKER = /<!-- cloud-agent-set: (\{[^<>]*\}) -->/

export function renderSetMarker(marker: SetMarker): string {
  const json = JSON.stringify({
    key: marker.key,
    step: marker.step,
    sets: marker.sets.map((record) => ({
      set: record.set,
      outcome: record.outcome,
      done: record.done,
      total: record.total,
      workflow_run: record.workflowRun,
      started_at: record.startedAt,
    })),
  })
  // `<` and `>` could end the HTML comment or open a forged one; JSON can spell them otherwise.
  return `<!-- cloud-agent-set: ${json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e')} -->`
}

/** The set marker in a comment's body, if it has a valid one. */
export function parseSetMarker(body: string): SetMarker | undefined {
  const match = SET_MARKER.exec(body)
  if (!match?.[1]) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(match[1])
  } catch {
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined
  const { key, step, sets } = parsed as Record<string, unknown>
  if (typeof key !== 'string' || typeof step !== 'string') return undefined
  return {
    key,
    step,
    sets: Array.isArray(sets) ? sets.flatMap((entry) => parseRecord(entry) ?? []) : [],
  }
}

function parseRecord(entry: unknown): SetRecord | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined
  const record = entry as Record<string, unknown>
  const { set, done, total, started_at: startedAt } = record
  if (typeof set !== 'string' || set.length > 100) return undefined
  if (!Number.isSafeInteger(done) || !Number.isSafeInteger(total)) return undefined
  if (typeof startedAt !== 'string' || Number.isNaN(Date.parse(startedAt))) return undefined
  const outcome = (OUTCOMES as readonly unknown[]).includes(record.outcome)
    ? (record.outcome as Outcome)
    : undefined
  const workflowRun =
    typeof record.workflow_run === 'string' && record.workflow_run.length <= 2048
      ? safeHttpUrl(record.workflow_run)
      : undefined
  return { set, outcome, done: done as number, total: total as number, workflowRun, startedAt }
}

/**
 * The key a comment of the action's is kept for, whether a run's or a set's: one key has one
 * comment on a thread, whichever kind of step wrote it last. `newestStart` is when the newest
 * step it shows started (ISO 8601). A reply to a person's comment is kept for no key.
 */
export interface KeyedMarker {
  kind: 'run' | 'set'
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
  return set && { kind: 'set', key: set.key, newestStart: set.sets[0]?.startedAt }
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

/** Pure: the sets with `record` put in (keeping when it was first shown), newest first. */
export function mergeSets(sets: readonly SetRecord[], record: SetRecord): SetRecord[] {
  return mergeNewestFirst(sets, record, (entry) => entry.set, MAX_SETS)
}

/** Pure: the whole comment: the marker, the set's Markdown, and the earlier sets, collapsed. */
export function composeSetComment(marker: SetMarker, body: string): string {
  const history = marker.sets.slice(1)
  const whole = `${renderSetMarker(marker)}\n${body}`
  if (history.length === 0) return whole
  return `${whole}\n\n<details><summary>Earlier sets (${history.length})</summary>\n\n${history.map(historyLine).join('\n')}\n\n</details>`
}

/** The set's Markdown in a comment this module wrote: without the marker's line and the history. */
function setBodyOf(comment: string): string {
  const body = comment.slice(comment.indexOf('\n') + 1)
  const history = body.lastIndexOf('\n\n<details><summary>Earlier sets (')
  return history >= 0 && body.endsWith('</details>') ? body.slice(0, history) : body
}

function historyLine(record: SetRecord): string {
  const outcome = record.outcome
    ? `${OUTCOME_RECORDS[record.outcome].icon} ${OUTCOME_RECORDS[record.outcome].short}`
    : '⏳ running'
  const parts = [`- ${outcome}`, `${record.done} of ${record.total} done`]
  const workflowRun = safeHttpUrl(record.workflowRun)
  if (workflowRun) parts.push(`[workflow run](${workflowRun})`)
  parts.push(`started ${record.startedAt.replace(/T(\d\d:\d\d)[\s\S]*/, ' $1 UTC')}`)
  return parts.join(' · ')
}

export interface SetCommentOptions {
  /** `<job>/<step>`, written into the marker. */
  step: string
  /** One comment per thread and key: the `name` input, else the workflow and job. */
  key: string
  /** The set's own tag. */
  set: string
  log: Log
  workflowRun?: string
  /** The comment the main step chose, for the post step. */
  commentId?: number
  /** Told the comment's ID once it is made or chosen, so that the post step can finish it. */
  onCommentChosen?: (commentId: number) => void
  now?: () => number
}

/** What the comment shows of the set now: its Markdown (without marker), and its record's figures. */
export interface SetShown {
  body: string
  outcome?: Outcome
  done: number
  total: number
}

/**
 * A set's comment on its pull request or issue: one per thread and key, kept
 * up to date (at most one write per poll, the newest state), with the earlier
 * sets of the key in a collapsed history. A GitHub failure never fails the
 * step: it becomes a warning.
 */
export class SetComment {
  readonly #comments: OwnComments
  readonly #options: SetCommentOptions
  readonly #startedAt: string
  readonly #writes = new NewestWrites<SetShown>((shown) => this.#writeOrRetry(shown))
  #commentId: number | undefined
  /** A newer set with the same key took the comment over: this one writes no more. */
  #overtaken = false

  constructor(octokit: Octokit, thread: Thread, options: SetCommentOptions) {
    this.#comments = new OwnComments(octokit, thread)
    this.#options = options
    this.#commentId = options.commentId
    this.#startedAt = new Date((options.now ?? Date.now)()).toISOString()
  }

  /**
   * The post step's word on a set whose step stopped before it ended (a hard
   * kill): the headline says so, with `note`, above the table as last shown.
   * Nothing is written when a newer set heads the comment, or it is gone.
   */
  async markStopped(note: string): Promise<void> {
    try {
      const current = this.#commentId ? await this.#comments.read(this.#commentId) : undefined
      if (!current || current.user?.login !== current.me) return
      const marker = parseSetMarker(current.body ?? '')
      const ours = marker?.sets[0]
      if (!marker || ours?.set !== this.#options.set || ours.outcome) return
      const shown = setBodyOf(current.body ?? '')
      const headline = `### ${OUTCOME_RECORDS.interrupted.icon} Cloud agent tasks: interrupted`
      const body = shown.replace(
        /^### ⏳ Cloud agent tasks: [^\n]*/,
        () => `${headline}\n\n> [!WARNING]\n> ${note}`,
      )
      const sets = [{ ...ours, outcome: 'interrupted' as const }, ...marker.sets.slice(1)]
      await this.#comments.update(this.#commentId ?? 0, composeSetComment(this.#marker(sets), body))
    } catch (error) {
      this.#warn(error)
    }
  }

  /**
   * A reconcile pass's word on a detached set (wait: false) once its last run ended: the set's
   * end, as its step would have shown it had it waited. Only while the comment still shows the
   * set started; when a newer set heads the comment, its body stays, and the set's line in the
   * history shows the end. Nothing is written when the comment is gone or not the action's.
   */
  async showHandedOverEnd(shown: SetShown): Promise<void> {
    try {
      const current = this.#commentId ? await this.#comments.read(this.#commentId) : undefined
      if (!current || current.user?.login !== current.me) return
      const marker = parseSetMarker(current.body ?? '')
      if (marker?.key !== this.#options.key) return
      const at = marker.sets.findIndex((record) => record.set === this.#options.set)
      const ours = marker.sets[at]
      if (!ours || (ours.outcome !== undefined && ours.outcome !== 'started')) return
      const { outcome, done, total } = shown
      const sets = marker.sets.map((record, index) =>
        index === at ? { ...record, outcome, done, total } : record,
      )
      const body = at === 0 ? shown.body : setBodyOf(current.body ?? '')
      await this.#comments.update(
        this.#commentId ?? 0,
        composeSetComment({ ...marker, sets }, body),
      )
    } catch (error) {
      this.#warn(error)
    }
  }

  /** Shows the set as it stands; a write already waiting takes the newest instead. */
  show(shown: SetShown): void {
    this.#writes.pushChanged(shown)
  }

  /** Waits for the writes on their way, for a bounded time: GitHub can never hold the step. */
  async settled(maxMs: number = GITHUB_LIMITS.settleMs): Promise<void> {
    await this.#writes.settle(maxMs, this.#options.log, `the comment on ${this.#comments.where()}`)
  }

  async #writeOrRetry(shown: SetShown): Promise<void> {
    try {
      await this.#write(shown)
    } catch (error) {
      const retryIn = retryableRefusal(error)
      if (retryIn === undefined || this.#writes.stopped) return this.#warn(error)
      // Refused for now (a secondary rate limit): once more, so the comment never stays behind.
      if (retryIn > 0) await new Promise((resolve) => setTimeout(resolve, retryIn))
      try {
        if (!this.#writes.stopped) await this.#write(shown)
      } catch (retryError) {
        this.#warn(retryError)
      }
    }
  }

  async #write(shown: SetShown): Promise<void> {
    if (this.#overtaken) return
    if (this.#commentId === undefined) {
      const [oldest] = await this.#keyed()
      if (oldest) this.#choose(oldest.id)
    }
    if (this.#commentId === undefined) return await this.#create(shown)
    const current = await this.#comments.read(this.#commentId)
    if (!current) {
      this.#commentId = undefined
      return await this.#create(shown)
    }
    const own = current.user?.login === current.me
    const trusted = own ? parseSetMarker(current.body ?? '') : undefined
    const earlier = trusted?.key === this.#options.key ? trusted.sets : []
    const sets = mergeSets(earlier, this.#record(shown))
    // A single run's step with the same key that started after this set took the comment over.
    const keyed = own ? keyedMarkerOf(current.body ?? '') : undefined
    if (sets[0]?.set !== this.#options.set || newerOtherKind(keyed, 'set', this.#startedAt)) {
      this.#overtaken = true
      this.#options.log.info(
        `A newer step with the key "${this.#options.key}" shows in the comment now; this set's outcome is in its job summary.`,
      )
      return
    }
    await this.#comments.update(this.#commentId, composeSetComment(this.#marker(sets), shown.body))
  }

  async #create(shown: SetShown): Promise<void> {
    const created = await this.#comments.create(
      composeSetComment(this.#marker([this.#record(shown)]), shown.body),
    )
    // Another step with the same key may have made its comment at the same time: the oldest wins.
    const [oldest] = await this.#keyed()
    if (!oldest || oldest.id === created) return this.#choose(created)
    this.#options.log.info(
      `Another step made a comment for "${this.#options.key}" at the same time; keeping the older one.`,
    )
    await this.#comments.delete(created)
    this.#choose(oldest.id)
    await this.#write(shown)
  }

  #choose(commentId: number): void {
    if (this.#commentId === commentId) return
    this.#commentId = commentId
    this.#options.onCommentChosen?.(commentId)
  }

  /** This key's comments (a set's or a run's) by the action's own identity, oldest first. */
  async #keyed(): Promise<ListedComment[]> {
    return (await this.#comments.list())
      .filter((comment) => keyedMarkerOf(comment.body ?? '')?.key === this.#options.key)
      .sort((a, b) => a.id - b.id)
  }

  #record(shown: SetShown): SetRecord {
    return {
      set: this.#options.set,
      outcome: shown.outcome,
      done: shown.done,
      total: shown.total,
      workflowRun: safeHttpUrl(this.#options.workflowRun),
      startedAt: this.#startedAt,
    }
  }

  #marker(sets: SetRecord[]): SetMarker {
    return { key: this.#options.key, step: this.#options.step, sets }
  }

  #warn(error: unknown): void {
    this.#options.log.warning(
      `GitHub: could not update the comment on ${this.#comments.where()} (${reasonOf(error)}). The runs are not affected.`,
    )
  }
}
