import { describeCost } from '../agent/cost.ts'
import { childRunsBlock, treeCostOf } from '../model/tree.ts'
import type { RunItem } from '../api/types.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import {
  describeEnding,
  endingOf,
  failureNotes,
  type AwaitingApproval,
  type EndingWords,
} from '../model/ending.ts'
import { approveLine, pinValue } from '../model/approval.ts'
import { meaningOf } from '../model/states.ts'
import type { ArtifactEntry } from '../agent/artifacts.ts'
import { renderAnswerBlock, renderArtifacts, renderBlocked } from './agent-work.ts'
import { formatDuration } from '../text/format.ts'
import { blockedQuestion } from '../model/blocked.ts'
import type { StepOutcome } from '../model/step.ts'
import { parseIsoDuration, pullRequestUrlOf, statusMessageOf } from '../model/run-item.ts'
import { escapeMarkdown, inlineText, safeHttpUrl } from '../text/markdown.ts'
import { clip } from '../text/plain.ts'

/** What the step's outcome means for the workflow: pass or fail, and its words on every surface. */
export function verdictOf(outcome: StepOutcome): EndingWords {
  return describeEnding(endingOf(outcome))
}

/** The run's usage as `key: value` pairs, for the summary; numbers and short strings only. */
export function usageOf(run: RunItem): string | undefined {
  const entries = Object.entries(run.request_usage ?? {}).filter(
    ([, value]) => typeof value === 'number' || (typeof value === 'string' && value.length <= 64),
  )
  if (entries.length === 0) return undefined
  return entries.map(([key, value]) => `${key.replace(/_/g, ' ')}: ${String(value)}`).join(', ')
}

/** What the step brought back of the agent's work, for the summary. */
export interface SummaryExtras {
  answer?: string
  artifacts?: readonly ArtifactEntry[]
  downloadedTo?: ReadonlyMap<ArtifactEntry, string>
  downloadDir?: string
  /** How a person answers a BLOCKED run. */
  continueRun?: boolean
  /** The agent's question, for a BLOCKED run that the step still waited on until its timeout. */
  blockedQuestion?: string
  /** output_schema, pull_request_review: the agent's document, once it has validated. */
  structuredOutput?: unknown
  /** pull_request_review: the review's verdict. */
  verdict?: string
  /**
   * What the summary shows as the agent's answer when it is not the final message itself: a
   * review's summary, where the message ends with the review's JSON. `result` keeps the message.
   */
  shownAnswer?: string
  now?: number
}

/** The job summary, as GitHub-flavoured Markdown. Every text from the API is escaped. */
export function renderSummary(outcome: StepOutcome, extras: SummaryExtras = {}): string {
  const verdict = verdictOf(outcome)
  const run = outcome.run
  const rows: Array<[string, string]> = []
  if (run) {
    rows.push(['Run', `<code>${escapeMarkdown(run.run_id)}</code>`])
    // One fact, one row: the state is named apart only when the outcome's word is another.
    const state =
      run.state.toLowerCase() === verdict.outcome
        ? ''
        : ` (state <code>${escapeMarkdown(run.state)}</code>)`
    rows.push(['Outcome', `<code>${verdict.outcome}</code>${state}`])
    const duration = durationOf(outcome)
    if (duration) rows.push(['Duration', duration])
    const link = safeHttpUrl(run.session_link)
    if (link) rows.push(['Session', `[Open the session transcript](${link})`])
    const pullRequest = safeHttpUrl(pullRequestUrlOf(run))
    if (pullRequest) {
      rows.push([
        'Pull request',
        `[${escapeMarkdown(pullRequestLabel(pullRequest))}](${pullRequest})`,
      ])
    }
    const cost = describeCost(treeCostOf(run, outcome.children))
    const usage = cost ?? usageOf(run)
    if (usage) rows.push([cost ? 'Cost' : 'Usage', escapeMarkdown(usage)])
    const message = statusMessageOf(run)
    if (message && !verdict.passes) {
      rows.push(['Status message', inlineText(clip(message, 2000))])
    }
  }
  const lines = [
    `### ${verdict.icon} ${escapeMarkdown(verdict.headline)}`,
    '',
    escapeMarkdown(verdict.why),
    '',
  ]
  if (rows.length > 0) lines.push(...factsTable(rows), '')
  const started = childRunsBlock(outcome.children)
  if (started) lines.push(started, '')
  if (run && meaningOf(run.state) === 'failed') {
    const notes = failureNotes(run.status_message, extras.now ?? Date.now())
    if (notes.length > 0) lines.push(notes.map(escapeMarkdown).join(' '), '')
  }
  if (run && meaningOf(run.state) === 'blocked') {
    const asked =
      outcome.kind === 'blocked'
        ? outcome.question
        : (extras.blockedQuestion ?? blockedQuestion(run.status_message, undefined))
    // The agent's last message is often its question: shown once, as the answer, below.
    const question = asked?.trim() === extras.answer?.trim() ? undefined : asked
    lines.push(
      renderBlocked(question, {
        sessionLink: run.session_link,
        continueRun: extras.continueRun ?? false,
      }),
    )
  } else if (outcome.kind === 'timed-out' && meaningOf(outcome.stateAtTimeout) === 'blocked') {
    lines.push(
      '> [!WARNING]',
      '> The run was BLOCKED, waiting for a person, when the timeout ran out.',
      '',
    )
  }
  const answer =
    extras.shownAnswer === undefined
      ? renderAnswerBlock(extras.answer)
      : renderAnswerBlock(extras.shownAnswer, "The agent's review")
  if (answer) lines.push(answer, '')
  const artifacts =
    extras.artifacts &&
    renderArtifacts(extras.artifacts, extras.downloadedTo ?? new Map(), extras.downloadDir)
  if (artifacts) lines.push(artifacts, '')
  return lines.join('\n')
}

/** The job summary of a step that failed before it had an outcome (bad input, lost contact, …). */
export function renderErrorSummary(
  message: string,
  runId: string | undefined,
  step = 'step',
): string {
  const lines = [`### ${OUTCOME_RECORDS.error.icon} The ${step} failed`, '']
  if (runId) lines.push(...factsTable([['Run', `<code>${escapeMarkdown(runId)}</code>`]]), '')
  lines.push(escapeMarkdown(message), '')
  return lines.join('\n')
}

/** A step that waits for an approval (approval): what it waits for, and the line to comment. */
export function renderAwaitingSummary(ending: AwaitingApproval): string {
  const words = describeEnding(ending)
  const lines = [`### ${words.icon} ${escapeMarkdown(words.headline)}`, '', words.detail ?? '', '']
  const { pin } = ending
  if (pin && !ending.refused) {
    const commit = pin.kind === 'commit'
    lines.push(
      commit
        ? 'To approve this commit, comment on the pull request:'
        : `To approve ${escapeMarkdown(pin.item)} as it reads now, comment on the issue:`,
      '',
      '```',
      approveLine(pinValue(pin)),
      '```',
      '',
      ...(commit
        ? [
            "or approve the pull request in a review of this commit, then re-run the waiting job (a review's own workflow run starts it only where the workflow runs on `pull_request_review` with the key: never on a fork's pull request).",
            '',
          ]
        : []),
    )
  }
  return lines.join('\n')
}

/**
 * Facts as a two-column table. GitHub's tables need a header row: the first fact is it, so no
 * empty header shows as a blank strip above the table.
 */
export function factsTable(rows: ReadonlyArray<[string, string]>): string[] {
  const [first, ...rest] = rows
  if (!first) return []
  return [
    `| **${first[0]}** | ${first[1]} |`,
    '|---|---|',
    ...rest.map(([field, value]) => `| **${field}** | ${value} |`),
  ]
}

function durationOf(outcome: StepOutcome): string | undefined {
  const fromService = outcome.run?.run_time ? parseIsoDuration(outcome.run.run_time) : undefined
  if (fromService !== undefined) return formatDuration(fromService)
  if (outcome.kind === 'finished' || outcome.kind === 'timed-out')
    return formatDuration(outcome.elapsedMs)
  return undefined
}

/** `owner/repo#12` for a GitHub pull request URL, else the URL itself. */
function pullRequestLabel(url: string): string {
  const match = /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/pull\/(\d+)/.exec(url)
  return match ? `${match[1]}#${match[2]}` : url
}
