/**
 * A campaign's part of the report's summary (v1.5, "Tracking"): its totals, the burndown of its
 * pull requests (open against merged, per day, as a Mermaid chart) and one line per repository,
 * collapsed past 50 and cut at 500 so that the summary stays far under GitHub's 1 MiB; runs.csv
 * holds every repository. Names come from runs' tags, anyone's text: escaped and cut. Pure.
 */
import type { Unit } from '../model/money.ts'
import { pullAddressOf } from '../model/pull-status.ts'
import { factsTable } from '../summary/summary.ts'
import { formatDecimal } from '../text/format.ts'
import { escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import type { CampaignTracking, RepositoryLine } from './repositories.ts'

/** Past this many repositories, the table is folded away. */
export const OPEN_ROWS = 50
/** At most this many repositories are listed; runs.csv has every one. */
export const MAX_ROWS = 500
/** A name or URL longer than this is cut (a name) or not linked (a URL). */
const MAX_TEXT = 120

/** The campaign's lines of the summary. */
export function campaignSection(
  campaign: string,
  tracking: CampaignTracking,
  money: { unit: Unit; cell: (line: RepositoryLine) => string; column: string },
): string[] {
  const { pullRequests: pulls } = tracking
  const opened = pulls.draft + pulls.open + pulls.merged + pulls.closed + pulls.unknown
  const known = opened - pulls.unknown
  const lines = [
    `#### 🗺️ Campaign ${escapeMarkdown(campaign)}: ${formatDecimal(pulls.merged, 0)} of ${formatDecimal(opened, 0)} pull requests merged`,
    '',
    ...factsTable([
      ['Repositories', repositoriesFact(tracking, opened)],
      ['Pull requests', pullsFact(tracking)],
      ['Checks failing', openPulls(tracking.checksFailing)],
      ['Changes requested', openPulls(tracking.changesRequested)],
      ['Latest runs', outcomesFact(tracking.lines)],
    ]),
    '',
  ]
  if (known > 0) lines.push(...burndownChart(tracking.burndown), '')
  lines.push(...repositoryTable(tracking.lines, money))
  return lines
}

function openPulls(count: number): string {
  return `${formatDecimal(count, 0)} open ${count === 1 ? 'pull request' : 'pull requests'}`
}

function repositoriesFact(tracking: CampaignTracking, opened: number): string {
  const without = tracking.repositories - opened
  return `${formatDecimal(tracking.repositories, 0)}: ${formatDecimal(opened, 0)} with a pull request, ${formatDecimal(without, 0)} without`
}

function pullsFact({ pullRequests: pulls }: CampaignTracking): string {
  const parts = (
    [
      ['merged', pulls.merged],
      ['open', pulls.open],
      ['draft', pulls.draft],
      ['closed', pulls.closed],
      ['state unknown', pulls.unknown],
    ] as const
  )
    .filter(([, count]) => count > 0)
    .map(([word, count]) => `${formatDecimal(count, 0)} ${word}`)
  return parts.length > 0 ? parts.join(', ') : 'none yet'
}

/** How the repositories' latest runs ended, most common first. */
function outcomesFact(lines: readonly RepositoryLine[]): string {
  const counts = new Map<string, number>()
  for (const line of lines) counts.set(line.outcome, (counts.get(line.outcome) ?? 0) + 1)
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([outcome, count]) => `${formatDecimal(count, 0)} ${escapeMarkdown(outcome)}`)
    .join(', ')
}

/** Merged pull requests as bars and open ones as a line, per day: dates and counts only. */
function burndownChart(days: CampaignTracking['burndown']): string[] {
  const top = Math.max(1, ...days.map((day) => Math.max(day.open, day.merged)))
  return [
    '```mermaid',
    'xychart-beta',
    '    title "Pull requests per day (UTC): merged (bars), open (line)"',
    `    x-axis [${days.map((day) => `"${day.day.slice(5)}"`).join(', ')}]`,
    `    y-axis "Pull requests" 0 --> ${Math.ceil(top * 1.1)}`,
    `    bar [${days.map((day) => day.merged).join(', ')}]`,
    `    line [${days.map((day) => day.open).join(', ')}]`,
    '```',
  ]
}

function repositoryTable(
  lines: readonly RepositoryLine[],
  money: { cell: (line: RepositoryLine) => string; column: string },
): string[] {
  const shown = lines.slice(0, MAX_ROWS)
  const table = [
    `| Repository | Latest run | Pull request | State | Checks | Review | ${money.column} |`,
    '| --- | --- | --- | --- | --- | --- | ---: |',
    ...shown.map((line) => rowOf(line, money.cell(line))),
  ]
  if (lines.length > shown.length) {
    table.push(
      `| _and ${formatDecimal(lines.length - shown.length, 0)} more: runs.csv lists them_ | | | | | | |`,
    )
  }
  if (lines.length <= OPEN_ROWS) return [...table, '']
  return [
    '<details>',
    `<summary>The ${formatDecimal(lines.length, 0)} repositories, one line each (runs.csv in report_dir has them as data)</summary>`,
    '',
    ...table,
    '',
    '</details>',
    '',
  ]
}

function rowOf(line: RepositoryLine, cost: string): string {
  const status = line.status
  const known = status && !('unknown' in status) ? status : undefined
  const state = known
    ? known.state
    : status && 'unknown' in status
      ? `state unknown (${escapeMarkdown(status.unknown)})`
      : '–'
  const cells = [
    escapeMarkdown(cut(line.repository)),
    linked(escapeMarkdown(line.outcome), line.link),
    line.pullRequest ? linked(pullName(line.pullRequest), line.pullRequest) : 'none',
    state,
    known?.checks ?? '–',
    known?.review === 'changes_requested' ? 'changes requested' : (known?.review ?? '–'),
    cost,
  ]
  return `| ${cells.join(' | ')} |`
}

/** `#12` for a GitHub pull request, `!12` for a GitLab merge request, else `link`. */
function pullName(url: string): string {
  const address = pullAddressOf(url)
  if (address) return `#${address.number}`
  const merge = /\/-\/merge_requests\/(\d{1,9})\/?$/.exec(url)
  return merge?.[1] ? `!${merge[1]}` : 'link'
}

/** Text linked to `url` when it is a plain http(s) address of a sane length. */
function linked(text: string, url: string): string {
  const safe = url.length <= MAX_TEXT * 4 ? safeHttpUrl(url) : undefined
  return safe ? `[${text}](${safe})` : text
}

function cut(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`
}
