/**
 * A key's history, pure: the runs and the sets its steps have shown, as a marker keeps them and
 * as a comment shows the earlier ones, collapsed. One history whatever kind of step writes next
 * (a run's comment keeps the key's sets, a set's keeps its runs), and one for both forges: the
 * pull request's comment and the GitLab merge request's note.
 */
import { isRunId } from '../api/answers.ts'
import { OUTCOME_RECORDS, OUTCOMES, outcomeOfState, type Outcome } from './outcome.ts'
import { codeSpan, safeHttpUrl } from '../text/markdown.ts'

/** One run as a comment shows it; kept in the marker so that a later step can list it. */
export interface RunEntry {
  runId: string
  /** The last state seen. */
  state: string
  /** How the step ended, once it has (the `outcome` output's word). */
  outcome?: Outcome
  /** Superseded: the newer run that replaced it. */
  supersededBy?: string
  sessionLink?: string
  /** The workflow run that ran the step (on GitLab, the CI job). */
  workflowRun?: string
  /** When the step first saw the run (ISO 8601); orders the runs, newest first. */
  startedAt: string
  /**
   * The commit the run works on, as the step that last showed it saw it: a steered run's is
   * the newest step's, which the next steer compares against.
   */
  head?: string
}

/** One set as its comment lists it, so that a later step with the same key can keep it in the history. */
export interface SetEntry {
  /** The set's own tag (the `gh_set` metadata of its runs; on GitLab, its job). */
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

/** The runs and the sets of a key, each newest first. */
export interface KeyHistory {
  readonly runs: readonly RunEntry[]
  readonly sets: readonly SetEntry[]
}

/** The most runs a comment keeps; older ones drop off the history. */
export const MAX_RUNS = 20

/** The most sets a comment keeps in its history. */
const MAX_SETS = 20

/** The most run IDs a set's record keeps of those handed to a person. */
const MAX_HANDED_OFF = 100

const STATE = /^[A-Z_]{1,40}$/
const SHA = /^[0-9a-f]{7,64}$/i

/** Whether `text` looks like a commit's SHA. */
export function isSha(text: string): boolean {
  return SHA.test(text)
}

/** A marker's JSON made inert: `<` and `>` could end the HTML comment or open a forged one. */
export function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e')
}

/** The JSON object a marker (`pattern`, its JSON the first group) holds in `body`, if it is one. */
export function markerJson(body: string, pattern: RegExp): Record<string, unknown> | undefined {
  const match = pattern.exec(body)
  if (!match?.[1]) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(match[1])
  } catch {
    return undefined
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined
}

/** A run's record as a marker writes it. */
export function runJson(run: RunEntry): Record<string, unknown> {
  return {
    run_id: run.runId,
    state: run.state,
    outcome: run.outcome,
    superseded_by: run.supersededBy,
    session: run.sessionLink,
    workflow_run: run.workflowRun,
    started_at: run.startedAt,
    head: run.head,
  }
}

/** A set's record as a marker writes it. */
export function setJson(record: SetEntry): Record<string, unknown> {
  return {
    set: record.set,
    outcome: record.outcome,
    done: record.done,
    total: record.total,
    workflow_run: record.workflowRun,
    started_at: record.startedAt,
    ...(record.handedOff?.length ? { handed_off: record.handedOff.slice(0, MAX_HANDED_OFF) } : {}),
  }
}

/** The valid run records of a marker's list, at most MAX_RUNS; anything else, none. */
export function parseRuns(value: unknown): RunEntry[] {
  return Array.isArray(value)
    ? value.flatMap((entry: unknown) => parseRun(entry) ?? []).slice(0, MAX_RUNS)
    : []
}

/** The valid set records of a marker's list; anything else, none. */
export function parseSets(value: unknown): SetEntry[] {
  return Array.isArray(value) ? value.flatMap((entry: unknown) => parseSet(entry) ?? []) : []
}

function parseRun(entry: unknown): RunEntry | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined
  const record = entry as Record<string, unknown>
  const { run_id: runId, state, started_at: startedAt } = record
  if (!isRunId(runId)) return undefined
  if (typeof state !== 'string' || !STATE.test(state)) return undefined
  if (!isTime(startedAt)) return undefined
  return {
    runId,
    state,
    outcome: outcomeOf(record.outcome),
    supersededBy: isRunId(record.superseded_by) ? record.superseded_by : undefined,
    sessionLink: safeHttpUrl(shortText(record.session, 2048)),
    workflowRun: safeHttpUrl(shortText(record.workflow_run, 2048)),
    startedAt,
    ...(typeof record.head === 'string' && SHA.test(record.head) ? { head: record.head } : {}),
  }
}

function parseSet(entry: unknown): SetEntry | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined
  const record = entry as Record<string, unknown>
  const { set, done, total, started_at: startedAt } = record
  if (typeof set !== 'string' || set.length > 100) return undefined
  if (!Number.isSafeInteger(done) || !Number.isSafeInteger(total)) return undefined
  if (!isTime(startedAt)) return undefined
  const handedOff = Array.isArray(record.handed_off)
    ? record.handed_off.filter(isRunId).slice(0, MAX_HANDED_OFF)
    : []
  return {
    set,
    outcome: outcomeOf(record.outcome),
    done: done as number,
    total: total as number,
    workflowRun: safeHttpUrl(shortText(record.workflow_run, 2048)),
    startedAt,
    ...(handedOff.length > 0 ? { handedOff } : {}),
  }
}

function isTime(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value))
}

function outcomeOf(value: unknown): Outcome | undefined {
  return (OUTCOMES as readonly unknown[]).includes(value) ? (value as Outcome) : undefined
}

/** `value` when it is text of at most `max` characters. */
export function shortText(value: unknown, max = 300): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined
}

/**
 * The runs with `run` put in (replacing an older record of it), newest first.
 * Two steps writing the same comment each keep the other's runs. A run keeps
 * the time it was first shown, so that a later writer (the post step, a
 * reconcile pass) never moves an older run above a newer one.
 */
export function mergeRuns(runs: readonly RunEntry[], run: RunEntry): RunEntry[] {
  return mergeNewestFirst(runs, run, (record) => record.runId, MAX_RUNS)
}

/** Pure: the sets with `record` put in (keeping when it was first shown), newest first. */
export function mergeSets(sets: readonly SetEntry[], record: SetEntry): SetEntry[] {
  return mergeNewestFirst(sets, record, (entry) => entry.set, MAX_SETS)
}

/**
 * Pure: `records` with `record` put in, in place of an older record of the same
 * thing (which keeps the earlier of the two start times), newest first, at most `max`.
 */
function mergeNewestFirst<T extends { startedAt: string }>(
  records: readonly T[],
  record: T,
  idOf: (record: T) => string,
  max: number,
): T[] {
  const id = idOf(record)
  const earlier = records.find((other) => idOf(other) === id)?.startedAt
  const startedAt =
    earlier !== undefined && Date.parse(earlier) < Date.parse(record.startedAt)
      ? earlier
      : record.startedAt
  return [{ ...record, startedAt }, ...records.filter((other) => idOf(other) !== id)]
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt))
    .slice(0, max)
}

/**
 * The earlier runs and sets, collapsed, newest first; undefined when there are none. The
 * heading names the kinds it holds: "Earlier runs", "Earlier sets", "Earlier runs and sets".
 * `link` names what each record's `workflowRun` links to (on GitLab, the CI job).
 */
export function historyBlock(earlier: KeyHistory, link = 'workflow run'): string | undefined {
  const { runs, sets } = earlier
  if (runs.length + sets.length === 0) return undefined
  const kinds = [runs.length > 0 ? 'runs' : '', sets.length > 0 ? 'sets' : '']
  const title = `Earlier ${kinds.filter(Boolean).join(' and ')} (${runs.length + sets.length})`
  const lines = [
    ...runs.map((record) => ({ at: record.startedAt, line: historyLine(record, link) })),
    ...sets.map((record) => ({ at: record.startedAt, line: setHistoryLine(record, link) })),
  ]
    .sort((a, b) => Date.parse(b.at) - Date.parse(a.at))
    .map(({ line }) => line)
  return `<details><summary>${title}</summary>\n\n${lines.join('\n')}\n\n</details>`
}

const HISTORY_START = '\n\n<details><summary>Earlier '
const HISTORY_HEAD = /^<details><summary>Earlier (?:runs|sets|runs and sets) \(\d+\)<\/summary>\n/

/**
 * The body without its history block: from the last history heading to the closing
 * `</details>` at the very end. The heading is found by one search from the end, then checked
 * once, so the time is linear whatever the text.
 */
export function withoutHistory(body: string): string {
  if (!body.endsWith('</details>')) return body
  const at = body.lastIndexOf(HISTORY_START)
  if (at < 0) return body
  const head = body.slice(at + 2, at + 2 + 80)
  return HISTORY_HEAD.test(head) ? body.slice(0, at) : body
}

/** One run's line of the history: outcome, run and links. */
export function historyLine(record: RunEntry, link = 'workflow run'): string {
  const known = record.outcome ?? outcomeOfState(record.state)
  const outcome = known
    ? `${OUTCOME_RECORDS[known].icon} ${OUTCOME_RECORDS[known].short}`
    : `⏳ ${record.state.toLowerCase()}`
  const newer = record.supersededBy ? ` by ${codeSpan(record.supersededBy)}` : ''
  const parts = [`- ${outcome}${newer}`, `run ${codeSpan(record.runId)}`]
  const session = safeHttpUrl(record.sessionLink)
  if (session) parts.push(`[session](${session})`)
  return withEnd(parts, record, link)
}

/** One set's line of the history: outcome, how far it got, and its link. */
function setHistoryLine(record: SetEntry, link: string): string {
  const outcome = record.outcome
    ? `${OUTCOME_RECORDS[record.outcome].icon} ${OUTCOME_RECORDS[record.outcome].short}`
    : '⏳ running'
  return withEnd([`- ${outcome}`, `${record.done} of ${record.total} done`], record, link)
}

/** A history line's parts, then its workflow run's (or CI job's) link and its start. */
function withEnd(
  parts: string[],
  record: { workflowRun?: string; startedAt: string },
  link: string,
): string {
  const workflowRun = safeHttpUrl(record.workflowRun)
  if (workflowRun) parts.push(`[${link}](${workflowRun})`)
  parts.push(`started ${record.startedAt.replace(/T(\d\d:\d\d)[\s\S]*/, ' $1 UTC')}`)
  return parts.join(' · ')
}
