/**
 * The ledger as a person reads it: the job summary's (or `--summary`'s) Markdown, with the
 * credits per day as a Mermaid `xychart-beta` chart, which GitHub and GitLab both render. Every
 * name from a run's tags is escaped: tags are text anyone with the key could have set. Pure.
 */
import { factsTable } from '../report/summary.ts'
import { formatCredits, formatDecimal } from '../text/format.ts'
import { escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import { MAX_READS } from './followups.ts'
import type { Group, KeySpend, Ledger, Spend, ThreadSpend } from './sums.ts'
import { TOP } from './sums.ts'

/** Where a thread's page is: the forges' web addresses. */
export interface ThreadLinks {
  /** GitHub's (GITHUB_SERVER_URL), github.com when undefined. */
  readonly github?: string
  /** GitLab's (CI_SERVER_URL); without it, a merge request is not linked. */
  readonly gitlab?: string
}

/** The summary of a ledger. */
export function renderLedger(ledger: Ledger, links: ThreadLinks = {}): string {
  const { totals } = ledger
  const where = ledger.scope === 'project' ? escapeMarkdown(ledger.project ?? '') : 'every project'
  const lines = [
    `### 💳 Agent runs: ${formatCredits(totals.credits)} in ${escapeMarkdown(ledger.period.label)}`,
    '',
    ...factsTable([
      ['Scope', where],
      ['Period', `${stamp(ledger.period.from)} to ${stamp(ledger.period.to)} UTC`],
      ['Runs', runsText(totals.runs, totals.children)],
      ['Credits', formatCredits(totals.credits)],
      ['Runs that did not succeed', spendText(totals.notSucceeded)],
      ['Runs still going', `${spendText(totals.running)} so far`],
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
  lines.push(...chart(ledger.byDay), '')
  lines.push(...threadTable(ledger.byThread, links))
  lines.push(...keyTable(ledger.byKey, ledger.scope))
  lines.push(...groupTable('By outcome', 'Outcome', ledger.byOutcome))
  lines.push(...groupTable('By workflow or pipeline', 'Workflow', ledger.byWorkflow))
  if (ledger.scope === 'all') lines.push(...groupTable('By project', 'Project', ledger.byProject))
  lines.push(...budgetLines(ledger))
  return lines.join('\n')
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
      : `: about ${formatCredits(steering.savedCredits)} saved (a run that was not steered used ${formatCredits(steering.restartCredits)}, the median)`
  const partial = steering.complete ? '' : ` (the ${MAX_READS} costliest steered runs read)`
  return [['Steering', `${took}${saved}${partial}`]]
}

/** `2026-11-21 07:00`: an RFC 3339 instant to the minute. */
function stamp(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ')
}

function spendText(spend: Spend): string {
  return `${formatDecimal(spend.runs, 0)} ${spend.runs === 1 ? 'run' : 'runs'}, ${formatCredits(spend.credits)}`
}

/** Credits per day, as a bar chart. Its labels are dates and its values numbers: nothing to escape. */
function chart(days: Ledger['byDay']): string[] {
  const top = Math.max(1, ...days.map((day) => day.credits))
  return [
    '```mermaid',
    'xychart-beta',
    '    title "Credits per day (UTC)"',
    `    x-axis [${days.map((day) => `"${day.day.slice(5)}"`).join(', ')}]`,
    `    y-axis "Credits" 0 --> ${Math.ceil(top * 1.1)}`,
    `    bar [${days.map((day) => formatDecimal(day.credits, 2).replace(/,/g, '')).join(', ')}]`,
    '```',
  ]
}

function threadTable(threads: readonly ThreadSpend[], links: ThreadLinks): string[] {
  if (threads.length === 0) return []
  const lines = [
    `#### The ${Math.min(TOP, threads.length)} costliest pull and merge requests`,
    '',
    '| Thread | Project | Runs | Credits |',
    '| --- | --- | ---: | ---: |',
  ]
  for (const one of threads.slice(0, TOP)) {
    const name = one.forge === 'gitlab' ? `!${one.thread}` : `#${one.thread}`
    const url = threadUrl(one, links)
    const cell = url ? `[${name}](${url})` : name
    lines.push(
      `| ${cell} | ${escapeMarkdown(one.project)} | ${formatDecimal(one.runs, 0)} | ${formatDecimal(one.credits, 2)} |`,
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

function keyTable(keys: readonly KeySpend[], scope: Ledger['scope']): string[] {
  const lines = [
    `#### The ${Math.min(TOP, keys.length)} costliest keys`,
    '',
    scope === 'all' ? '| Key | Project | Runs | Credits |' : '| Key | Runs | Credits |',
    scope === 'all' ? '| --- | --- | ---: | ---: |' : '| --- | ---: | ---: |',
  ]
  for (const one of keys.slice(0, TOP)) {
    const project = scope === 'all' ? ` ${escapeMarkdown(one.project)} |` : ''
    lines.push(
      `| ${escapeMarkdown(one.key)} |${project} ${formatDecimal(one.runs, 0)} | ${formatDecimal(one.credits, 2)} |`,
    )
  }
  return [...lines, '']
}

function groupTable(title: string, column: string, groups: readonly Group[]): string[] {
  const lines = [`#### ${title}`, '', `| ${column} | Runs | Credits |`, '| --- | ---: | ---: |']
  for (const group of groups.slice(0, TOP)) {
    lines.push(
      `| ${escapeMarkdown(group.name)} | ${formatDecimal(group.runs, 0)} | ${formatDecimal(group.credits, 2)} |`,
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
      ? `the costliest day, ${busiest.day}, used ${formatCredits(busiest.credits)} (${percent(busiest.credits, daily.limit)})${ledger.scope === 'all' ? ` in ${escapeMarkdown(busiest.project)}` : ''}; ${reachedText(daily.reached, 'day')}`
      : 'no run'
    lines.push(`| \`daily_credit_budget\` | ${formatCredits(daily.limit)} | ${use} |`)
  }
  if (pullRequest) {
    const top = pullRequest.costliest
    const use = top
      ? `the costliest thread, ${escapeMarkdown(top.project)} ${top.forge === 'gitlab' ? '!' : '#'}${top.thread}, used ${formatCredits(top.credits)} (${percent(top.credits, pullRequest.limit)}); ${reachedText(pullRequest.reached, 'thread')}`
      : 'no run on a pull or merge request'
    lines.push(`| \`pr_credit_budget\` | ${formatCredits(pullRequest.limit)} | ${use} |`)
  }
  lines.push(
    '',
    '_A step counts the daily budget over the last 24 hours and the pull request budget over every run of the thread; the table counts UTC days and this period._',
    '',
  )
  return lines
}

function percent(credits: number, limit: number): string {
  return `${formatDecimal((credits / limit) * 100, 0)}% of it`
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
