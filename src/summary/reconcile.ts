import { formatDuration } from '../text/format.ts'
import { escapeMarkdown, inlineText, safeHttpUrl } from '../text/markdown.ts'
import { writeSummary } from './publish.ts'
import type { StepIo } from '../step-io.ts'

/** What a pass did (or, in a dry run, would do) with one run. */
export type RowAction = 'finalized' | 'swept' | 'left' | 'up-to-date' | 'failed'

/** One run, as the pass's table shows it. */
export interface PassRow {
  runId: string
  title?: string
  state: string
  sessionLink?: string
  action: RowAction
  why: string
}

export interface PassReport {
  rows: PassRow[]
  /** The service could not filter by metadata: every run in the window was listed. */
  filteredHere: boolean
  dryRun: boolean
  lookbackMs: number
}

/** The table's order: what changed first, then what could not be done, then the rest. */
const ORDER: Record<RowAction, number> = {
  finalized: 0,
  swept: 1,
  failed: 2,
  left: 3,
  'up-to-date': 4,
}

const WORDS: Record<RowAction, { done: string; dry: string }> = {
  finalized: { done: '🏁 Finalized', dry: '🏁 Would finalize' },
  swept: { done: '🧹 Swept (cancelled)', dry: '🧹 Would sweep (cancel)' },
  failed: { done: '⚠️ Failed', dry: '⚠️ Failed' },
  left: { done: 'Left', dry: 'Left' },
  'up-to-date': { done: 'Up to date', dry: 'Up to date' },
}

/** Rows beyond this are counted, not listed: a summary stays readable (and under 1 MiB). */
const MAX_ROWS = 200

/** The job summary of one pass: a headline with the counts, and one table of every run. */
export function renderPassSummary(report: PassReport): string {
  const count = (action: RowAction) => report.rows.filter((row) => row.action === action).length
  const dry = report.dryRun
  const headline = [
    `${count('finalized')} ${dry ? 'to finalize' : 'finalized'}`,
    `${count('swept')} ${dry ? 'to sweep' : 'swept'}`,
    `${count('left')} left`,
    `${count('up-to-date')} up to date`,
    ...(count('failed') > 0 ? [`${count('failed')} failed`] : []),
  ].join(', ')
  const lines = [
    `### 🔁 Reconcile pass${dry ? ' (dry run: nothing was changed)' : ''}`,
    '',
    `${report.rows.length} run(s) updated within ${formatDuration(report.lookbackMs)}: ${headline}.`,
    '',
  ]
  if (report.filteredHere) {
    lines.push(
      '> [!NOTE]',
      "> The service cannot filter runs by metadata on this plan, so the pass listed every run in the window and kept this repository's.",
      '',
    )
  }
  if (report.rows.length === 0) return lines.join('\n')
  const sorted = [...report.rows].sort((a, b) => ORDER[a.action] - ORDER[b.action])
  lines.push('| Run | State | Done | Why |', '|---|---|---|---|')
  for (const row of sorted.slice(0, MAX_ROWS)) {
    const words = WORDS[row.action]
    lines.push(
      `| ${runCell(row)} | ${escapeMarkdown(row.state)} | ${dry ? words.dry : words.done} | ${inlineText(row.why)} |`,
    )
  }
  if (sorted.length > MAX_ROWS) {
    lines.push('', `…and ${sorted.length - MAX_ROWS} more run(s), in the log.`)
  }
  lines.push('')
  return lines.join('\n')
}

/** The run: its title and ID, linked to its session when there is a link. */
function runCell(row: PassRow): string {
  const id = `<code>${escapeMarkdown(row.runId)}</code>`
  const title = row.title?.trim() ? `${inlineText(row.title.trim().slice(0, 80))} ` : ''
  const session = safeHttpUrl(row.sessionLink)
  return session ? `${title}[${id}](${session})` : `${title}${id}`
}

/**
 * The pass's outputs and job summary. It fails the step only when it could do
 * nothing: something was to be done, and every attempt failed.
 */
export async function publishPass(io: StepIo, report: PassReport): Promise<void> {
  const ids = (action: RowAction) =>
    report.dryRun ? [] : report.rows.filter((row) => row.action === action).map((row) => row.runId)
  io.setOutput('finalized', JSON.stringify(ids('finalized')))
  io.setOutput('swept', JSON.stringify(ids('swept')))
  await writeSummary(io, renderPassSummary(report))
  const failed = report.rows.filter((row) => row.action === 'failed').length
  const done = report.rows.filter((row) => row.action === 'finalized' || row.action === 'swept')
  if (failed > 0 && done.length === 0) {
    io.setFailed(
      `The reconcile pass could do nothing: all ${failed} run(s) it had to finish or sweep failed (see the warnings above).`,
    )
  }
}
