/** The hidden marker of one run's comment, pure: what it records, written and read. */
import { isRunId } from '../api/answers.ts'
import type { RunItem } from '../api/types.ts'
import { describeEnding, type Ending } from '../model/ending.ts'
import { safeHttpUrl } from '../text/markdown.ts'
import {
  inertJson,
  markerJson,
  parseRuns,
  parseSets,
  runJson,
  setJson,
  shortText,
  type RunEntry,
  type SetEntry,
} from '../model/key-history.ts'

/**
 * The hidden marker that ties a comment to its runs, so that a later step can
 * update the comment, and `continue_run` can continue the conversation. Anyone
 * can type one, so a marker is trusted only in a comment written by the
 * action's own identity.
 */
export interface Marker {
  /** The run the comment is about now. */
  runId: string
  /** `<job>/<step>` of the step that wrote it. */
  step: string
  /** One comment per thread and key. Absent from markers written before keys existed. */
  key?: string
  /** The run's `name` input, when given: `continue_run` with a name continues only its runs. */
  name?: string
  /** An answer to a person's comment (`continue_run`): a keyed step never takes it over. */
  reply?: boolean
  /** The runs the comment has shown, newest first; the first is `runId`'s. Empty in old markers. */
  runs: RunEntry[]
  /** The key's earlier sets, newest first, kept from a set's comment the run took over. */
  sets?: readonly SetEntry[]
}

const MARKER = /<!-- cloud-agent-run: (\{[^<>]*\}) -->/

export function renderMarker(marker: Marker): string {
  const json = inertJson({
    run_id: marker.runId,
    step: marker.step,
    key: marker.key,
    name: marker.name,
    reply: marker.reply || undefined,
    runs: marker.runs.map(runJson),
    ...(marker.sets?.length ? { sets: marker.sets.map(setJson) } : {}),
  })
  return `<!-- cloud-agent-run: ${json} -->`
}

/** The body without its marker. */
export function withoutMarker(body: string): string {
  return body.replace(MARKER, '')
}

/** The marker in a comment's body, if it has a valid one; older formats are read too. */
export function parseMarker(body: string): Marker | undefined {
  const parsed = markerJson(body, MARKER)
  if (!parsed) return undefined
  const runId = parsed.run_id
  if (!isRunId(runId)) return undefined
  const sets = parseSets(parsed.sets)
  return {
    runId,
    step: shortText(parsed.step) ?? '',
    key: shortText(parsed.key),
    name: shortText(parsed.name),
    reply: parsed.reply === true ? true : undefined,
    runs: parseRuns(parsed.runs),
    ...(sets.length > 0 ? { sets } : {}),
  }
}

/** The record of a run as last seen. */
export function recordOf(
  run: RunItem,
  context: { startedAt: string; workflowRun?: string; ending?: Ending; head?: string },
): RunEntry {
  const { ending } = context
  return {
    ...(context.head ? { head: context.head } : {}),
    runId: run.run_id,
    state: run.state,
    outcome: ending ? describeEnding(ending).outcome : undefined,
    supersededBy: ending?.kind === 'superseded' ? ending.newerRunId : undefined,
    sessionLink: safeHttpUrl(run.session_link),
    workflowRun: context.workflowRun,
    startedAt: context.startedAt,
  }
}
