/** A set's comment, its rendering, pure: the set marker, the set's Markdown and the key's history. */
import {
  historyBlock,
  inertJson,
  markerJson,
  parseRuns,
  parseSets,
  runJson,
  setJson,
  withoutHistory,
  type RunEntry,
  type SetEntry,
} from '../model/key-history.ts'
import { MAX_COMMENT_CHARS } from './comment.ts'
import type { Outcome } from '../model/outcome.ts'

/**
 * The hidden marker of a set's comment: one comment per thread and key, as
 * for one run, but a marker of its own, so that `continue_run` never takes a
 * set for a run to continue. Trusted only in a comment by the action's own identity.
 */
export interface SetMarker {
  key: string
  step: string
  /** Newest first; the first is the set the comment shows. */
  sets: SetEntry[]
  /** The key's earlier runs, newest first, kept from a run's comment the set took over. */
  runs?: readonly RunEntry[]
}

/** Room the comment keeps for its marker and history; the table gets the rest. */
export const SET_COMMENT_TABLE_CHARS = MAX_COMMENT_CHARS - 16_000

const SET_MARKER = /<!-- cloud-agent-set: (\{[^<>]*\}) -->/

export function renderSetMarker(marker: SetMarker): string {
  const json = inertJson({
    key: marker.key,
    step: marker.step,
    sets: marker.sets.map(setJson),
    ...(marker.runs?.length ? { runs: marker.runs.map(runJson) } : {}),
  })
  return `<!-- cloud-agent-set: ${json} -->`
}

/** The set marker in a comment's body, if it has a valid one. */
export function parseSetMarker(body: string): SetMarker | undefined {
  const parsed = markerJson(body, SET_MARKER)
  if (!parsed) return undefined
  const { key, step, sets, runs } = parsed
  if (typeof key !== 'string' || typeof step !== 'string') return undefined
  const earlierRuns = parseRuns(runs)
  return {
    key,
    step,
    sets: parseSets(sets),
    ...(earlierRuns.length > 0 ? { runs: earlierRuns } : {}),
  }
}

/** Pure: the whole comment: the marker, the set's Markdown, and the key's earlier runs and sets, collapsed. */
export function composeSetComment(marker: SetMarker, body: string): string {
  const history = historyBlock({ runs: marker.runs ?? [], sets: marker.sets.slice(1) })
  const whole = `${renderSetMarker(marker)}\n${body}`
  return history ? `${whole}\n\n${history}` : whole
}

/** The set's Markdown in a comment this module wrote: without the marker's line and the history. */
export function setBodyOf(comment: string): string {
  return withoutHistory(comment.slice(comment.indexOf('\n') + 1))
}

/** What the comment shows of the set now: its Markdown (without marker), and its record's figures. */
export interface SetShown {
  body: string
  outcome?: Outcome
  done: number
  total: number
  /** The runs handed to a person (see SetEntry). */
  handedOff?: readonly string[]
}
