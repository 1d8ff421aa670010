/**
 * The ledger's sums: what the runs of a period cost, in credits and in US dollars, in total and
 * by day, project, thread, workflow (or pipeline), key and outcome; the costliest threads and
 * keys; what the runs that did not succeed cost; each budget's use, in the unit it is written
 * in. Pure: rows in, figures out.
 */
import type { Amount, Unit } from '../model/money.ts'
import { roundTo } from '../text/format.ts'
import type { Forge } from '../world.ts'
import { daysOf, type Period } from './period.ts'
import type { CampaignTracking } from './repositories.ts'
import type { LedgerRow } from './rows.ts'

/**
 * Runs and what they used. A run whose agent started runs of its own counts as one run, with
 * its children's spend (each run's own usage, once): a child adds credits, never a run.
 */
export interface Spend {
  readonly runs: number
  readonly credits: number
  /** What the service billed in US dollars, for the runs that report it. */
  readonly costUsd: number
}

export interface Group extends Spend {
  readonly name: string
}

export interface ThreadSpend extends Spend {
  readonly forge: Forge | undefined
  readonly project: string
  readonly thread: number
}

export interface KeySpend extends Spend {
  readonly project: string
  readonly key: string
}

/** The budgets the workflows use, as the report measures the period against them. */
export interface Budgets {
  readonly daily: Amount | undefined
  readonly pullRequest: Amount | undefined
}

/** Each budget against the period, in the unit it is written in (`limit.unit`). */
export interface BudgetUse {
  /** daily_credit_budget: the costliest day of the period, per project, against the limit. */
  readonly daily?: {
    readonly limit: Amount
    /** `spent` is in the limit's unit. */
    readonly busiest: { day: string; project: string; spent: number } | undefined
    /** The days (per project) whose runs reached the limit. */
    readonly reached: number
  }
  /** pr_credit_budget: the costliest thread of the period against the limit. */
  readonly pullRequest?: {
    readonly limit: Amount
    readonly costliest: ThreadSpend | undefined
    readonly reached: number
  }
}

/**
 * The unit the summary shows: `usd` or `credits` as asked, or with `auto` dollars where every
 * run of the period that spent reports dollars, else credits.
 */
export type UnitChoice = Unit | 'auto'

export interface Ledger {
  readonly period: { from: string; to: string; label: string }
  readonly scope: 'project' | 'all'
  /** The project with `scope: project`. */
  readonly project?: string
  /** The campaign whose runs these are, of every repository (`campaign`). */
  readonly campaign?: string
  /** False when the service listed more runs than the report reads: every sum is a lower bound. */
  readonly complete: boolean
  /** The unit the summary, its tables and its chart show. */
  readonly unit: Unit
  readonly totals: Spend & {
    notSucceeded: Spend
    running: Spend
    children: number
    /** Runs that spent and report no dollar figure (an account billed in credits). */
    withoutUsd: number
  }
  /** Every day of the period, oldest first, zeros included. */
  readonly byDay: readonly (Spend & { day: string })[]
  readonly byProject: readonly Group[]
  readonly byThread: readonly ThreadSpend[]
  readonly byWorkflow: readonly Group[]
  readonly byKey: readonly KeySpend[]
  readonly byOutcome: readonly Group[]
  readonly budgets: BudgetUse
  /** What steering saved, when any run was made to be steered. */
  readonly steering?: SteeringSaved
  /** With `campaign`: per repository, its runs and pull request, the totals and the burndown. */
  readonly tracking?: CampaignTracking
}

/**
 * Steering's saving: each steering follow-up took the place of a new run, which would have cost
 * about what a run that was not steered costs here (the median, an estimate).
 */
export interface SteeringSaved {
  /** Runs made with previous_run: steer, and their follow-ups as their conversations show them. */
  readonly runs: number
  readonly followups: number
  /** What a run that was not steered used, the median: a restart's price. */
  readonly restartCredits: number
  /** followups × restartCredits. */
  readonly savedCredits: number
  /** The same in US dollars (0 where the runs report none). */
  readonly restartCostUsd: number
  readonly savedCostUsd: number
  /** False when more steered runs were made than the report reads conversations of. */
  readonly complete: boolean
}

/** How many of the costliest threads and keys the summary shows. */
export const TOP = 10

/** The ledger of `rows`, the runs of `period`. Groups come costliest first. */
export function sumUp(
  rows: readonly LedgerRow[],
  options: {
    period: Period
    scope: 'project' | 'all'
    project?: string
    campaign?: string | undefined
    budgets: Budgets
    complete: boolean
    /** The unit to show; `auto` when not given. */
    unit?: UnitChoice
    /** Run ID → its steering follow-ups, for the steered runs whose conversations were read. */
    followups?: ReadonlyMap<string, number>
  },
): Ledger {
  const { period } = options
  const withoutUsd = rows.filter(spentWithoutUsd).length
  const unit = unitOf(options.unit ?? 'auto', rows, withoutUsd)
  const byCost = (a: Spend, b: Spend) => costIn(b, unit) - costIn(a, unit)
  const days = new Map(daysOf(period).map((day) => [day, empty()]))
  for (const row of rows) add(days, row.created.slice(0, 10), row)
  const notSucceeded = rows.filter(
    (row) => row.outcome !== 'succeeded' && row.outcome !== 'working',
  )
  return {
    period: {
      from: new Date(period.from).toISOString(),
      to: new Date(period.to).toISOString(),
      label: period.label,
    },
    scope: options.scope,
    ...(options.project ? { project: options.project } : {}),
    ...(options.campaign ? { campaign: options.campaign } : {}),
    complete: options.complete,
    unit,
    totals: {
      ...spendOf(rows),
      notSucceeded: spendOf(notSucceeded),
      running: spendOf(rows.filter((row) => row.outcome === 'working')),
      children: rows.length - rows.filter(isTree).length,
      withoutUsd,
    },
    byDay: [...days].map(([day, spend]) => ({ day, ...rounded(spend) })),
    byProject: groups(rows, projectNames(rows), byCost),
    byThread: threads(rows, byCost),
    byWorkflow: groups(rows, (row) => row.workflow, byCost),
    byKey: keys(rows, byCost),
    byOutcome: groups(rows, (row) => row.outcome, byCost),
    budgets: budgetUse(rows, options.budgets),
    ...steeringOf(rows, options.followups ?? new Map()),
  }
}

/** A run that spent and reports no dollar figure: an account billed in credits. */
function spentWithoutUsd(row: LedgerRow): boolean {
  return row.costUsd === undefined && row.credits > 0
}

function unitOf(choice: UnitChoice, rows: readonly LedgerRow[], withoutUsd: number): Unit {
  if (choice !== 'auto') return choice
  const anyUsd = rows.some((row) => row.costUsd !== undefined)
  return anyUsd && withoutUsd === 0 ? 'usd' : 'credits'
}

/** A spend's figure in `unit`. */
export function costIn(spend: Pick<Spend, 'credits' | 'costUsd'>, unit: Unit): number {
  return unit === 'usd' ? spend.costUsd : spend.credits
}

/** A row's figure in `unit`; 0 where it reports none. */
function rowCostIn(row: LedgerRow, unit: Unit): number {
  return unit === 'usd' ? (row.costUsd ?? 0) : row.credits
}

function steeringOf(
  rows: readonly LedgerRow[],
  followups: ReadonlyMap<string, number>,
): { steering?: SteeringSaved } {
  const steered = rows.filter((row) => row.steered && isTree(row))
  if (steered.length === 0) return {}
  const count = [...followups.values()].reduce((sum, one) => sum + one, 0)
  const credits = restartPrice(rows, 'credits')
  const usd = restartPrice(rows, 'usd')
  return {
    steering: {
      runs: steered.length,
      followups: count,
      restartCredits: roundTo(credits, 4),
      savedCredits: roundTo(count * credits, 4),
      restartCostUsd: roundTo(usd, 4),
      savedCostUsd: roundTo(count * usd, 4),
      complete: followups.size === steered.length,
    },
  }
}

/** What a run that was not steered cost in `unit`, the median: a restart's price. */
function restartPrice(rows: readonly LedgerRow[], unit: Unit): number {
  // What a tree cost: a restart would start the agent's children again too.
  const treeCost = new Map<string, number>()
  for (const row of rows) {
    treeCost.set(row.rootRunId, (treeCost.get(row.rootRunId) ?? 0) + rowCostIn(row, unit))
  }
  const others = rows
    .filter((row) => isTree(row) && !row.steered && row.outcome !== 'working')
    .map((row) => treeCost.get(row.rootRunId) ?? rowCostIn(row, unit))
    .sort((a, b) => a - b)
  const middle = others.length / 2
  if (others.length === 0) return 0
  return others.length % 2 === 1
    ? (others[Math.floor(middle)] ?? 0)
    : ((others[middle - 1] ?? 0) + (others[middle] ?? 0)) / 2
}

interface Tally {
  runs: number
  credits: number
  usd: number
}

const empty = (): Tally => ({ runs: 0, credits: 0, usd: 0 })

/** Whether the row is a run of its own (a tree), not a child an agent started. */
function isTree(row: LedgerRow): boolean {
  return row.parentRunId === ''
}

/** A row's credits into `tally`; a run of it only for a tree, a child being part of its root's. */
function count(tally: Tally, row: LedgerRow): void {
  if (isTree(row)) tally.runs += 1
  tally.credits += row.credits
  tally.usd += row.costUsd ?? 0
}

function add<K>(tallies: Map<K, Tally>, key: K, row: LedgerRow): void {
  const tally = tallies.get(key) ?? empty()
  count(tally, row)
  tallies.set(key, tally)
}

/** To a cent's hundredth: sums of many small figures stay readable. */
const rounded = (tally: Tally): Spend => ({
  runs: tally.runs,
  credits: roundTo(tally.credits, 4),
  costUsd: roundTo(tally.usd, 4),
})

function spendOf(rows: readonly LedgerRow[]): Spend {
  const tally = empty()
  for (const row of rows) count(tally, row)
  return rounded(tally)
}

/** Order by cost, costliest first, in the ledger's unit. */
type ByCost = (a: Spend, b: Spend) => number

/** Costliest first; equal costs by name, so the order never depends on the list's. */
function costliestFirst<T extends Spend>(
  items: T[],
  byCost: ByCost,
  name: (item: T) => string,
): T[] {
  return items.sort((a, b) => byCost(a, b) || name(a).localeCompare(name(b)))
}

/**
 * A row's project as its group names it: the path, where the runs of the path name one forge or
 * none (the command's bare `--project` runs join their path's); `forge:path` where two forges'
 * projects share the path, which stay apart (v1.5, "one number per project").
 */
function projectNames(rows: readonly LedgerRow[]): (row: LedgerRow) => string {
  const forges = new Map<string, Set<string>>()
  for (const row of rows) {
    if (row.forge) forges.set(row.project, (forges.get(row.project) ?? new Set()).add(row.forge))
  }
  return (row) =>
    row.forge && (forges.get(row.project)?.size ?? 0) > 1
      ? `${row.forge}:${row.project}`
      : row.project
}

function groups(
  rows: readonly LedgerRow[],
  by: (row: LedgerRow) => string,
  byCost: ByCost,
): Group[] {
  const tallies = new Map<string, Tally>()
  for (const row of rows) add(tallies, by(row) || '(none)', row)
  const list = [...tallies].map(([name, tally]) => ({ name, ...rounded(tally) }))
  return costliestFirst(list, byCost, (group) => group.name)
}

/**
 * The thread a row counts under: the pull request it opened (v1.5: a run that opened a pull
 * request is listed under it), else the one it was started on. Each row under one thread.
 */
export function threadOf(row: LedgerRow): number | undefined {
  return row.pullRequest?.number ?? row.thread
}

function threads(rows: readonly LedgerRow[], byCost: ByCost): ThreadSpend[] {
  const tallies = new Map<string, { row: LedgerRow; thread: number; tally: Tally }>()
  for (const row of rows) {
    const thread = threadOf(row)
    if (thread === undefined) continue
    const id = `${row.forge ?? ''} ${row.project} ${thread}`
    const entry = tallies.get(id) ?? { row, thread, tally: empty() }
    count(entry.tally, row)
    tallies.set(id, entry)
  }
  const list = [...tallies.values()].map(({ row, thread, tally }) => ({
    forge: row.forge,
    project: row.project,
    thread,
    ...rounded(tally),
  }))
  return costliestFirst(
    list,
    byCost,
    (one) => `${one.project}#${String(one.thread).padStart(12, '0')}`,
  )
}

function keys(rows: readonly LedgerRow[], byCost: ByCost): KeySpend[] {
  const tallies = new Map<string, { row: LedgerRow; tally: Tally }>()
  for (const row of rows) {
    const id = `${row.project}\n${row.key}`
    const entry = tallies.get(id) ?? { row, tally: empty() }
    count(entry.tally, row)
    tallies.set(id, entry)
  }
  const list = [...tallies.values()].map(({ row, tally }) => ({
    project: row.project,
    key: row.key || '(none)',
    ...rounded(tally),
  }))
  return costliestFirst(list, byCost, (one) => `${one.project}\n${one.key}`)
}

/**
 * Each budget against the period: the daily budget per project and UTC day (the step counts a
 * rolling 24 hours, so a day here can read under a limit a step reached), the pull request
 * budget per thread (the step counts every run of the thread, whenever it ran: here, the
 * period's).
 */
function budgetUse(rows: readonly LedgerRow[], budgets: Budgets): BudgetUse {
  const use: { daily?: BudgetUse['daily']; pullRequest?: BudgetUse['pullRequest'] } = {}
  if (budgets.daily !== undefined) {
    const limit = budgets.daily
    const perDay = new Map<string, Tally>()
    for (const row of rows) add(perDay, `${row.created.slice(0, 10)}\n${row.project}`, row)
    const days = [...perDay].map(([id, tally]) => {
      const [day = '', project = ''] = id.split('\n')
      return { day, project, spent: costIn(rounded(tally), limit.unit) }
    })
    days.sort((a, b) => b.spent - a.spent || a.day.localeCompare(b.day))
    use.daily = {
      limit,
      busiest: days[0],
      reached: days.filter((day) => day.spent >= limit.value).length,
    }
  }
  if (budgets.pullRequest !== undefined) {
    const limit = budgets.pullRequest
    const all = threads(rows, (a, b) => costIn(b, limit.unit) - costIn(a, limit.unit))
    use.pullRequest = {
      limit,
      costliest: all[0],
      reached: all.filter((one) => costIn(one, limit.unit) >= limit.value).length,
    }
  }
  return use
}
