/**
 * The ledger as a person reads it: the job summary's (or `--summary`'s) Markdown, in the unit
 * the account is billed in (the ledger's), with the spend per day as a Mermaid `xychart-beta`
 * chart, which GitHub and GitLab both render. Every name from a run's tags is escaped: tags are
 * text anyone with the key could have set. Pure.
 */
import { formatAmount, type Amount, type Unit } from '../model/money.ts'
import { factsTable } from '../summary/summary.ts'
import { formatCredits, formatDecimal, formatUsd } from '../text/format.ts'
import { escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import { MAX_READS } from './followups.ts'
import { campaignSection } from './render-campaign.ts'
import type { Group, KeySpend, Ledger, Spend, ThreadSpend } from './sums.ts'
import { costIn, TOP } from './sums.ts'

/** Where a thread's page is: the forges' web addresses. */
export interface ThreadLinks {
  /** GitHub's (GITHUB_SERVER_URL), github.com when undefined. */
  readonly github?: string
  /** GitLab's (CI_SERVER_URL); without it, a merge request is not linked. */
  readonly gitlab?: string
}

/** The summary of a ledger. */
export function renderLedger(ledger: Ledger, links: ThreadLinks = {}): string {
  const { totals, unit } = ledger
  const where = ledger.campaign
    ? `campaign ${escapeMarkdown(ledger.campaign)}, every repository`
    : ledger.scope === 'project'
      ? escapeMarkdown(ledger.project ?? '')
      : 'every project'
  const lines = [
    `### 💳 Agent runs: ${moneyOf(totals, unit)} in ${escapeMarkdown(ledger.period.label)}`,
    '',
    ...factsTable([
      ['Scope', where],
      ['Period', `${stamp(ledger.period.from)} to ${stamp(ledger.period.to)} UTC`],
      ['Runs', runsText(totals.runs, totals.children)],
      ['Spend', spendFact(ledger)],
      ['Runs that did not succeed', spendText(totals.notSucceeded, unit)],
      ['Runs still going', `${spendText(totals.running, unit)} so far`],
      ...steeringFact(ledger),
    ]),
    '',
  ]
  if (!ledger.complete) {
    lines.push(
      '> [!WARNING]',
      '> The service listed more runs than the report reads (100,000): every figure is a lower bound.',
      '',
    )
  }
  if (totals.runs === 0) {
    lines.push('No run of the action was created in this period.', '')
    return lines.join('\n')
  }
  if (ledger.campaign && ledger.tracking) {
    // A campaign's repositories lead, and stand in for the threads, keys, workflows and projects.
    const money = {
      unit,
      column: columnOf(unit),
      cell: (one: Pick<Spend, 'credits' | 'costUsd'>) => cellOf({ runs: 0, ...one }, unit),
    }
    lines.push(...campaignSection(ledger.campaign, ledger.tracking, money))
    lines.push(...chart(ledger.byDay, unit), '')
    lines.push(...groupTable('By outcome', 'Outcome', ledger.byOutcome, unit))
    lines.push(...budgetLines(ledger))
    return lines.join('\n')
  }
  lines.push(...chart(ledger.byDay, unit), '')
  lines.push(...threadTable(ledger.byThread, links, unit))
  lines.push(...keyTable(ledger.byKey, ledger.scope, unit))
  lines.push(...groupTable('By outcome', 'Outcome', ledger.byOutcome, unit))
  lines.push(...groupTable('By workflow or pipeline', 'Workflow', ledger.byWorkflow, unit))
  if (ledger.scope === 'all') {
    const title = ledger.campaign ? 'By repository' : 'By project'
    lines.push(
      ...groupTable(title, ledger.campaign ? 'Repository' : 'Project', ledger.byProject, unit),
    )
  }
  lines.push(...budgetLines(ledger))
  return lines.join('\n')
}

/** A spend in the ledger's unit: `$12.30`, `1,230 credits`. */
function moneyOf(spend: Pick<Spend, 'credits' | 'costUsd'>, unit: Unit): string {
  return formatAmount({ value: costIn(spend, unit), unit })
}

/** A table cell's figure in the ledger's unit: `12.30`. */
function cellOf(spend: Spend, unit: Unit): string {
  return formatDecimal(costIn(spend, unit), 2, unit === 'usd' ? 2 : 0)
}

/** The column that holds it. */
function columnOf(unit: Unit): string {
  return unit === 'usd' ? 'Cost (USD)' : 'Credits'
}

/**
 * Both units where the service reports both, the ledger's first; and how many runs report no
 * dollars, where some do not (the summary is then in credits).
 */
function spendFact(ledger: Ledger): string {
  const { totals, unit } = ledger
  const both =
    unit === 'usd'
      ? `${formatUsd(totals.costUsd)} (${formatCredits(totals.credits)})`
      : totals.costUsd > 0
        ? `${formatCredits(totals.credits)} (${formatUsd(totals.costUsd)} for the runs that report dollars)`
        : formatCredits(totals.credits)
  if (totals.withoutUsd === 0 || unit === 'usd') return both
  const runs = `${formatDecimal(totals.withoutUsd, 0)} ${totals.withoutUsd === 1 ? 'run reports' : 'runs report'}`
  return `${both}; ${runs} no dollar figure, so the report is in credits`
}

/** What steering saved, as a fact row; none when no run was made to be steered. */
function steeringFact(ledger: Ledger): [string, string][] {
  const steering = ledger.steering
  if (!steering) return []
  const { runs, followups } = steering
  const took = `${formatDecimal(runs, 0)} steered ${runs === 1 ? 'run' : 'runs'} took ${formatDecimal(followups, 0)} ${followups === 1 ? 'follow-up' : 'follow-ups'} in place of as many new runs`
  const saved =
    followups === 0
      ? ''
      : `: about ${moneyOf({ credits: steering.savedCredits, costUsd: steering.savedCostUsd }, ledger.unit)} saved (a run that was not steered used ${moneyOf({ credits: steering.restartCredits, costUsd: steering.restartCostUsd }, ledger.unit)}, the median)`
  const partial = steering.complete ? '' : ` (the ${MAX_READS} costliest steered runs read)`
  return [['Steering', `${took}${saved}${partial}`]]
}

/** `2026-11-21 07:00`: an RFC 3339 instant to the minute. */
function stamp(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ')
}

function spendText(spend: Spend, unit: Unit): string {
  return `${formatDecimal(spend.runs, 0)} ${spend.runs === 1 ? 'run' : 'runs'}, ${moneyOf(spend, unit)}`
}

/** Spend per day, as a bar chart. Its labels are dates and its values numbers: nothing to escape. */
function chart(days: Ledger['byDay'], unit: Unit): string[] {
  const values = days.map((day) => costIn(day, unit))
  const top = Math.max(unit === 'usd' ? 0.01 : 1, ...values)
  const name = unit === 'usd' ? 'US dollars' : 'Credits'
  const axisTop = unit === 'usd' ? Math.ceil(top * 110) / 100 : Math.ceil(top * 1.1)
  return [
    '```mermaid',
    'xychart-beta',
    `    title "${name} per day (UTC)"`,
    `    x-axis [${days.map((day) => `"${day.day.slice(5)}"`).join(', ')}]`,
    `    y-axis "${name}" 0 --> ${axisTop}`,
    `    bar [${values.map((value) => formatDecimal(value, 2).replace(/,/g, '')).join(', ')}]`,
    '```',
  ]
}

function threadTable(threads: readonly ThreadSpend[], links: ThreadLinks, unit: Unit): string[] {
  if (threads.length === 0) return []
  const lines = [
    `#### The ${Math.min(TOP, threads.length)} costliest pull and merge requests`,
    '',
    `| Thread | Project | Runs | ${columnOf(unit)} |`,
    '| --- | --- | ---: | ---: |',
  ]
  for (const one of threads.slice(0, TOP)) {
    const name = one.forge === 'gitlab' ? `!${one.thread}` : `#${one.thread}`
    const url = threadUrl(one, links)
    const cell = url ? `[${name}](${url})` : name
    lines.push(
      `| ${cell} | ${escapeMarkdown(one.project)} | ${formatDecimal(one.runs, 0)} | ${cellOf(one, unit)} |`,
    )
  }
  return [...lines, '']
}

/** A thread's page on its forge, when its project is a path and the forge's address is known. */
function threadUrl(one: ThreadSpend, links: ThreadLinks): string | undefined {
  if (!/^[\w.-]+(?:\/[\w.-]+)+$/.test(one.project)) return undefined
  if (one.forge === 'gitlab') {
    const base = links.gitlab?.replace(/\/+$/, '')
    return base ? safeHttpUrl(`${base}/${one.project}/-/merge_requests/${one.thread}`) : undefined
  }
  if (one.forge !== 'github') return undefined
  const base = (links.github || 'https://github.com').replace(/\/+$/, '')
  // GitHub sends an issue's number to its pull request, and a pull request's to itself.
  return safeHttpUrl(`${base}/${one.project}/issues/${one.thread}`)
}

function keyTable(keys: readonly KeySpend[], scope: Ledger['scope'], unit: Unit): string[] {
  const column = columnOf(unit)
  const lines = [
    `#### The ${Math.min(TOP, keys.length)} costliest keys`,
    '',
    scope === 'all' ? `| Key | Project | Runs | ${column} |` : `| Key | Runs | ${column} |`,
    scope === 'all' ? '| --- | --- | ---: | ---: |' : '| --- | ---: | ---: |',
  ]
  for (const one of keys.slice(0, TOP)) {
    const project = scope === 'all' ? ` ${escapeMarkdown(one.project)} |` : ''
    lines.push(
      `| ${escapeMarkdown(one.key)} |${project} ${formatDecimal(one.runs, 0)} | ${cellOf(one, unit)} |`,
    )
  }
  return [...lines, '']
}

function groupTable(title: string, column: string, groups: readonly Group[], unit: Unit): string[] {
  const lines = [
    `#### ${title}`,
    '',
    `| ${column} | Runs | ${columnOf(unit)} |`,
    '| --- | ---: | ---: |',
  ]
  for (const group of groups.slice(0, TOP)) {
    lines.push(
      `| ${escapeMarkdown(group.name)} | ${formatDecimal(group.runs, 0)} | ${cellOf(group, unit)} |`,
    )
  }
  if (groups.length > TOP) lines.push(`| _and ${groups.length - TOP} more_ | | |`)
  return [...lines, '']
}

function budgetLines(ledger: Ledger): string[] {
  const { daily, pullRequest } = ledger.budgets
  if (!daily && !pullRequest) return []
  const lines = ['#### Budgets', '', '| Budget | Limit | In this period |', '| --- | ---: | --- |']
  if (daily) {
    const busiest = daily.busiest
    const use = busiest
      ? `the costliest day, ${busiest.day}, used ${inUnitOf(busiest.spent, daily.limit)} (${percent(busiest.spent, daily.limit)})${ledger.scope === 'all' ? ` in ${escapeMarkdown(busiest.project)}` : ''}; ${reachedText(daily.reached, 'day')}`
      : 'no run'
    lines.push(`| \`daily_credit_budget\` | ${formatAmount(daily.limit)} | ${use} |`)
  }
  if (pullRequest) {
    const top = pullRequest.costliest
    const use = top
      ? `the costliest thread, ${escapeMarkdown(top.project)} ${top.forge === 'gitlab' ? '!' : '#'}${top.thread}, used ${inUnitOf(costIn(top, pullRequest.limit.unit), pullRequest.limit)} (${percent(costIn(top, pullRequest.limit.unit), pullRequest.limit)}); ${reachedText(pullRequest.reached, 'thread')}`
      : 'no run on a pull or merge request'
    lines.push(`| \`pr_credit_budget\` | ${formatAmount(pullRequest.limit)} | ${use} |`)
  }
  lines.push(
    '',
    '_A step counts the daily budget over the last 24 hours and the pull request budget over every run of the thread; the table counts UTC days and this period._',
    '',
  )
  return lines
}

/** A figure in a budget's unit: a budget is shown in the unit it was written in. */
function inUnitOf(value: number, limit: Amount): string {
  return formatAmount({ value, unit: limit.unit })
}

function percent(spent: number, limit: Amount): string {
  return `${formatDecimal((spent / limit.value) * 100, 0)}% of it`
}

function reachedText(count: number, noun: string): string {
  if (count === 0) return `no ${noun} reached it`
  return `${formatDecimal(count, 0)} ${count === 1 ? noun : `${noun}s`} reached it`
}

/** The runs, and the runs their agents started (counted with them, not as runs of their own). */
function runsText(runs: number, children: number): string {
  const started =
    children > 0
      ? `, with ${formatDecimal(children, 0)} ${children === 1 ? 'run' : 'runs'} their agents started`
      : ''
  return `${formatDecimal(runs, 0)}${started}`
}
