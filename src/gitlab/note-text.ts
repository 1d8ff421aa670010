/**
 * The note's text, pure: its hidden marker first (the key, what it records of the run, the key's
 * history), then the Markdown without a line GitLab would run as a quick action, cut to GitLab's
 * limit, then the key's earlier runs and sets, collapsed.
 */
import {
  historyBlock,
  inertJson,
  markerJson,
  parseRuns,
  parseSets,
  runJson,
  setJson,
  type KeyHistory,
} from '../model/key-history.ts'
import { cut } from '../text/plain.ts'

/** GitLab refuses a note longer than this many characters. */
const GITLAB_NOTE_MAX_CHARS = 1_000_000

const MARKER_PREFIX = '<!-- cloud-agent-run-note: '
const MARKER = /^<!-- cloud-agent-run-note: (\{[^<>\n]*\}) -->/

/**
 * What a note records of its run, in its marker, for a later job and a reconcile pass: the run,
 * the head it works on, the job awaiting it, and whether the note shows its end.
 */
export interface NoteRecord {
  readonly run?: string
  readonly head?: string
  readonly job?: string
  readonly ended?: boolean
}

/**
 * The note's text: the marker first, where no text of the agent can come before it, then the
 * Markdown, with no line GitLab would take for a quick action, cut to GitLab's limit, then the
 * key's earlier runs and sets (all of `history` but the job's own report), collapsed.
 */
export function noteBody(
  key: string,
  markdown: string,
  record: NoteRecord = {},
  history: KeyHistory = { runs: [], sets: [] },
): string {
  const json = inertJson({
    key,
    ...record,
    ...(history.runs.length > 0 ? { runs: history.runs.map(runJson) } : {}),
    ...(history.sets.length > 0 ? { sets: history.sets.map(setJson) } : {}),
  })
  const marker = `${MARKER_PREFIX}${json} -->`
  const setId = setIdOf(record)
  const earlier = historyBlock(
    {
      runs: history.runs.filter((run) => run.runId !== record.run),
      sets: history.sets.filter((set) => set.set !== setId),
    },
    'CI job',
  )
  const after = earlier ? `\n\n${earlier}` : ''
  const room = GITLAB_NOTE_MAX_CHARS - marker.length - after.length - CUT_NOTE.length - 2
  const text = withoutQuickActions(markdown)
  return `${marker}\n${text.length > room ? `${cut(text, room)}${CUT_NOTE}` : text}${after}`
}

/** How the key's history names a job's set: by its job (GitLab CI always says which). */
export function setIdOf(record: NoteRecord): string {
  return `job ${record.job ?? ''}`.slice(0, 100)
}

const CUT_NOTE = '\n\n… (cut at GitLab’s limit for a note)'

/** The key of a note's marker, when it opens the note. */
export function markerKey(body: string): string | undefined {
  return markerOf(body)?.key
}

/** A note's marker, when it opens the note: its key and what it records of the run. */
export function markerOf(body: string): { key: string; record: NoteRecord } | undefined {
  const marker = noteMarkerOf(body)
  return marker && { key: marker.key, record: marker.record }
}

/** A note's marker, when it opens the note: its key, what it records of the run, the key's history. */
export function noteMarkerOf(
  body: string,
): { key: string; record: NoteRecord; history: KeyHistory } | undefined {
  const parsed = markerJson(body, MARKER)
  if (!parsed || typeof parsed.key !== 'string') return undefined
  const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined)
  const record: NoteRecord = {
    ...(text(parsed.run) ? { run: text(parsed.run) } : {}),
    ...(text(parsed.head) ? { head: text(parsed.head) } : {}),
    ...(text(parsed.job) ? { job: text(parsed.job) } : {}),
    ...(parsed.ended === true ? { ended: true } : {}),
  }
  return {
    key: parsed.key,
    record,
    history: { runs: parseRuns(parsed.runs), sets: parseSets(parsed.sets) },
  }
}

/**
 * GitLab runs a line that starts with `/` (`/merge`, `/approve`, `/close`) as a quick action
 * when the note is saved, even one in the agent's text. One space before it keeps the line as
 * it reads in Markdown, and GitLab no longer sees a command. GitLab drops every `\r` first, so
 * a `\r` cannot hide a line's start.
 */
export function withoutQuickActions(markdown: string): string {
  return markdown.replace(/\r\n?/g, '\n').replace(/^\//gm, ' /')
}
