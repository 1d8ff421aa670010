import type { AgentRunsClient, RequestOptions } from '../api/client.ts'
import { UnprocessableEntityError } from '../api/errors.ts'
import type { RunItem } from '../api/types.ts'
import { meaningOf } from '../model/states.ts'
import type { RunTracker } from './tracker.ts'
import type { Log } from '../log.ts'
import { logCancel, type CancelReport } from '../model/cancel.ts'

/**
 * One cancel request for a run, by ID, and how it went as a value: a failed
 * cancel must not hide the step's own outcome. The cancels below build on it.
 */
export async function requestCancel(
  client: Pick<AgentRunsClient, 'cancelRun'>,
  runId: string,
  options: RequestOptions = {},
): Promise<CancelReport> {
  try {
    return { kind: await client.cancelRun(runId, options) }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (error instanceof UnprocessableEntityError) return { kind: 'not-cancellable', message }
    return { kind: 'failed', message }
  }
}

/**
 * The run as it stands after a successful cancel, so that outputs, summary and
 * comment show where it ended rather than the state last polled. One quick
 * attempt: a failure keeps what was last seen.
 */
export async function rereadAfterCancel(
  client: Pick<AgentRunsClient, 'getRun'>,
  cancel: CancelReport | undefined,
  lastSeen: RunItem | undefined,
): Promise<RunItem | undefined> {
  // A BLOCKED run is read back too, so that the outputs say BLOCKED rather than what was last polled.
  if ((cancel?.kind !== 'cancelled' && cancel?.kind !== 'blocked') || !lastSeen) return lastSeen
  try {
    return await client.getRun(lastSeen.run_id, { timeoutMs: 500, maxRetries: 0 })
  } catch {
    return lastSeen
  }
}

/**
 * Cancels the run the step answers for. Nothing more is owed on it unless the
 * cancel failed, the run is BLOCKED (the post step tries again, and cancels it
 * should a person have moved it on by then), a follow-up's answer is still out,
 * or "already finished" came before the run was seen restarting after a
 * follow-up (it may restart yet).
 */
export async function cancelOwnRun(
  client: Pick<AgentRunsClient, 'cancelRun'>,
  tracker: RunTracker,
  runId: string,
  options: RequestOptions = {},
): Promise<CancelReport> {
  const report = await requestCancel(client, runId, options)
  if (isFinalCancel(report, tracker)) tracker.settle()
  return report
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
 * Cancels the active runs labelled `name` before the step starts its own
 * (`cancel_previous`), so that a new push replaces the review of the old one;
 * `cancel_only` does just this. Returns how many were cancelled.
 */
export async function cancelPreviousRuns(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'cancelRun'>,
  name: string,
  log: Log,
  options: Pick<RequestOptions, 'deadline'> = {},
): Promise<number> {
  // Collected first: cancelling while paging would move runs out of the pages still to come.
  const active: RunItem[] = []
  // Paged by creation time: runs changing state meanwhile cannot slip between pages.
  const query = { name, state: SUPERSEDED_STATES, limit: 100, sort_by: 'created_at' } as const
  for await (const run of client.iterateRuns(query, options)) {
    // Checked here too, so that a service ignoring a filter cannot make this cancel other runs.
    if (run.agent_config?.name === name && meaningOf(run.state) === 'active') active.push(run)
  }
  let cancelled = 0
  for (const run of active) {
    const report = await requestCancel(client, run.run_id, options)
    if (report.kind === 'cancelled') cancelled += 1
    logCancel(log, run.run_id, report, 'cancel_previous')
  }
  if (active.length === 0) log.info(`cancel_previous: no active run is named ${name}.`)
  return cancelled
}
