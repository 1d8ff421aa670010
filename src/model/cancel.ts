import type { CancelAnswer } from '../api/client.ts'
import type { Log } from '../log.ts'
import { safeForLog } from '../text/log.ts'

/** How a cancel request went, as a value: a failed cancel must not hide the step's own outcome. */
export type CancelReport =
  /** What the service answered (see AgentRunsClient.cancelRun). */
  CancelAnswer | { kind: 'not-cancellable'; message: string } | { kind: 'failed'; message: string }

/**
 * Logs how a cancel went: a warning when the run goes on, or may. `label`
 * names the feature that cancelled (e.g. `cancel_previous`) when it is not the
 * step's own run.
 */
export function logCancel(
  log: Pick<Log, 'info' | 'warning'>,
  runId: string,
  report: CancelReport,
  label?: string,
): void {
  const described = describeCancel(runId, report)
  const message = label ? `${label}: ${described}` : described
  switch (report.kind) {
    case 'cancelled':
    case 'already-finished':
      return log.info(message)
    case 'blocked':
    case 'refused':
    case 'not-cancellable':
    case 'failed':
      return log.warning(message)
  }
}

export function describeCancel(unsafeRunId: string, report: CancelReport): string {
  const runId = safeForLog(unsafeRunId)
  switch (report.kind) {
    case 'cancelled':
      return `Run ${runId} was cancelled.`
    case 'already-finished':
      return `Run ${runId} had already finished; nothing to cancel.`
    case 'blocked':
      return `Run ${runId} cannot be cancelled while it waits for a person; it stays BLOCKED. A person must answer it in its session; cancel it there afterwards if it is no longer wanted.`
    case 'refused':
      return `The service refused to cancel run ${runId}: it has ended, or it waits for a person (BLOCKED) and stays so. Check it by hand.`
    case 'not-cancellable':
      return `Run ${runId} cannot be cancelled: this kind of run is not cancellable, so it runs to its end (${safeForLog(report.message)}).`
    case 'failed':
      return `Could not cancel run ${runId}; it may still be running and billing. Cancel it by hand. (${safeForLog(report.message)})`
  }
}
