import type { AgentRunsClient, RequestOptions } from '../api/client.ts'
import { UnprocessableEntityError } from '../api/errors.ts'

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

export function describeCancel(runId: string, report: CancelReport): string {
  switch (report.kind) {
    case 'cancelled':
      return `Run ${runId} was cancelled.`
    case 'already-finished':
      return `Run ${runId} had already finished; nothing to cancel.`
    case 'not-cancellable':
      return `Run ${runId} cannot be cancelled: this kind of run is not cancellable, so it runs to its end (${report.message}).`
    case 'failed':
      return `Could not cancel run ${runId}; it may still be running and billing. Cancel it by hand. (${report.message})`
  }
}
