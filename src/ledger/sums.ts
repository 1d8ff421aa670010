/**
 * The ledger's sums: what the runs of a period cost, in total and by day, project, thread,
 * workflow (or pipeline), key and outcome; the costliest threads and keys; what the runs that
 * did not succeed cost; each budget's use. Pure: rows in, figures out.
 */
import { roundTo } from '../text/format.ts'
import type { Forge } from '../world.ts'
import { daysOf, type Period } from './period.ts'
import type { LedgerRow } from './rows.ts'

/**
 * Runs and what they used. A run whose agent started runs of its own counts as one run, with
 * its children's spend (each run's own usage, once): a child adds credits, never a run.
 */
export interface Spend {
  readonly runs: number
  readonly credits: number
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
  readonly daily: number | undefined
  readonly pullRequest: number | undefined
}

export interface BudgetUse {
  /** daily_credit_budget: the costliest day of the period, per project, against the limit. */
  readonly daily?: {
    readonly limit: number
    readonly busiest: { day: string; project: string; credits: number } | undefined
    /** The days (per project) whose runs reached the limit. */
    readonly reached: number
  }
  /** pr_credit_budget: the costliest thread of the period against the limit. */
  readonly pullRequest?: {
    readonly limit: number
    readonly costliest: ThreadSpend | undefined
    readonly reached: number
  }
}

export interface Ledger {
  readonly period: { from: string; to: string; label: string }
  readonly scope: 'project' | 'all'
  /** The project with `scope: project`. */
  readonly project?: string
  /** False when the service listed more runs than the report reads: every sum is a lower bound. */
  readonly complete: boolean
  readonly totals: Spend & { notSucceeded: Spend; running: Spend; children: number }
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
    budgets: Budgets
    complete: boolean
    /** Run ID → its steering follow-ups, for the steered runs whose conversations were read. */
    followups?: ReadonlyMap<string, number>
  },
): Ledger {
  const { period } = options
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
    complete: options.complete,
    totals: {
      ...spendOf(rows),
      notSucceeded: spendOf(notSucceeded),
      running: spendOf(rows.filter((row) => row.outcome === 'working')),
      children: rows.length - rows.filter(isTree).length,
    },
    byDay: [...days].map(([day, spend]) => ({ day, ...rounded(spend) })),
    byProject: groups(rows, projectNames(rows)),
    byThread: threads(rows),
    byWorkflow: groups(rows, (row) => row.workflow),
    byKey: keys(rows),
    byOutcome: groups(rows, (row) => row.outcome),
    budgets: budgetUse(rows, options.budgets),
    ...steeringOf(rows, options.followups ?? new Map()),
  }
}

function steeringOf(
  rows: readonly LedgerRow[],
  followups: ReadonlyMap<string, number>,
): { steering?: SteeringSaved } {
  const steered = rows.filter((row) => row.steered && isTree(row))
  if (steered.length === 0) return {}
  const count = [...followups.values()].reduce((sum, one) => sum + one, 0)
  // What a tree cost: a restart would start the agent's children again too.
  const treeCredits = new Map<string, number>()
  for (const row of rows) {
    treeCredits.set(row.rootRunId, (treeCredits.get(row.rootRunId) ?? 0) + row.credits)
  }
  const others = rows
    .filter((row) => isTree(row) && !row.steered && row.outcome !== 'working')
    .map((row) => treeCredits.get(row.rootRunId) ?? row.credits)
    .sort((a, b) => a - b)
  const middle = others.length / 2
  const median =
    others.length === 0
      ? 0
      : others.length % 2 === 1
        ? (others[Math.floor(middle)] ?? 0)
        : ((others[middle - 1] ?? 0) + (others[middle] ?? 0)) / 2
  return {
    steering: {
      runs: steered.length,
      followups: count,
      restartCredits: roundTo(median, 4),
      savedCredits: roundTo(count * median, 4),
      complete: followups.size === steered.length,
    },
  }
}

interface Tally {
  runs: number
  credits: number
}

const empty = (): Tally => ({ runs: 0, credits: 0 })

/** Whether the row is a run of its own (a tree), not a child an agent started. */
function isTree(row: LedgerRow): boolean {
  return row.parentRunId === ''
}

/** A row's credits into `tally`; a run of it only for a tree, a child being part of its root's. */
function count(tally: Tally, row: LedgerRow): void {
  if (isTree(row)) tally.runs += 1
  tally.credits += row.credits
}

function add<K>(tallies: Map<K, Tally>, key: K, row: LedgerRow): void {
  const tally = tallies.get(key) ?? empty()
  count(tally, row)
  tallies.set(key, tally)
}

/** Credits to the cent of a credit's hundredth: sums of many small figures stay readable. */
const rounded = (tally: Tally): Spend => ({
  runs: tally.runs,
  credits: roundTo(tally.credits, 4),
})

function spendOf(rows: readonly LedgerRow[]): Spend {
  const tally = empty()
  for (const row of rows) count(tally, row)
  return rounded(tally)
}

/** Costliest first; equal costs by name, so the order never depends on the list's. */
function costliestFirst<T extends Spend>(items: T[], name: (item: T) => string): T[] {
  return items.sort((a, b) => b.credits - a.credits || name(a).localeCompare(name(b)))
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

function groups(rows: readonly LedgerRow[], by: (row: LedgerRow) => string): Group[] {
  const tallies = new Map<string, Tally>()
  for (const row of rows) add(tallies, by(row) || '(none)', row)
  const list = [...tallies].map(([name, tally]) => ({ name, ...rounded(tally) }))
  return costliestFirst(list, (group) => group.name)
}

function threads(rows: readonly LedgerRow[]): ThreadSpend[] {
  const tallies = new Map<string, { row: LedgerRow; tally: Tally }>()
  for (const row of rows) {
    if (row.thread === undefined) continue
    const id = `${row.forge ?? ''} ${row.project} ${row.thread}`
    const entry = tallies.get(id) ?? { row, tally: empty() }
    count(entry.tally, row)
    tallies.set(id, entry)
  }
  const list = [...tallies.values()].map(({ row, tally }) => ({
    forge: row.forge,
    project: row.project,
    thread: row.thread ?? 0,
    ...rounded(tally),
  }))
  return costliestFirst(list, (one) => `${one.project}#${String(one.thread).padStart(12, '0')}`)
}

function keys(rows: readonly LedgerRow[]): KeySpend[] {
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
  return costliestFirst(list, (one) => `${one.project}\n${one.key}`)
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
      return { day, project, credits: rounded(tally).credits }
    })
    days.sort((a, b) => b.credits - a.credits || a.day.localeCompare(b.day))
    use.daily = {
      limit,
      busiest: days[0],
      reached: days.filter((day) => day.credits >= limit).length,
    }
  }
  if (budgets.pullRequest !== undefined) {
    const limit = budgets.pullRequest
    const all = threads(rows)
    use.pullRequest = {
      limit,
      costliest: all[0],
      reached: all.filter((one) => one.credits >= limit).length,
    }
  }
  return use
}
