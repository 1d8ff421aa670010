import { costOf } from '../agent/cost.ts'
import type { AgentRunsClient } from '../api/client.ts'
import type { CreditBudgets } from '../inputs/budgets.ts'
import type { Log } from '../log.ts'
import { HANDOFF_KEYS } from '../model/handoff.ts'
import { CREDIT_BUDGET_CHECK } from '../timing.ts'
import { changeName, homeScope, ofHomeForge, type RunHome } from '../model/home.ts'
import {
  amountInput,
  costIn,
  formatAmount,
  isUnpriced,
  otherUnit,
  unitName,
  type Amount,
} from '../model/money.ts'
import type { SpendCap } from '../model/spend-cap.ts'
import type { RunItem } from '../api/types.ts'
import { lookUpRunThatMade } from './continue-pr.ts'
import { listTaggedRuns } from './listing.ts'
import { readChildren } from './tree.ts'

/** The budgets, and `max_credits`, whose unit the check makes sure the service reports. */
export interface SpendLimits extends CreditBudgets {
  readonly maxCredits?: Amount | undefined
}

/** A budget that has been reached: nothing is to be created. */
export interface BudgetReached {
  input: 'daily_credit_budget' | 'pr_credit_budget'
  /** The line the step fails with: the budget, the sum and the window. */
  message: string
  /** Why, as a clause: what the runs used, and the budget it has reached. */
  why: string
}

/**
 * What the budgets say before a run is created: the first one reached (nothing is created), or
 * what the tightest had left, which caps the step's runs while they work (v1.5: a budget caps
 * the runs it admits).
 */
export interface BudgetCheck {
  readonly reached?: BudgetReached
  /** What each budget had left: the caps on the step's runs. */
  readonly caps: readonly SpendCap[]
}

/**
 * Checks the budgets before a run is created: one list request a page for each budget that is
 * set, summing, in the budget's unit, what the runs this action tagged with this repository (the
 * last 24 hours) or this pull request spent. The first budget that the sum has reached is
 * returned; else what each budget had left, as caps on the step's runs. A failure to list throws,
 * and so does a list cut short under the budget, and a dollar budget that meets a run reporting
 * no dollars (never counted as free): a budget that cannot be checked creates nothing.
 */
export async function checkCreditBudgets(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'listRuns'>,
  budgets: SpendLimits,
  home: RunHome,
  deps: { now: () => number; log: Log },
): Promise<BudgetCheck> {
  const deadline = deps.now() + CREDIT_BUDGET_CHECK.deadlineMs
  const project = homeScope(home, { byThread: false })
  const ofHome = { home, deadline, log: deps.log }
  if (budgets.daily === undefined && budgets.pullRequest === undefined) {
    if (budgets.maxCredits?.unit === 'usd' && project) {
      await probeUnit(client, project, {
        ...ofHome,
        input: 'max_credits',
        budget: budgets.maxCredits,
      })
    }
    return { caps: [] }
  }
  // The inputs refuse a budget with no project before any request; this holds the rule here too.
  if (!project) throw new Error('A credit budget needs a project to count by; none is named.')
  const caps: SpendCap[] = []
  if (budgets.daily !== undefined) {
    const since = new Date(deps.now() - CREDIT_BUDGET_CHECK.dailyWindowMs).toISOString()
    const daily = { input: 'daily_credit_budget', budget: budgets.daily } as const
    const spent = await spentOf(client, project, since, { ...ofHome, ...daily })
    const window = `in the last 24 hours (since ${since.replace(/\.\d+Z$/, 'Z')})`
    const runs = `the runs this action started for ${home.project} ${window}`
    const reached = judge('daily_credit_budget', budgets.daily, spent, runs, deps.log)
    if (reached) return { reached, caps }
    caps.push(leftOf('daily_credit_budget', budgets.daily, spent))
  }
  if (budgets.pullRequest !== undefined) {
    if (home.change === undefined) {
      deps.log.info(
        'pr_credit_budget: this step is about no pull or merge request; it does not apply.',
      )
      return { caps }
    }
    const counted = { input: 'pr_credit_budget', budget: budgets.pullRequest } as const
    const tags = { ...project, [HANDOFF_KEYS.thread]: String(home.change) }
    const onThread = await spentOf(client, tags, undefined, { ...ofHome, ...counted })
    // The run that opened the pull request counts too (its rounds are its own usage): once.
    const spent = await withRunThatMade(client, onThread, { home, deadline, ...counted })
    const where = `${changeName(home, home.change)} of ${home.project}`
    const runs = `the runs this action started for ${where} (all of them, whenever they ran)`
    const reached = judge('pr_credit_budget', budgets.pullRequest, spent, runs, deps.log)
    if (reached) return { reached, caps }
    caps.push(leftOf('pr_credit_budget', budgets.pullRequest, spent))
  }
  return { caps }
}

/** What a budget not reached had left: the cap on the runs it admits. */
function leftOf(input: SpendCap['input'], limit: Amount, spent: Spent): SpendCap {
  return {
    amount: { value: Math.max(0, limit.value - spent.value), unit: limit.unit },
    input,
    limit,
  }
}

/** How many of the project's latest runs a dollar `max_credits` looks at before the create. */
const UNIT_PROBE_RUNS = 20

/**
 * A dollar `max_credits` on an account billed in credits would meet a run with no dollar figure
 * only once it works: the project's latest runs (one request) tell before the create.
 */
async function probeUnit(
  client: Pick<AgentRunsClient, 'iterateRuns'>,
  tags: Record<string, string>,
  { home, deadline, input, budget }: { home: RunHome; deadline: number } & Counted,
): Promise<void> {
  const listed = await listTaggedRuns(
    client,
    tags,
    { limit: UNIT_PROBE_RUNS },
    {
      maxPages: 1,
      deadline,
    },
  )
  sumIn(
    listed.runs.filter((run) => ofHomeForge(run, home)),
    { input, budget },
  )
}

/** What the runs a budget counts used, in its unit, and whether every one of them was read. */
interface Spent {
  value: number
  /** How many runs were read. */
  runs: number
  /** False when the list was cut short: `credits` is then only a lower bound. */
  complete: boolean
  /** The runs read, so that none is counted twice. */
  runIds: ReadonlySet<string>
}

/**
 * The budget against what was spent. A sum that could not read every run is a
 * lower bound: past the budget it still proves the budget reached; under it, it
 * proves nothing, and the check refuses (throws) rather than under-count.
 */
function judge(
  input: BudgetReached['input'],
  budget: Amount,
  spent: Spent,
  runs: string,
  log: Log,
): BudgetReached | undefined {
  const sum = formatAmount({ value: spent.value, unit: budget.unit })
  const used = `${spent.complete ? '' : 'at least '}${sum}`
  log.info(`${input}: ${runs} used ${used} of ${formatAmount(budget)}.`)
  if (spent.value >= budget.value) {
    const why = `${runs} used ${used}, which has reached the ${input} of ${formatAmount(budget)}`
    return { input, why, message: `Over budget: ${why}. No run was created.` }
  }
  if (!spent.complete) {
    throw new Error(
      `${input} cannot be checked: the list of ${runs} is longer than the ${CREDIT_BUDGET_CHECK.maxPages} pages the check reads, and the ${spent.runs.toLocaleString('en-US')} runs on them used ${sum}, under the budget of ${formatAmount(budget)}; the rest cannot be added up, so the check refuses rather than under-count. No run was created.`,
    )
  }
  return undefined
}

/**
 * A budget in one unit cannot count a run that reports its spend only in the other (an account
 * billed in credits reports no dollars): rather than count it as free, the step stops here.
 */
export function refuseUnpriced(input: string, budget: Amount, run: RunItem): never {
  const cost = costOf(run.request_usage)
  const reported = otherUnit(budget.unit)
  const figure = formatAmount({ value: costIn(cost, reported) ?? 0, unit: reported })
  const example = reported === 'usd' ? '$5 or 5 USD' : '500 or 500 credits'
  throw new Error(
    `${input} is in ${unitName(budget.unit)} (${amountInput(budget)}), and run ${run.run_id} reports what it spent only in ${unitName(reported)} (${figure}): this account is billed in ${unitName(reported)}, and the run cannot be counted as free. Write ${input} in ${unitName(reported)}, such as ${example}. No run was created.`,
  )
}

/**
 * `pr_credit_budget` counts the run that opened the pull request (its PULL_REQUEST artifact
 * names it), with its children, and every follow-up round `continue_from` sent it, which are
 * its own usage: once, unless the thread's runs already hold it.
 */
async function withRunThatMade(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'listRuns'>,
  spent: Spent,
  { home, deadline, ...counted }: { home: RunHome; deadline: number } & Counted,
): Promise<Spent> {
  const made = await lookUpRunThatMade(client, home, deadline)
  if (!made || spent.runIds.has(made.run_id)) return spent
  const children = await readChildren(client, made.run_id, {}, { deadline })
  const value = sumIn([made, ...children], counted)
  return { ...spent, value: spent.value + value, runs: spent.runs + 1 }
}

/** A budget and its input. */
interface Counted {
  readonly input: BudgetReached['input'] | 'max_credits'
  readonly budget: Amount
}

/** What `runs` spent together in the budget's unit; a run with no figure in it refuses the check. */
function sumIn(runs: readonly RunItem[], { input, budget }: Counted): number {
  let sum = 0
  for (const run of runs) {
    const cost = costOf(run.request_usage)
    if (isUnpriced(cost, budget.unit)) refuseUnpriced(input, budget, run)
    sum += costIn(cost, budget.unit) ?? 0
  }
  return sum
}

/** What the home's runs carrying `tags` spent in `unit`, created after `since` when given. */
async function spentOf(
  client: Pick<AgentRunsClient, 'iterateRuns'>,
  tags: Record<string, string>,
  since: string | undefined,
  { home, deadline, log, ...counted }: { home: RunHome; deadline: number; log: Log } & Counted,
): Promise<Spent> {
  const listed = await listTaggedRuns(client, tags, since ? { created_after: since } : {}, {
    maxPages: CREDIT_BUDGET_CHECK.maxPages,
    deadline,
  })
  if (listed.filteredHere) {
    log.info(
      `The service cannot filter runs by metadata on this plan (feature_not_available): listed the runs by time and added up those tagged ${Object.entries(
        tags,
      )
        .map(([key, value]) => `${key}=${value}`)
        .join(', ')} here.`,
    )
  }
  const runs = listed.runs.filter((run) => ofHomeForge(run, home))
  // A tree's spend is its runs' own usage, each counted once: the children agents started too.
  const children = listed.children.filter((run) => ofHomeForge(run, home))
  return {
    value: sumIn([...runs, ...children], counted),
    runs: runs.length,
    complete: listed.complete,
    runIds: new Set(runs.map((run) => run.run_id)),
  }
}
