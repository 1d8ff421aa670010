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
  /** The run's `name` input, when the step had one: `continue_run` with a name follows only its own. */
  name?: string
}

const MARKER = /<!-- cloud-agent-run: (\{[^<>]*\}) -->/

export function renderMarker(marker: Marker): string {
  const fields = { run_id: marker.runId, step: marker.step, name: marker.name }
  return `<!-- cloud-agent-run: ${JSON.stringify(fields)} -->`
}

export function parseMarker(body: string): Marker | undefined {
  const match = MARKER.exec(body)
  if (!match?.[1]) return undefined
  try {
    const parsed = JSON.parse(match[1]) as { run_id?: unknown; step?: unknown; name?: unknown }
    if (typeof parsed.run_id !== 'string' || !/^[\w.-]{1,200}$/.test(parsed.run_id))
      return undefined
    return {
      runId: parsed.run_id,
      step: typeof parsed.step === 'string' ? parsed.step : '',
      ...(typeof parsed.name === 'string' ? { name: parsed.name } : {}),
    }
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

/** The comment's text for the run as last seen. Every text from the API is escaped. */
export function renderComment(run: RunItem, marker: Marker): string {
  const meaning = meaningOf(run.state)
  const queued = run.state === 'QUEUED' || run.state === 'PENDING'
  const phrase = queued ? '⏳ is queued' : PHRASES[meaning]
  const lines = [
    renderMarker(marker),
    `**Cloud agent run** <code>${escapeMarkdown(run.run_id)}</code> ${phrase} (<code>${escapeMarkdown(run.state)}</code>).`,
  ]
  if (run.title) lines.push('', `**${escapeMarkdown(run.title)}**`)
  const link = safeHttpUrl(run.session_link)
  if (link) lines.push('', `[Open the session transcript](${link})`)
  const message = statusMessageOf(run)
  if (message && meaning === 'failed') lines.push('', `> ${escapeMarkdown(message)}`)
  return lines.join('\n')
}
