import type { AgentRunsClient, RequestOptions } from '../api/client.ts'
import { UnprocessableEntityError } from '../api/errors.ts'
import type { RunItem } from '../api/types.ts'
import { safeForLog } from '../text/log.ts'
import { meaningOf } from './states.ts'
import type { RunTracker } from './tracker.ts'
import type { WaitLog } from './wait.ts'

export type CancelReport =
  | { kind: 'cancelled' }
  | { kind: 'already-finished' }
  | { kind: 'not-cancellable'; message: string }
  | { kind: 'failed'; message: string }

/** Cancels a run and says how it went, as a value: a failed cancel must not hide the step's own outcome. */
export async function cancelRun(
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
  if (cancel?.kind !== 'cancelled' || !lastSeen) return lastSeen
  try {
    return await client.getRun(lastSeen.run_id, { timeoutMs: 500, maxRetries: 0 })
  } catch {
    return lastSeen
  }
}

/** Cancels the run the step answers for; unless the cancel failed, nothing more is owed on it. */
export async function cancelTrackedRun(
  client: Pick<AgentRunsClient, 'cancelRun'>,
  tracker: RunTracker,
  runId: string,
  options: RequestOptions = {},
): Promise<CancelReport> {
  const report = await cancelRun(client, runId, options)
  if (report.kind !== 'failed') tracker.settle()
  return report
}

export function describeCancel(unsafeRunId: string, report: CancelReport): string {
  const runId = safeForLog(unsafeRunId)
  switch (report.kind) {
    case 'cancelled':
      return `Run ${runId} was cancelled.`
    case 'already-finished':
      return `Run ${runId} had already finished; nothing to cancel.`
    case 'not-cancellable':
      return `Run ${runId} cannot be cancelled: this kind of run is not cancellable, so it runs to its end (${safeForLog(report.message)}).`
    case 'failed':
      return `Could not cancel run ${runId}; it may still be running and billing. Cancel it by hand. (${safeForLog(report.message)})`
  }
}

/** The states `cancel_previous` supersedes: runs still on their way, not those waiting for a person. */
const SUPERSEDED_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS']

/**
 * Cancels the active runs labelled `name` (for `cancel_previous`), so that a
 * new push replaces the review of the old one. Returns how many were cancelled.
 */
export async function cancelActiveRunsNamed(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'cancelRun'>,
  name: string,
  log: WaitLog,
): Promise<number> {
  // Collected first: cancelling while paging would move runs out of the pages still to come.
  const active: RunItem[] = []
  for await (const run of client.iterateRuns({ name, state: SUPERSEDED_STATES, limit: 100 })) {
    // Checked here too, so that a service ignoring a filter cannot make this cancel other runs.
    if (run.agent_config?.name === name && meaningOf(run.state) === 'active') active.push(run)
  }
  let cancelled = 0
  for (const run of active) {
    const report = await cancelRun(client, run.run_id)
    if (report.kind === 'cancelled') cancelled += 1
    log.info(`cancel_previous: ${describeCancel(run.run_id, report)}`)
  }
  if (active.length === 0) log.info(`cancel_previous: no active run is named ${name}.`)
  return cancelled
}
