import type { AgentRunsClient } from '../api/client.ts'
import type { RequestOptions, Sleep } from '../api/transport.ts'
import { UnprocessableEntityError } from '../api/errors.ts'
import { CAMPAIGN_KEY } from '../model/campaign.ts'
import { meaningOf } from '../model/states.ts'
import { describeHome, homeScope, ofHomeForge, type RunHome } from '../model/home.ts'
import { lookUpRunThatMade } from './continue-pr.ts'
import { listTaggedRuns } from './listing.ts'
import type { RunTracker } from './tracker.ts'
import type { Log } from '../log.ts'
import {
  CANCEL_AFTER_TIMEOUT,
  CREATE_LOOKUP,
  POST_CANCEL_DEADLINE_MS,
  RECANCEL_PAUSE_MS,
  SIGNAL_CANCEL,
  MIN_CANCEL_REQUEST_MS,
} from '../timing.ts'
import { logCancel, type CancelReport, type ChildrenCancel } from '../model/cancel.ts'
import { childrenOf } from '../model/tree.ts'
import type { RunItem } from '../api/types.ts'
import type { StopCause } from '../model/outcome.ts'
import { errorMessage } from '../text/plain.ts'

/**
 * Cancels a run's tree, by its ID, and says how it went as a value: a failed cancel must not hide
 * the step's own outcome. The cancels below build on it. One cancel request for the run, then,
 * once it is cancelled or over (or cannot be), each child its agent started that is still
 * working: the service does not say that cancelling a parent stops its children.
 */
export async function requestCancel(
  client: CancelClient,
  runId: string,
  options: RequestOptions = {},
): Promise<CancelReport> {
  const report = await cancelOne(client, runId, options)
  if (report.kind === 'failed' || report.kind === 'blocked' || report.kind === 'refused') {
    return report
  }
  const children = await cancelChildren(client, runId, options)
  return children.cancelled.length + children.failed.length > 0 ? { ...report, children } : report
}

/** What cancelling a run's tree asks of the service: a cancel, and a list of the run's children. */
export type CancelClient = Pick<AgentRunsClient, 'cancelRun' | 'iterateRuns'>

async function cancelOne(
  client: Pick<AgentRunsClient, 'cancelRun'>,
  runId: string,
  options: RequestOptions,
): Promise<CancelReport> {
  try {
    return await client.cancelRun(runId, options)
  } catch (error) {
    const message = errorMessage(error)
    if (error instanceof UnprocessableEntityError) return { kind: 'not-cancellable', message }
    return { kind: 'failed', message }
  }
}

/** The states of a child still working, which its parent's cancel takes with it. */
const WORKING_CHILD_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS']

/** Pages of a run's children one cancel reads: far more than an agent starts. */
const CHILD_PAGES = 5

/** Cancels the children of `rootId` still working (every level under it), together. */
async function cancelChildren(
  client: CancelClient,
  rootId: string,
  options: RequestOptions,
): Promise<ChildrenCancel> {
  const listed: RunItem[] = []
  try {
    const pages = client.iterateRuns(
      { ancestor_run_id: rootId, state: WORKING_CHILD_STATES, limit: 100 },
      { ...options, maxPages: CHILD_PAGES },
    )
    for await (const run of pages) listed.push(run)
  } catch (error) {
    return { cancelled: [], failed: [{ runId: rootId, message: errorMessage(error) }] }
  }
  // Checked here too: a service that ignored the filter must not make this cancel other runs.
  const working = childrenOf(listed, rootId).filter((run) => meaningOf(run.state) === 'active')
  const reports = await Promise.all(
    working.map(async (run) => ({
      runId: run.run_id,
      report: await cancelOne(client, run.run_id, options),
    })),
  )
  return {
    cancelled: reports
      .filter(({ report }) => report.kind === 'cancelled')
      .map(({ runId }) => runId),
    failed: reports.flatMap(({ runId, report }) =>
      report.kind === 'failed' || report.kind === 'not-cancellable'
        ? [{ runId, message: report.message }]
        : [],
    ),
  }
}

/**
 * Why a run is being cancelled. It decides how long the cancel may take: a
 * signal leaves what the runner's grace allows; a timeout, a cap or an error
 * a few seconds; the post step, which has minutes before the runner's
 * force-kill, longer.
 */
export type CancelWhy =
  | { kind: 'signal'; signal: NodeJS.Signals }
  /** `pass-when`: the set's rule can no longer be met, so the runs still in flight are not wanted. */
  | { kind: Exclude<StopCause, 'signal'> }

/**
 * On `now`'s clock: when the cancel of a run, begun now for `why`, must have been answered. A
 * signal has what the runner's grace leaves, the post step its minutes; any other cause (the
 * timeout, the cap, an error, pass_when, and a cause yet to come) a brief cancel.
 */
export function cancelDeadline(why: CancelWhy, now: number): number {
  if (why.kind === 'signal') {
    const { afterTerminateMs, afterInterruptMs } = SIGNAL_CANCEL
    return now + (why.signal === 'SIGTERM' ? afterTerminateMs : afterInterruptMs)
  }
  if (why.kind === 'post') return now + POST_CANCEL_DEADLINE_MS
  return now + CANCEL_AFTER_TIMEOUT.budgetMs
}

export interface CancelOrder {
  runId: string
  why: CancelWhy
  /** When the cancel must have been answered (see `cancelDeadline`). */
  deadline: number
  /**
   * Whether "already finished" may describe the pass before a follow-up, with
   * the run about to restart: then the cancel is sent again, until it lands or
   * the deadline.
   */
  mayRestart?: () => boolean
}

export interface CancelDeps {
  client: CancelClient
  now: () => number
  sleep: Sleep
  /** Told when a cancel is repeated because the run may be about to restart. */
  log?: Pick<Log, 'info'>
}

/**
 * The one routine that cancels a run, whatever the reason: a signal, the
 * timeout, max_credits, an error, the post step, or a set whose `pass_when`
 * can no longer be met. Each request is bounded by the order's deadline, and
 * the outcome is a value: a failed cancel must not hide the step's own outcome.
 */
export async function cancelRun(order: CancelOrder, deps: CancelDeps): Promise<CancelReport> {
  const remaining = () => Math.max(0, order.deadline - deps.now())
  const once = () => {
    const ms = Math.max(MIN_CANCEL_REQUEST_MS, remaining())
    const timeoutMs = order.why.kind === 'post' ? ms : Math.min(ms, CANCEL_AFTER_TIMEOUT.timeoutMs)
    return requestCancel(deps.client, order.runId, {
      timeoutMs: order.why.kind === 'signal' ? remaining() : timeoutMs,
      deadline: order.deadline,
      ...(order.why.kind === 'signal' ? { signal: AbortSignal.timeout(remaining()) } : {}),
    })
  }
  let report = await once()
  let noted = false
  while (
    report.kind === 'already-finished' &&
    order.mayRestart?.() &&
    remaining() > RECANCEL_PAUSE_MS * 2
  ) {
    if (!noted && deps.log) {
      deps.log.info(
        `Run ${order.runId} still shows its state from before the follow-up; cancelling again once it restarts.`,
      )
      noted = true
    }
    await deps.sleep(order.why.kind === 'post' ? CREATE_LOOKUP.postPauseMs : RECANCEL_PAUSE_MS)
    report = await once()
  }
  return report
}

/**
 * Cancels the run the step answers for (see `cancelRun`). Nothing more is owed
 * on it unless the cancel failed, the run is BLOCKED (the post step tries
 * again, and cancels it should a person have moved it on by then), a
 * follow-up's answer is still out, or "already finished" came before the run
 * was seen restarting after a follow-up (it may restart yet).
 */
export async function cancelOwnRun(
  tracker: RunTracker,
  runId: string,
  why: CancelWhy,
  deps: CancelDeps,
  deadline: number = cancelDeadline(why, deps.now()),
): Promise<CancelReport> {
  const report = await cancelRun(
    { runId, why, deadline, mayRestart: () => tracker.awaitingNewPass },
    deps,
  )
  if (isFinalCancel(report, tracker)) tracker.settle()
  return report
}

/**
 * A run must not outlive a step that gave up on it. A step that failed before
 * it knew of a run made none, unless a create's answer was lost and its run
 * not found: then the state keeps the create's tag for the post step.
 */
export async function cancelAfterError(tracker: RunTracker, deps: CancelDeps & { log: Log }) {
  const runId = tracker.runId
  // A create whose run was neither seen nor ruled out leaves its tag for the post step.
  if (!runId) return tracker.mayHaveUnseenRun ? undefined : tracker.settle()
  if (!tracker.needsCancel) return
  // Briefly, as after a timeout: a cancel that fails leaves the run to the post step.
  logCancel(deps.log, runId, await cancelOwnRun(tracker, runId, { kind: 'error' }, deps))
}

/** Pure: whether a cancel's outcome leaves nothing owed on the tracked run. */
export function isFinalCancel(
  report: CancelReport,
  tracker: Pick<RunTracker, 'deciding' | 'awaitingNewPass'>,
): boolean {
  if (report.kind === 'failed' || report.kind === 'blocked' || tracker.deciding) return false
  return !(report.kind === 'already-finished' && tracker.awaitingNewPass)
}

/** The states `cancel_previous` supersedes: runs still on their way, not those waiting for a person. */
const SUPERSEDED_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS']

/**
 * Cancels the active runs labelled `name` of the step's home (its project and, where the step
 * has a thread, its thread) before the step starts its own (`previous_run: cancel`), so that a
 * new push replaces the review of the old one and never another thread's; `cancel_only` does
 * just this. `input` is the input that asked, for the log. Returns the runs cancelled.
 */
export async function cancelPreviousRuns(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'cancelRun'>,
  asked: { name: string; home: RunHome; input: string },
  log: Log,
  options: Pick<RequestOptions, 'deadline'> = {},
): Promise<string[]> {
  const { name, home, input } = asked
  const scope = homeScope(home)
  const where = scope ? ` of ${describeHome(home)}` : ''
  if (!scope) {
    log.info(
      `${input}: no project is named, so no run can be told to be this one's; none is cancelled.`,
    )
    return []
  }
  // Collected first: cancelling while paging would move runs out of the pages still to come.
  // Paged by creation time: runs changing state meanwhile cannot slip between pages.
  const { runs } = await listTaggedRuns(
    client,
    scope,
    { name, state: SUPERSEDED_STATES },
    { ...options, maxPages: PREVIOUS_RUNS_MAX_PAGES },
  )
  // Checked here too, so that a service ignoring a filter cannot make this cancel other runs.
  const active = runs.filter(
    (run) =>
      run.agent_config?.name === name &&
      meaningOf(run.state) === 'active' &&
      ofHomeForge(run, home),
  )
  const cancelled: string[] = []
  for (const run of active) {
    const report = await requestCancel(client, run.run_id, options)
    if (report.kind === 'cancelled') cancelled.push(run.run_id)
    logCancel(log, run.run_id, report, input)
  }
  if (active.length === 0) log.info(`${input}: no active run is named ${name}${where}.`)
  return cancelled
}

/**
 * `cancel_only` with `campaign` (v1.5): cancels every working run of the campaign, whichever
 * repository it is of, and starts nothing. Returns the runs cancelled.
 */
export async function cancelCampaign(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'cancelRun'>,
  campaign: string,
  log: Log,
  options: Pick<RequestOptions, 'deadline'> = {},
): Promise<string[]> {
  // Collected first: cancelling while paging would move runs out of the pages still to come.
  const { runs } = await listTaggedRuns(
    client,
    { [CAMPAIGN_KEY]: campaign },
    { state: SUPERSEDED_STATES },
    { ...options, maxPages: CAMPAIGN_MAX_PAGES },
  )
  // Checked here too, so that a service ignoring a filter cannot make this cancel other runs.
  const working = runs.filter(
    (run) => run.metadata?.[CAMPAIGN_KEY] === campaign && meaningOf(run.state) === 'active',
  )
  const cancelled: string[] = []
  for (const run of working) {
    const report = await requestCancel(client, run.run_id, options)
    if (report.kind === 'cancelled') cancelled.push(run.run_id)
    logCancel(log, run.run_id, report, 'cancel_only')
  }
  log.info(`cancel_only: cancelled ${cancelled.length} working run(s) of campaign ${campaign}.`)
  return cancelled
}

/** The pages of a campaign's working runs a cancel reads: 10,000 runs. */
const CAMPAIGN_MAX_PAGES = 20

/** The pages of active runs of one name a cancel reads: far more than one thread ever has. */
const PREVIOUS_RUNS_MAX_PAGES = 10

/** `cancel_only`: cancels the active runs with the name, and starts nothing. */
export async function cancelOnly(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'cancelRun'>,
  asked: { name: string; home: RunHome },
  log: Log,
): Promise<string[]> {
  const cancelled = await cancelPreviousRuns(client, { ...asked, input: 'cancel_only' }, log)
  log.info(`cancel_only: cancelled ${cancelled.length} active run(s) named ${asked.name}.`)
  return cancelled
}

/**
 * `cancel_only` with `continue_from: pull_request`: cancels the run that made the step's pull
 * request (its tree) when it is working, so that a closed pull request's rounds stop billing.
 * Its ID when it was cancelled; undefined when there is none, it is not working, or it could not
 * be looked up (said in one line).
 */
export async function cancelRunThatMade(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'cancelRun' | 'listRuns'>,
  home: RunHome,
  log: Log,
  deadline: number,
): Promise<string | undefined> {
  const said = 'cancel_only with continue_from: pull_request'
  let made: RunItem | undefined
  try {
    made = await lookUpRunThatMade(client, home, deadline)
  } catch (error) {
    log.warning(
      `${said}: could not look for the run that made ${describeHome(home)} (${errorMessage(error)}).`,
    )
    return undefined
  }
  if (!made) {
    log.info(`${said}: no run this action started made ${describeHome(home)}.`)
    return undefined
  }
  if (meaningOf(made.state) !== 'active') {
    log.info(
      `${said}: run ${made.run_id}, which made ${describeHome(home)}, is ${made.state}; nothing to cancel.`,
    )
    return undefined
  }
  const report = await requestCancel(client, made.run_id, { deadline })
  logCancel(log, made.run_id, report, 'cancel_only')
  return report.kind === 'cancelled' ? made.run_id : undefined
}
