/** A set's comment, its rendering: the set marker, the history of the key's sets, pure. */
import { OUTCOME_RECORDS, OUTCOMES, type Outcome } from '../model/outcome.ts'
import { isRunId } from '../api/answers.ts'
import { safeHttpUrl } from '../text/markdown.ts'
import { MAX_COMMENT_CHARS, mergeNewestFirst, parseMarker } from './comment.ts'

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
  /**
   * The runs its step handed to a person (BLOCKED, on_blocked fail or pass) and let go on: never
   * a reconcile pass's to sweep, whatever the job's conclusion.
   */
  handedOff?: readonly string[]
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

/** The most run IDs a set's record keeps of those handed to a person. */
const MAX_HANDED_OFF = 100

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
      ...(record.handedOff?.length
        ? { handed_off: record.handedOff.slice(0, MAX_HANDED_OFF) }
        : {}),
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
  const handedOff = Array.isArray(record.handed_off)
    ? record.handed_off.filter(isRunId).slice(0, MAX_HANDED_OFF)
    : []
  return {
    set,
    outcome,
    done: done as number,
    total: total as number,
    workflowRun,
    startedAt,
    ...(handedOff.length > 0 ? { handedOff } : {}),
  }
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
export function setBodyOf(comment: string): string {
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

/** What the comment shows of the set now: its Markdown (without marker), and its record's figures. */
export interface SetShown {
  body: string
  outcome?: Outcome
  done: number
  total: number
  /** The runs handed to a person (see SetRecord). */
  handedOff?: readonly string[]
}
