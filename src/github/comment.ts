import { isRunId } from '../api/answers.ts'
import type { RunItem } from '../api/types.ts'
import { meaningOf } from '../model/states.ts'
import { renderCommentAnswer } from './answer.ts'
import { escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import { statusMessageOf } from '../model/run.ts'

/** One run as a comment shows it; kept in the marker so that a later step can list it. */
export interface RunRecord {
  runId: string
  /** The last state seen. */
  state: string
  sessionLink?: string
  /** The workflow run that ran the step. */
  workflowRun?: string
  /** When the step first saw the run (ISO 8601); orders the runs, newest first. */
  startedAt: string
}

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
  runs: RunRecord[]
}

/** The most runs a comment keeps; older ones drop off the history. */
export const MAX_RUNS = 20

const MARKER = /<!-- cloud-agent-run: (\{[^<>]*\}) -->/
const STATE = /^[A-Z_]{1,40}$/

export function renderMarker(marker: Marker): string {
  const json = JSON.stringify({
    run_id: marker.runId,
    step: marker.step,
    key: marker.key,
    name: marker.name,
    reply: marker.reply || undefined,
    runs: marker.runs.map((run) => ({
      run_id: run.runId,
      state: run.state,
      session: run.sessionLink,
      workflow_run: run.workflowRun,
      started_at: run.startedAt,
    })),
  })
  // `<` and `>` could end the HTML comment (`-->`) or open a forged one; JSON can spell them otherwise.
  const inert = json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e')
  return `<!-- cloud-agent-run: ${inert} -->`
}

/** The marker in a comment's body, if it has a valid one; older formats are read too. */
export function parseMarker(body: string): Marker | undefined {
  const match = MARKER.exec(body)
  if (!match?.[1]) return undefined
  let parsed: Record<string, unknown>
  try {
    parsed = JSON.parse(match[1]) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined
  const runId = parsed.run_id
  if (!isRunId(runId)) return undefined
  return {
    runId,
    step: shortText(parsed.step) ?? '',
    key: shortText(parsed.key),
    name: shortText(parsed.name),
    reply: parsed.reply === true ? true : undefined,
    runs: Array.isArray(parsed.runs)
      ? parsed.runs.flatMap((entry: unknown) => parseRecord(entry) ?? []).slice(0, MAX_RUNS)
      : [],
  }
}

function parseRecord(entry: unknown): RunRecord | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined
  const record = entry as Record<string, unknown>
  const { run_id: runId, state, started_at: startedAt } = record
  if (!isRunId(runId)) return undefined
  if (typeof state !== 'string' || !STATE.test(state)) return undefined
  if (typeof startedAt !== 'string' || Number.isNaN(Date.parse(startedAt))) return undefined
  return {
    runId,
    state,
    sessionLink: safeHttpUrl(shortText(record.session, 2048)),
    workflowRun: safeHttpUrl(shortText(record.workflow_run, 2048)),
    startedAt,
  }
}

function shortText(value: unknown, max = 300): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined
}

/**
 * The runs with `run` put in (replacing an older record of it), newest first.
 * Two steps writing the same comment each keep the other's runs.
 */
export function mergeRuns(runs: readonly RunRecord[], run: RunRecord): RunRecord[] {
  return [run, ...runs.filter((other) => other.runId !== run.runId)]
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt))
    .slice(0, MAX_RUNS)
}

/** The record of a run as last seen. */
export function recordOf(
  run: RunItem,
  context: { startedAt: string; workflowRun?: string },
): RunRecord {
  return {
    runId: run.run_id,
    state: run.state,
    sessionLink: safeHttpUrl(run.session_link),
    workflowRun: context.workflowRun,
    startedAt: context.startedAt,
  }
}

/**
 * The comment's parts, in the order it shows them. Each is Markdown that is
 * already safe: every text from the API is escaped before it gets here.
 */
export interface CommentParts {
  /** The state's icon and words for where the run stands. */
  headline: string
  /** The run's title, in bold. */
  title?: string
  /** Links, shown on one line. */
  links: string[]
  /** The main text: today the status message of a failure; the agent's answer later. */
  body?: string
  /** Notes that qualify the result, such as a pull request's head that has moved on. */
  notes: string[]
  /** The earlier runs, newest first. */
  history: RunRecord[]
}

export interface CommentContext {
  /** The workflow run of the step, linked from the comment. */
  workflowRun?: string
  notes?: string[]
  /**
   * The least the comment must say (the marker, the run, its state, its links
   * and history): sent when GitHub refused the full text, so that the comment
   * never stays "in progress" on a finished run.
   */
  short?: boolean
  /** The agent's final message: the comment's body, made safe by agentMarkdown. */
  answer?: string
}

const PHRASES = {
  active: '⏳ is in progress',
  blocked: '✋ is waiting for a person (BLOCKED)',
  unknown: '⏳ is in progress',
  succeeded: '✅ succeeded',
  failed: '❌ did not succeed',
} as const

/** The parts of the comment for the run as last seen; `history` comes from the marker. */
export function partsOf(
  run: RunItem,
  history: RunRecord[],
  context: CommentContext = {},
): CommentParts {
  const meaning = meaningOf(run.state)
  const queued = run.state === 'QUEUED' || run.state === 'PENDING'
  const phrase = queued ? '⏳ is queued' : PHRASES[meaning]
  const links: string[] = []
  const session = safeHttpUrl(run.session_link)
  if (session) links.push(`[Open the session transcript](${session})`)
  const workflowRun = safeHttpUrl(context.workflowRun)
  if (workflowRun) links.push(`[Workflow run](${workflowRun})`)
  const message = statusMessageOf(run)
  return {
    headline: `**Cloud agent run** <code>${escapeMarkdown(run.run_id)}</code> ${phrase} (<code>${escapeMarkdown(shorten(run.state, 100))}</code>).`,
    title:
      run.title && !context.short ? `**${escapeMarkdown(shorten(run.title, 1_000))}**` : undefined,
    links,
    body: context.short
      ? '_Details are in the session transcript and the job summary._'
      : bodyOf(message && meaning === 'failed' ? message : undefined, context.answer),
    notes: context.short ? [] : (context.notes ?? []),
    history,
  }
}

/** The status message of a failure, then the agent's answer (agent text, shown as safe Markdown). */
function bodyOf(statusMessage: string | undefined, answer: string | undefined): string | undefined {
  const parts = [
    statusMessage ? `> ${escapeMarkdown(statusMessage)}` : undefined,
    renderCommentAnswer(answer),
  ].filter((part) => part !== undefined)
  return parts.length > 0 ? parts.join('\n\n') : undefined
}

/**
 * The comment's Markdown: the marker, then the parts, then the history,
 * collapsed; within GitHub's limit of 65,536 characters.
 */
export function composeComment(marker: Marker, parts: CommentParts): string {
  return fitParts(marker, parts)
}

function assemble(marker: Marker, parts: CommentParts): string {
  const sections = [`${renderMarker(marker)}\n${parts.headline}`]
  if (parts.title) sections.push(parts.title)
  if (parts.links.length > 0) sections.push(parts.links.join(' · '))
  if (parts.body) sections.push(parts.body)
  sections.push(...parts.notes)
  if (parts.history.length > 0) sections.push(historyBlock(parts.history))
  return sections.join('\n\n')
}

/** The comment for the run as last seen, with the marker's other runs as its history. */
export function renderComment(run: RunItem, marker: Marker, context: CommentContext = {}): string {
  const history = marker.runs.filter((record) => record.runId !== run.run_id)
  return composeComment(marker, partsOf(run, history, context))
}

const HISTORY = /\n\n<details><summary>Earlier runs \(\d+\)<\/summary>\n[\s\S]*<\/details>$/

/**
 * A comment (written by the action) with a new marker and history, and the
 * rest as it was: how a step whose run is no longer the newest keeps the
 * newer run's part intact.
 */
export function spliceComment(body: string, marker: Marker): string {
  const rest = body.replace(MARKER, '').replace(HISTORY, '').replace(/^\n/, '')
  const history = marker.runs.slice(1)
  const lines = `${renderMarker(marker)}\n${rest}`
  if (history.length === 0) return lines
  return `${lines}\n\n${historyBlock(history)}`
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

function historyBlock(history: RunRecord[]): string {
  return `<details><summary>Earlier runs (${history.length})</summary>\n\n${history.map(historyLine).join('\n')}\n\n</details>`
}

const HISTORY_WORDS: Record<string, string> = {
  SUCCEEDED: '✅ succeeded',
  FAILED: '❌ failed',
  ERROR: '❌ error',
  CANCELLED: '⛔ cancelled',
  BLOCKED: '✋ waiting for a person',
}

/** One line of the history: outcome, run and links. */
export function historyLine(record: RunRecord): string {
  const outcome = HISTORY_WORDS[record.state] ?? `⏳ ${escapeMarkdown(record.state.toLowerCase())}`
  const parts = [`- ${outcome}`, `run <code>${escapeMarkdown(record.runId)}</code>`]
  const session = safeHttpUrl(record.sessionLink)
  if (session) parts.push(`[session](${session})`)
  const workflowRun = safeHttpUrl(record.workflowRun)
  if (workflowRun) parts.push(`[workflow run](${workflowRun})`)
  parts.push(`started ${record.startedAt.replace(/T(\d\d:\d\d).*$/, ' $1 UTC')}`)
  return parts.join(' · ')
}

const SHA = /^[0-9a-f]{7,64}$/i

/** Says that the result is for a commit the pull request has moved on from. */
export function staleHeadNote(ranOn: string, head: string): string | undefined {
  if (!SHA.test(ranOn) || !SHA.test(head) || ranOn === head) return undefined
  return (
    '> [!NOTE]\n' +
    `> This result is for commit \`${ranOn.slice(0, 7)}\`; the pull request has since moved on to \`${head.slice(0, 7)}\`.`
  )
}

/** The workflow run's page, from what the runner sets. */
export function workflowRunUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: runId } = env
  if (!repo || !runId || !/^\d+$/.test(runId)) return undefined
  const attempt = /^\d+$/.test(env.GITHUB_RUN_ATTEMPT ?? '') ? env.GITHUB_RUN_ATTEMPT : undefined
  const base = `${(server || 'https://github.com').replace(/\/+$/, '')}/${repo}/actions/runs/${runId}`
  return safeHttpUrl(attempt ? `${base}/attempts/${attempt}` : base)
}

/** GitHub refuses a comment body longer than this many characters. */
export const MAX_COMMENT_CHARS = 65_536

const CUT_NOTE =
  "…\n\n_This comment was cut at GitHub's limit of 65,536 characters; the session transcript linked above has the rest._"

/**
 * The parts within GitHub's limit: the body, the one part that grows without
 * bound, is cut after escaping, so the marker, the links and the history stay.
 */
function fitParts(marker: Marker, parts: CommentParts): string {
  const whole = assemble(marker, parts)
  if (whole.length <= MAX_COMMENT_CHARS) return whole
  const room = MAX_COMMENT_CHARS - assemble(marker, { ...parts, body: '' }).length - CUT_NOTE.length
  const body = room > 0 ? `${cutEscaped(parts.body ?? '', room)}${CUT_NOTE}` : CUT_NOTE
  return cutEscaped(assemble(marker, { ...parts, body }), MAX_COMMENT_CHARS)
}

/** `text` cut to `max` characters, never through an escape (`&#124;` would leave `&#12`). */
function cutEscaped(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max).replace(/&#?\w*$/, '')
}
