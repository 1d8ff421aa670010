import type { RunItem } from '../api/types.ts'
import { describeCancel } from '../run/cancel.ts'
import { meaningOf } from '../run/states.ts'
import type { StepOutcome } from '../run/step.ts'
import { formatElapsed } from '../run/wait.ts'

/** What the step's outcome means for the workflow: pass or fail, and the words for it. */
export interface Verdict {
  passed: boolean
  headline: string
  /** For a failed step: the error annotation's text. */
  failure?: string
}

export function verdictOf(outcome: StepOutcome): Verdict {
  switch (outcome.kind) {
    case 'started':
      return {
        passed: true,
        headline: `Run ${outcome.run.run_id} started (${outcome.run.state}); not waiting for it`,
      }
    case 'finished': {
      const { run } = outcome
      if (meaningOf(run.state) === 'succeeded')
        return { passed: true, headline: `Run ${run.run_id} succeeded` }
      const reason = statusMessageOf(run)
      return {
        passed: false,
        headline: `Run ${run.run_id} ended ${run.state}`,
        failure: `Run ${run.run_id} ended ${run.state}${reason ? `: ${reason}` : ' (the service gave no status message)'}`,
      }
    }
    case 'timed-out': {
      const { run, stateAtTimeout } = outcome
      const state =
        meaningOf(stateAtTimeout) === 'blocked'
          ? `${stateAtTimeout}, waiting for a person`
          : stateAtTimeout
      return {
        passed: false,
        headline: `Run ${run.run_id} timed out`,
        failure:
          `Run ${run.run_id} did not finish within the timeout input (${formatElapsed(outcome.timeoutMs)}); ` +
          `it was ${state}. ${describeCancel(run.run_id, outcome.cancel)}`,
      }
    }
    case 'interrupted': {
      const runId = outcome.run?.run_id
      const cancel = runId && outcome.cancel ? ` ${describeCancel(runId, outcome.cancel)}` : ''
      return {
        passed: false,
        headline: runId
          ? `Run ${runId} stopped: the workflow was cancelled`
          : 'The workflow was cancelled',
        failure: `The workflow cancelled this step${outcome.signal ? ` (${outcome.signal})` : ''}.${cancel}`,
      }
    }
  }
}

/** The pull request the run opened, from its artifacts, if it is an http(s) URL. */
export function pullRequestUrlOf(run: RunItem): string | undefined {
  for (const artifact of run.artifacts ?? []) {
    const url = artifact.artifact_type === 'PULL_REQUEST' ? artifact.data?.url : undefined
    if (typeof url === 'string' && safeHttpUrl(url)) return url
  }
  return undefined
}

/** The run's usage as `key: value` pairs, for the summary; numbers and short strings only. */
export function usageOf(run: RunItem): string | undefined {
  const entries = Object.entries(run.request_usage ?? {}).filter(
    ([, value]) => typeof value === 'number' || (typeof value === 'string' && value.length <= 64),
  )
  if (entries.length === 0) return undefined
  return entries.map(([key, value]) => `${key.replace(/_/g, ' ')}: ${String(value)}`).join(', ')
}

/** The run's own explanation of a failure, when there is one. */
export function statusMessageOf(run: RunItem): string | undefined {
  if (meaningOf(run.state) === 'succeeded') return undefined
  const message = run.status_message?.message?.trim()
  return message ? message : undefined
}

const ICONS = { passed: '✅', failed: '❌', started: '🚀' } as const

/** The job summary, as GitHub-flavoured Markdown. Every text from the API is escaped. */
export function renderSummary(outcome: StepOutcome): string {
  const verdict = verdictOf(outcome)
  const icon =
    outcome.kind === 'started' ? ICONS.started : verdict.passed ? ICONS.passed : ICONS.failed
  const run = outcome.run
  const rows: Array<[string, string]> = []
  if (run) {
    if (run.title) rows.push(['Title', escapeMarkdown(truncate(run.title, 1000))])
    rows.push(['Run ID', `<code>${escapeMarkdown(run.run_id)}</code>`])
    rows.push(['State', `<code>${escapeMarkdown(run.state)}</code>`])
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
    const usage = usageOf(run)
    if (usage) rows.push(['Usage', escapeMarkdown(usage)])
    const message = statusMessageOf(run)
    if (message && !verdict.passed) {
      rows.push(['Status message', escapeMarkdown(truncate(message, 2000))])
    }
  }
  const lines = [`### ${icon} ${escapeMarkdown(verdict.headline)}`, '']
  if (rows.length > 0) {
    lines.push(
      '| | |',
      '|---|---|',
      ...rows.map(([field, value]) => `| **${field}** | ${value} |`),
      '',
    )
  }
  const blockedState = outcome.kind === 'timed-out' ? outcome.stateAtTimeout : run?.state
  if (blockedState && meaningOf(blockedState) === 'blocked') {
    lines.push(
      '> [!WARNING]',
      '> The run is BLOCKED: it waits for a person to answer or approve in the session.',
      '',
    )
  }
  if (verdict.failure) lines.push(escapeMarkdown(verdict.failure), '')
  return lines.join('\n')
}

/** The job summary of a step that failed before it had an outcome (bad input, lost contact, …). */
export function renderErrorSummary(message: string, runId: string | undefined): string {
  const lines = [`### ${ICONS.failed} The step failed`, '']
  if (runId)
    lines.push('| | |', '|---|---|', `| **Run ID** | <code>${escapeMarkdown(runId)}</code> |`, '')
  lines.push(escapeMarkdown(message), '')
  return lines.join('\n')
}

function durationOf(outcome: StepOutcome): string | undefined {
  const fromService = outcome.run?.run_time ? parseIsoDuration(outcome.run.run_time) : undefined
  if (fromService !== undefined) return formatElapsed(fromService)
  if (outcome.kind === 'finished' || outcome.kind === 'timed-out')
    return formatElapsed(outcome.elapsedMs)
  return undefined
}

/** `PT2M30S` and the like, in milliseconds; undefined for anything else. */
export function parseIsoDuration(text: string): number | undefined {
  const match =
    /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      text,
    )
  if (!match || text === 'P' || text === 'PT') return undefined
  const [, days, hours, minutes, seconds] = match.map((part) => Number(part ?? 0))
  return Math.round(
    (((days ?? 0) * 24 + (hours ?? 0)) * 3600 + (minutes ?? 0) * 60 + (seconds ?? 0)) * 1000,
  )
}

/**
 * Makes API text inert in a Markdown table cell: HTML cannot open, a pipe
 * cannot end the cell, a line break cannot end the row, and Markdown syntax
 * (links, emphasis, code) shows as typed.
 */
export function escapeMarkdown(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- stripping control characters is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
      .replace(/[&<>"'|\\`*_[\]()#!~$]/g, (char) => `&#${char.charCodeAt(0)};`)
      .replace(/\r?\n/g, '<br>')
  )
}

/** The URL if it is http(s), percent-encoded so that it cannot break out of a Markdown link. */
export function safeHttpUrl(value: string | undefined): string | undefined {
  if (!value) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
  return url.href.replace(/[()<>"'\s|\\[\]`]/g, (char) => `%${hex(char)}`)
}

/** `owner/repo#12` for a GitHub pull request URL, else the URL itself. */
function pullRequestLabel(url: string): string {
  const match = /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/pull\/(\d+)/.exec(url)
  return match ? `${match[1]}#${match[2]}` : url
}

function hex(char: string): string {
  return char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}
