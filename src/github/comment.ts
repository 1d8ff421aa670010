/** One run's comment, its Markdown, pure: the run as last seen, its links, its answer, the key's history. */
import { describeCost } from '../agent/cost.ts'
import { childRunsBlock, treeCostOf } from '../model/tree.ts'
import type { RunItem } from '../api/types.ts'
import { formatDuration } from '../text/format.ts'
import {
  agentDetails,
  clipAnswer,
  codeSpan,
  escapeMarkdown,
  inlineText,
  linkTarget,
  safeHttpUrl,
} from '../text/markdown.ts'
import { blockedQuestion } from '../model/blocked.ts'
import { endingOf, type Ending } from '../model/ending.ts'
import { parseIsoDuration, pullRequestUrlOf, statusMessageOf } from '../model/run-item.ts'
import { isTerminal, meaningOf } from '../model/states.ts'
import type { StepOutcome } from '../model/step.ts'
import { COMMENT_ANSWER_CHARS, renderCommentAnswer } from './answer.ts'
import { wordsFor, type PlainWords } from './words.ts'
import { clip, cut } from '../text/plain.ts'
import { historyBlock, isSha, withoutHistory, type KeyHistory } from '../model/key-history.ts'
import { renderMarker, withoutMarker, type Marker } from './run-marker.ts'

/**
 * The comment's parts, in the order it shows them. Each is Markdown that is
 * already safe: every text from the API or the agent is made inert before it
 * gets here.
 */
export interface CommentParts {
  /** A heading: the state's icon and the run's title (else its ID). */
  headline: string
  /** Why it stands where it stands, in plain words, with the figures (duration, credits). */
  status: string
  /** Links, shown on one line. */
  links: string[]
  /** The reason, what a person is asked, and the agent's answer. */
  body?: string
  /** Notes that qualify the result, such as a pull request's head that has moved on. */
  notes: string[]
  /** The key's earlier runs and sets, newest first. */
  history: KeyHistory
}

/** How the step ended, for the comment's last write. */
export interface CommentOutcome {
  ending: Ending
  /** The step's time with the run, for a run whose duration the service does not give. */
  elapsedMs?: number
  /** BLOCKED: what the run waits for (the status message, else the agent's last message). */
  question?: string
  /** Whether a comment can answer a BLOCKED run (continue_run is set up). */
  continueRun?: boolean
  /** The runs the run's agent started: their spend counts with its, and they are listed. */
  children?: readonly RunItem[]
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
  /** Absent while the step waits: the words then come from the run's state. */
  outcome?: CommentOutcome
}

/** The facts of the step's outcome that the comment shows. */
export function commentOutcomeOf(outcome: StepOutcome, continueRun: boolean): CommentOutcome {
  return {
    ending: endingOf(outcome),
    elapsedMs: 'elapsedMs' in outcome ? outcome.elapsedMs : undefined,
    question: outcome.kind === 'blocked' ? outcome.question : undefined,
    continueRun,
    ...(outcome.children?.length ? { children: outcome.children } : {}),
  }
}

/** An answer longer than this is collapsed, so that the thread stays readable. */
const LONG_ANSWER = { chars: 1_500, lines: 25 } as const

/** The parts of the comment for the run as last seen; `history` comes from the marker. */
export function partsOf(
  run: RunItem,
  history: KeyHistory,
  context: CommentContext = {},
): CommentParts {
  const ending = context.outcome?.ending
  const words = wordsFor(run, ending)
  const title = run.title?.trim()
  const name = title
    ? inlineText(clip(title.replace(/\s+/g, ' '), 200))
    : `Run ${codeSpan(run.run_id)}`
  const figures = ending || isTerminal(run.state) ? figuresOf(run, context.outcome) : []
  const newer = words.newerRunId ? ` (run ${codeSpan(words.newerRunId)})` : ''
  const links: string[] = []
  const session = safeHttpUrl(run.session_link)
  if (session) links.push(`[Session](${session})`)
  const workflowRun = safeHttpUrl(context.workflowRun)
  if (workflowRun) links.push(`[Workflow run](${workflowRun})`)
  const pullRequest = pullRequestLinkOf(run)
  if (pullRequest) links.push(pullRequest)
  links.push(`Run ${codeSpan(run.run_id)}`)
  return {
    headline: `### ${words.icon} ${name}`,
    status: [`**${words.label}**${newer}`, ...figures].join(' · '),
    links,
    body: context.short
      ? '_Details are in the session and the job summary._'
      : bodyOf(run, words, context),
    notes: context.short ? [] : (context.notes ?? []),
    history,
  }
}

/** The run's duration and credits, when known. */
function figuresOf(run: RunItem, outcome: CommentOutcome | undefined): string[] {
  const figures: string[] = []
  const fromService = run.run_time ? parseIsoDuration(run.run_time) : undefined
  const duration = fromService ?? outcome?.elapsedMs
  if (duration !== undefined) figures.push(`⏱ ${formatDuration(duration)}`)
  const cost = describeCost(treeCostOf(run, outcome?.children))
  if (cost) figures.push(escapeMarkdown(cost))
  return figures
}

/** The pull request the agent opened, as a link labelled `owner/repo#12`. */
function pullRequestLinkOf(run: RunItem): string | undefined {
  const url = pullRequestUrlOf(run)
  const href = url && linkTarget(url)
  if (!url || !href) return undefined
  const match = /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/pull\/(\d+)/.exec(url)
  const label = match ? `${match[1]}#${match[2]}` : 'the pull request'
  return `Opened ${`[${escapeMarkdown(label)}](<${href}>)`}`
}

/** Why it ended, the service's reason, what a person is asked, and the agent's answer. */
function bodyOf(run: RunItem, words: PlainWords, context: CommentContext): string | undefined {
  const parts: string[] = []
  if (words.detail) parts.push(words.detail)
  const reason = words.showsReason ? statusMessageOf(run) : undefined
  if (reason) parts.push(quote(inlineText(clip(reason, 2_000))))
  let answer = context.answer?.trim() ? context.answer : undefined
  // Also after a timeout: the run is still BLOCKED (it cannot be cancelled), and still asks.
  if (meaningOf(run.state) === 'blocked') {
    const question = context.outcome?.question ?? blockedQuestion(run.status_message, undefined)
    // The agent's last message is often its question: shown once, as what the run waits for.
    if (question?.trim() === answer?.trim()) answer = undefined
    parts.push(blockedBlock(question, run, context.outcome?.continueRun ?? false))
  }
  const started = childRunsBlock(context.outcome?.children)
  if (started) parts.push(started)
  const shown = answerBlock(answer)
  if (shown) parts.push(shown)
  return parts.length > 0 ? parts.join('\n\n') : undefined
}

/** What a BLOCKED run waits for, and how a person answers it. */
function blockedBlock(question: string | undefined, run: RunItem, continueRun: boolean): string {
  const session = safeHttpUrl(run.session_link)
  const ways = [
    session ? `answer in the [session](${session})` : 'answer in the session, in the app',
  ]
  if (continueRun) ways.push('reply with a comment here; continue_run passes it on')
  const lines = [
    '> [!WARNING]',
    `> The run is BLOCKED: it waits for a person. To move it on, ${ways.join(', or ')}.`,
  ]
  if (question) lines.push('', agentDetails('What it waits for', clip(question, 20_000), true))
  return lines.join('\n')
}

/** The agent's answer: as it is when short, collapsed when long. */
function answerBlock(answer: string | undefined): string | undefined {
  if (answer === undefined) return undefined
  const long = answer.length > LONG_ANSWER.chars || answer.split('\n').length > LONG_ANSWER.lines
  if (!long) return renderCommentAnswer(answer)
  return agentDetails("The agent's answer", clipAnswer(answer, COMMENT_ANSWER_CHARS))
}

function quote(markdown: string): string {
  return markdown
    .split(/<br>/)
    .map((line) => `> ${line}`)
    .join('\n')
}

/**
 * The comment's Markdown: the marker, then the parts, then the history,
 * collapsed; within GitHub's limit of 65,536 characters.
 */
export function composeComment(marker: Marker, parts: CommentParts): string {
  return fitParts(marker, parts)
}

function assemble(marker: Marker, parts: CommentParts): string {
  const sections = [`${renderMarker(marker)}\n${parts.headline}`, parts.status]
  if (parts.links.length > 0) sections.push(parts.links.join(' · '))
  if (parts.body) sections.push(parts.body)
  sections.push(...parts.notes)
  const history = historyBlock(parts.history)
  if (history) sections.push(history)
  return sections.join('\n\n')
}

/** The comment for the run as last seen, with the marker's other runs and its sets as its history. */
export function renderComment(run: RunItem, marker: Marker, context: CommentContext = {}): string {
  const runs = marker.runs.filter((record) => record.runId !== run.run_id)
  const history = { runs, sets: marker.sets ?? [] }
  const parts = partsOf(run, history, context)
  const whole = assemble(marker, parts).length
  const { answer } = context
  if (whole <= MAX_COMMENT_CHARS || !answer) return composeComment(marker, parts)
  // Too long: the answer is clipped before it is made safe, so no block is left open; by how much
  // is a guess (escaping grows text unevenly), and composeComment cuts whatever still overflows.
  const without = assemble(marker, partsOf(run, history, { ...context, answer: undefined })).length
  const room = MAX_COMMENT_CHARS - without - ANSWER_CLIP_SLACK
  const shown = Math.min(answer.length, COMMENT_ANSWER_CHARS)
  const keep = Math.floor((shown * room) / (whole - without))
  if (keep <= 0) return composeComment(marker, parts)
  return composeComment(
    marker,
    partsOf(run, history, { ...context, answer: clipAnswer(answer, keep) }),
  )
}

/** Room for what clipping adds around the answer: its note and the block it is collapsed in. */
const ANSWER_CLIP_SLACK = 500

/**
 * A comment (written by the action) with a new marker and history, and the
 * rest as it was: how a step whose run is no longer the newest keeps the
 * newer run's part intact.
 */
export function spliceComment(body: string, marker: Marker): string {
  const rest = withoutHistory(withoutMarker(body)).replace(/^\n/, '')
  const history = historyBlock({ runs: marker.runs.slice(1), sets: marker.sets ?? [] })
  const lines = `${renderMarker(marker)}\n${rest}`
  return history ? `${lines}\n\n${history}` : lines
}

/** Says that the result is for a commit the pull request has moved on from. */
export function staleHeadNote(ranOn: string, head: string): string | undefined {
  if (!isSha(ranOn) || !isSha(head) || ranOn === head) return undefined
  return (
    '> [!NOTE]\n' +
    `> This result is for commit \`${ranOn.slice(0, 7)}\`; the pull request has since moved on to \`${head.slice(0, 7)}\`.`
  )
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
  const room =
    MAX_COMMENT_CHARS - assemble(marker, { ...parts, body: '' }).length - CUT_NOTE.length - 40
  const body =
    room > 0 ? closeDetails(`${cutEscaped(parts.body ?? '', room)}${CUT_NOTE}`) : CUT_NOTE
  return cutEscaped(assemble(marker, { ...parts, body }), MAX_COMMENT_CHARS)
}

/** A body cut inside a collapsed block closes it, or the history would be swallowed by it. */
function closeDetails(body: string): string {
  const open = body.split('<details').length - body.split('</details>').length
  return open > 0 ? `${body}${'\n\n</details>'.repeat(open)}` : body
}

/** `text` cut to `max` characters, never through an escape (`&#124;` would leave `&#12`). */
function cutEscaped(text: string, max: number): string {
  return text.length <= max ? text : cut(text, max).replace(/&#?\w*$/, '')
}
