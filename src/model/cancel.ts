import type { CancelAnswer } from '../api/client.ts'
import type { Log } from '../log.ts'
import { safeForLog } from '../text/log.ts'

/** How a cancel request went, as a value: a failed cancel must not hide the step's own outcome. */
export type CancelReport = (
  | /** What the service answered (see AgentRunsClient.cancelRun). */
    CancelAnswer
  | { kind: 'not-cancellable'; message: string }
  | { kind: 'failed'; message: string }
) & {
  /** The children its agent started that were still working, cancelled with it (its tree). */
  children?: ChildrenCancel
}

/** What became of a run's children still working when it was cancelled. */
export interface ChildrenCancel {
  cancelled: string[]
  /** Those that could not be cancelled (or not listed: `runId` is then the parent's), and why. */
  failed: { runId: string; message: string }[]
}

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
  logChildrenCancel(log, runId, report.children)
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

/** The line for a run's children cancelled with it, and a warning for each that may go on. */
function logChildrenCancel(
  log: Pick<Log, 'info' | 'warning'>,
  runId: string,
  children: ChildrenCancel | undefined,
): void {
  const { cancelled = [], failed = [] } = children ?? {}
  if (cancelled.length > 0) {
    log.info(
      `The ${cancelled.length} child run(s) that run ${safeForLog(runId)}'s agent started and were still working were cancelled with it: ${cancelled.map((id) => safeForLog(id)).join(', ')}.`,
    )
  }
  for (const one of failed) {
    log.warning(
      one.runId === runId
        ? `Could not list the child runs of run ${safeForLog(runId)} to cancel them; any its agent started may still be running and billing. Cancel them by hand. (${safeForLog(one.message)})`
        : `Could not cancel child run ${safeForLog(one.runId)} of run ${safeForLog(runId)}; it may still be running and billing. Cancel it by hand. (${safeForLog(one.message)})`,
    )
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
