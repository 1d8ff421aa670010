import { creditsSpent } from '../agent/cost.ts'
import type { AgentRunsClient } from '../api/client.ts'
import type { CreditBudgets } from '../inputs/budgets.ts'
import type { Log } from '../log.ts'
import { HANDOFF_KEYS } from '../model/handoff.ts'
import { formatCredits } from '../text/format.ts'
import { CREDIT_BUDGET_CHECK } from '../timing.ts'
import { changeName, homeScope, ofHomeForge, type RunHome } from '../model/home.ts'
import { tighterCap, type SpendCap } from '../model/spend-cap.ts'
import { lookUpRunThatMade } from './continue-pr.ts'
import { listTaggedRuns } from './listing.ts'
import { readChildren } from './tree.ts'

/** A budget that has been reached: nothing is to be created. */
export interface BudgetReached {
  input: 'daily_credit_budget' | 'pr_credit_budget'
  /** The line the step fails with: the budget, the sum and the window. */
  message: string
}

/**
 * What the budgets say before a run is created: the first one reached (nothing is created), or
 * what the tightest had left, which caps the step's runs while they work (v1.5: a budget caps
 * the runs it admits).
 */
export interface BudgetCheck {
  readonly reached?: BudgetReached
  readonly cap?: SpendCap
}

/**
 * Checks the credit budgets before a run is created: one list request a page
 * for each budget that is set, summing the credits of the runs this action
 * tagged with this repository (the last 24 hours) or this pull request. The
 * first budget that the sum has reached is returned; else what the budgets
 * had left, the tightest, as a cap on the step's runs. A failure to list
 * throws, and so does a list cut short under the budget: a budget that cannot
 * be checked creates nothing.
 */
export async function checkCreditBudgets(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'listRuns'>,
  budgets: CreditBudgets,
  home: RunHome,
  deps: { now: () => number; log: Log },
): Promise<BudgetCheck> {
  const deadline = deps.now() + CREDIT_BUDGET_CHECK.deadlineMs
  const project = homeScope(home, { byThread: false })
  if (budgets.daily === undefined && budgets.pullRequest === undefined) return {}
  // The inputs refuse a budget with no project before any request; this holds the rule here too.
  if (!project) throw new Error('A credit budget needs a project to count by; none is named.')
  const ofHome = { home, deadline, log: deps.log }
  let cap: SpendCap | undefined
  if (budgets.daily !== undefined) {
    const since = new Date(deps.now() - CREDIT_BUDGET_CHECK.dailyWindowMs).toISOString()
    const spent = await creditsOf(client, project, since, ofHome)
    const window = `in the last 24 hours (since ${since.replace(/\.\d+Z$/, 'Z')})`
    const runs = `the runs this action started for ${home.project} ${window}`
    const reached = judge('daily_credit_budget', budgets.daily, spent, runs, deps.log)
    if (reached) return { reached }
    cap = leftOf('daily_credit_budget', budgets.daily, spent)
  }
  if (budgets.pullRequest !== undefined) {
    if (home.change === undefined) {
      deps.log.info(
        'pr_credit_budget: this step is about no pull or merge request; it does not apply.',
      )
      return cap ? { cap } : {}
    }
    const tags = { ...project, [HANDOFF_KEYS.thread]: String(home.change) }
    const onThread = await creditsOf(client, tags, undefined, ofHome)
    // The run that opened the pull request counts too (its rounds are its own usage): once.
    const spent = await withRunThatMade(client, onThread, home, deadline)
    const where = `${changeName(home, home.change)} of ${home.project}`
    const runs = `the runs this action started for ${where} (all of them, whenever they ran)`
    const reached = judge('pr_credit_budget', budgets.pullRequest, spent, runs, deps.log)
    if (reached) return { reached }
    cap = tighterCap(cap, leftOf('pr_credit_budget', budgets.pullRequest, spent))
  }
  return cap ? { cap } : {}
}

/** What a budget not reached had left: the cap on the runs it admits. */
function leftOf(input: SpendCap['input'], limit: number, spent: Spent): SpendCap {
  return { credits: Math.max(0, limit - spent.credits), input, limit }
}

/** What the runs a budget counts used, and whether every one of them was read. */
interface Spent {
  credits: number
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
  budget: number,
  spent: Spent,
  runs: string,
  log: Log,
): BudgetReached | undefined {
  const used = `${spent.complete ? '' : 'at least '}${formatCredits(spent.credits)}`
  log.info(`${input}: ${runs} used ${used} of ${formatCredits(budget)}.`)
  if (spent.credits >= budget) {
    return {
      input,
      message: `Over budget: ${runs} used ${used}, which has reached the ${input} of ${formatCredits(budget)}. No run was created.`,
    }
  }
  if (!spent.complete) {
    throw new Error(
      `${input} cannot be checked: the list of ${runs} is longer than the ${CREDIT_BUDGET_CHECK.maxPages} pages the check reads, and the ${spent.runs.toLocaleString('en-US')} runs on them used ${formatCredits(spent.credits)}, under the budget of ${formatCredits(budget)}; the rest cannot be added up, so the check refuses rather than under-count. No run was created.`,
    )
  }
  return undefined
}

/**
 * `pr_credit_budget` counts the run that opened the pull request (its PULL_REQUEST artifact
 * names it), with its children, and every follow-up round `continue_from` sent it, which are
 * its own usage: once, unless the thread's runs already hold it.
 */
async function withRunThatMade(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'listRuns'>,
  spent: Spent,
  home: RunHome,
  deadline: number,
): Promise<Spent> {
  const made = await lookUpRunThatMade(client, home, deadline)
  if (!made || spent.runIds.has(made.run_id)) return spent
  const children = await readChildren(client, made.run_id, {}, { deadline })
  const credits = [made, ...children].reduce((sum, run) => sum + creditsSpent(run), 0)
  return { ...spent, credits: spent.credits + credits, runs: spent.runs + 1 }
}

/** The credits of the home's runs carrying `tags`, created after `since` when given. */
async function creditsOf(
  client: Pick<AgentRunsClient, 'iterateRuns'>,
  tags: Record<string, string>,
  since: string | undefined,
  { home, deadline, log }: { home: RunHome; deadline: number; log: Log },
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
  const credits = [...runs, ...children].reduce((sum, run) => sum + creditsSpent(run), 0)
  return {
    credits,
    runs: runs.length,
    complete: listed.complete,
    runIds: new Set(runs.map((run) => run.run_id)),
  }
}
