import { costOf, describeCost, describeOverBudget } from '../agent/cost.ts'
import type { RunItem } from '../api/types.ts'
import {
  describeInvalidOutput,
  endingOf,
  failureNotes,
  outcomeOf,
  passes,
  whyItEnded,
  type Outcome,
} from '../model/outcome.ts'
import { meaningOf } from '../model/states.ts'
import type { ArtifactEntry } from '../agent/artifacts.ts'
import { renderAnswerBlock, renderArtifacts, renderBlocked } from './agent-work.ts'
import { formatDuration } from '../text/format.ts'
import { describeCancel } from '../model/cancel.ts'
import { blockedQuestion } from '../model/blocked.ts'
import type { StepOutcome } from '../model/step.ts'
import { parseIsoDuration, pullRequestUrlOf, statusMessageOf } from '../model/run.ts'
import { escapeMarkdown, inlineText, safeHttpUrl } from '../text/markdown.ts'
import { clip } from '../text/plain.ts'

/** What the step's outcome means for the workflow: pass or fail, and the words for it. */
export interface Verdict {
  passed: boolean
  /** The contract's one word for how the step ended (the `outcome` output). */
  outcome: Outcome
  headline: string
  /** Why the run ended, in plain words (service text unescaped: escape it where it is shown). */
  why: string
  /** For a failed step: the error annotation's text. */
  failure?: string
}

export function verdictOf(outcome: StepOutcome): Verdict {
  const ending = endingOf(outcome)
  const word = outcomeOf(ending)
  const passed = passes(word, ending)
  const why = whyItEnded(ending)
  const base = { passed, outcome: word, why }
  switch (outcome.kind) {
    case 'started':
      return {
        ...base,
        headline: `${nameOf(outcome.run)} started (${outcome.run.state}); not waiting for it`,
      }
    case 'finished': {
      const { run } = outcome
      if (outcome.invalidOutput) {
        return {
          ...base,
          headline: `${nameOf(run)} gave a result that does not validate`,
          failure: `Run ${run.run_id}: the agent's result ${describeInvalidOutput(outcome.invalidOutput)}`,
        }
      }
      if (meaningOf(run.state) === 'succeeded')
        return { ...base, headline: `${nameOf(run)} succeeded` }
      if (outcome.supersededBy) {
        return { ...base, headline: `${nameOf(run)} was superseded by run ${outcome.supersededBy}` }
      }

      const reason = statusMessageOf(run)
      return {
        ...base,
        why: reason ? why : `${why.replace(/\.$/, '')}; the service gave no status message.`,
        headline: `${nameOf(run)} ${FINISHED_HEADLINES[base.outcome] ?? `ended ${run.state}`}`,
        failure: `Run ${run.run_id} ended ${run.state}${reason ? `: ${reason}` : ' (the service gave no status message)'}`,
      }
    }
    case 'timed-out': {
      const { run, stateAtTimeout } = outcome
      const cancel = describeCancel(run.run_id, outcome.cancel)
      // The cancel's refusal says BLOCKED and why; any other state is said here.
      const state = outcome.cancel.kind === 'blocked' ? '' : ` it was ${stateAtTimeout}.`
      return {
        ...base,
        why: `${why} ${cancel}`,
        headline: `${nameOf(run)} timed out`,
        failure: `Run ${run.run_id} did not finish within the timeout input (${formatDuration(outcome.timeoutMs)});${state} ${cancel}`,
      }
    }
    case 'over-budget': {
      const { run } = outcome
      const cancel = describeCancel(run.run_id, outcome.cancel)
      return {
        ...base,
        why: `${why} ${cancel}`,
        headline: `${nameOf(run)} went over budget`,
        failure: `${describeOverBudget(outcome.cost, outcome.maxCredits)} (run ${run.run_id}). ${cancel}`,
      }
    }
    case 'blocked': {
      const { run } = outcome
      return {
        ...base,
        headline: `${nameOf(run)} is blocked, waiting for a person`,
        failure: outcome.passes
          ? undefined
          : `Run ${run.run_id} is BLOCKED: it waits for a person (on_blocked: fail). It stays BLOCKED until someone answers in the session.`,
      }
    }
    case 'interrupted': {
      const runId = outcome.run?.run_id
      const cancel = runId && outcome.cancel ? ` ${describeCancel(runId, outcome.cancel)}` : ''
      return {
        ...base,
        why: `${why}${cancel}`,
        headline: outcome.run
          ? `${nameOf(outcome.run)} was interrupted: the workflow was cancelled`
          : 'Interrupted: the workflow was cancelled',
        failure: `The workflow was cancelled${outcome.signal ? ` (${outcome.signal})` : ''}, which interrupted this step.${cancel}`,
      }
    }
  }
}

/** A run that ended on its own, other than by succeeding: one name per outcome, as elsewhere. */
const FINISHED_HEADLINES: Partial<Record<Outcome, string>> = {
  failed: 'failed',
  error: "ended in an error on the service's side",
  cancelled: 'was cancelled elsewhere',
}

/** The run's title, else `Run <id>`: what the summary's headline calls it. */
function nameOf(run: RunItem): string {
  const title = run.title?.trim()
  return title ? clip(title.replace(/\s+/g, ' '), 200) : `Run ${run.run_id}`
}

/** The run's usage as `key: value` pairs, for the summary; numbers and short strings only. */
export function usageOf(run: RunItem): string | undefined {
  const entries = Object.entries(run.request_usage ?? {}).filter(
    ([, value]) => typeof value === 'number' || (typeof value === 'string' && value.length <= 64),
  )
  if (entries.length === 0) return undefined
  return entries.map(([key, value]) => `${key.replace(/_/g, ' ')}: ${String(value)}`).join(', ')
}

const ICONS = { passed: '✅', failed: '❌', started: '🚀', blocked: '✋' } as const

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
  now?: number
}

/** The job summary, as GitHub-flavoured Markdown. Every text from the API is escaped. */
export function renderSummary(outcome: StepOutcome, extras: SummaryExtras = {}): string {
  const verdict = verdictOf(outcome)
  const icon =
    outcome.kind === 'started'
      ? ICONS.started
      : outcome.kind === 'blocked'
        ? ICONS.blocked
        : verdict.passed
          ? ICONS.passed
          : ICONS.failed
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
    const cost = describeCost(costOf(run.request_usage))
    const usage = cost ?? usageOf(run)
    if (usage) rows.push([cost ? 'Cost' : 'Usage', escapeMarkdown(usage)])
    const message = statusMessageOf(run)
    if (message && !verdict.passed) {
      rows.push(['Status message', inlineText(clip(message, 2000))])
    }
  }
  const lines = [
    `### ${icon} ${escapeMarkdown(verdict.headline)}`,
    '',
    escapeMarkdown(verdict.why),
    '',
  ]
  if (rows.length > 0) lines.push(...factsTable(rows), '')
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
  const answer = renderAnswerBlock(extras.answer)
  if (answer) lines.push(answer, '')
  const artifacts =
    extras.artifacts &&
    renderArtifacts(extras.artifacts, extras.downloadedTo ?? new Map(), extras.downloadDir)
  if (artifacts) lines.push(artifacts, '')
  return lines.join('\n')
}

/** The job summary of a step that failed before it had an outcome (bad input, lost contact, …). */
export function renderErrorSummary(message: string, runId: string | undefined): string {
  const lines = [`### ${ICONS.failed} The step failed`, '']
  if (runId) lines.push(...factsTable([['Run', `<code>${escapeMarkdown(runId)}</code>`]]), '')
  lines.push(escapeMarkdown(message), '')
  return lines.join('\n')
}

/**
 * Facts as a two-column table. GitHub's tables need a header row: the first fact is it, so no
 * empty header shows as a blank strip above the table.
 */
function factsTable(rows: ReadonlyArray<[string, string]>): string[] {
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
