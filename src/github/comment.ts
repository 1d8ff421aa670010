import { isRunId } from '../api/answers.ts'
import type { RunItem } from '../api/types.ts'
import { escapeMarkdown, safeHttpUrl, statusMessageOf } from '../report/summary.ts'
import { meaningOf } from '../run/states.ts'

/**
 * The hidden marker that ties a comment to its run, so that a later workflow
 * run can continue the same conversation. Anyone can type one, so a marker is
 * trusted only in a comment written by the action's own identity.
 */
export interface Marker {
  runId: string
  /** `<job>/<step>`: one comment per step on a thread. */
  step: string
}

const MARKER = /<!-- cloud-agent-run: (\{[^<>]*\}) -->/

export function renderMarker(marker: Marker): string {
  return `<!-- cloud-agent-run: ${JSON.stringify({ run_id: marker.runId, step: marker.step })} -->`
}

export function parseMarker(body: string): Marker | undefined {
  const match = MARKER.exec(body)
  if (!match?.[1]) return undefined
  try {
    const parsed = JSON.parse(match[1]) as { run_id?: unknown; step?: unknown }
    if (!isRunId(parsed.run_id)) return undefined
    return { runId: parsed.run_id, step: typeof parsed.step === 'string' ? parsed.step : '' }
  } catch {
    return undefined
  }
}

const PHRASES = {
  active: '⏳ is in progress',
  blocked: '✋ is waiting for a person (BLOCKED)',
  unknown: '⏳ is in progress',
  succeeded: '✅ succeeded',
  failed: '❌ did not succeed',
} as const

/** GitHub refuses a comment body longer than this many characters. */
export const MAX_COMMENT_CHARS = 65_536

/**
 * The comment's text for the run as last seen. Every text from the API is
 * escaped, and the whole is cut to GitHub's limit after escaping.
 */
export function renderComment(run: RunItem, marker: Marker): string {
  const meaning = meaningOf(run.state)
  const lines = [renderMarker(marker), headline(run)]
  if (run.title) lines.push('', `**${escapeMarkdown(run.title)}**`)
  const link = safeHttpUrl(run.session_link)
  if (link) lines.push('', `[Open the session transcript](${link})`)
  const message = statusMessageOf(run)
  if (message && meaning === 'failed') lines.push('', `> ${escapeMarkdown(message)}`)
  return fitComment(lines.join('\n'), link)
}

/**
 * The least the comment must say: the marker, the run and its state, the
 * session. Sent when GitHub refuses the full text, so that the comment never
 * stays "in progress" on a finished run.
 */
export function renderShortComment(run: RunItem, marker: Marker): string {
  const lines = [renderMarker(marker), headline(run)]
  const link = safeHttpUrl(run.session_link)
  lines.push(
    '',
    link
      ? `[Open the session transcript](${link}) for the details.`
      : '_Details are in the job summary._',
  )
  return fitComment(lines.join('\n'), link)
}

function headline(run: RunItem): string {
  const queued = run.state === 'QUEUED' || run.state === 'PENDING'
  const phrase = queued ? '⏳ is queued' : PHRASES[meaningOf(run.state)]
  const state = escapeMarkdown(run.state.length > 100 ? `${run.state.slice(0, 100)}…` : run.state)
  return `**Cloud agent run** <code>${escapeMarkdown(run.run_id)}</code> ${phrase} (<code>${state}</code>).`
}

/** `body` within GitHub's limit: cut after escaping, with a note and the session link. */
export function fitComment(body: string, link: string | undefined): string {
  if (body.length <= MAX_COMMENT_CHARS) return body
  const note =
    "\n\n…\n\n_This comment was cut at GitHub's limit of 65,536 characters._" +
    (link && link.length <= 2_000 ? ` [Open the session transcript](${link}) for the rest.` : '')
  // A cut through an escape (`&#124;`) would leave a stray `&#12`: end before it.
  const cut = body.slice(0, Math.max(0, MAX_COMMENT_CHARS - note.length)).replace(/&#?\w*$/, '')
  return (cut + note).slice(0, MAX_COMMENT_CHARS)
}
