import type { AgentRunsClient } from '../api/client.ts'
import type { RunItem } from '../api/types.ts'
import type { CommentSpot, RepositoryDesk, RunInComment } from '../github/repository-desk.ts'
import { oneLine } from '../github/status.ts'
import type { Log } from '../log.ts'
import { describeCancel } from '../model/cancel.ts'
import type { Handoff } from '../model/handoff.ts'
import type { PassRow } from '../summary/reconcile.ts'
import { requestCancel } from '../run/cancel.ts'
import { LOST_RUNNER, pendingStatuses, statusHeads } from './finish-run.ts'
import {
  handedOnTo,
  handedToPerson,
  lostRunner,
  waitingStep,
  workflowRunOf,
  type StepTrace,
} from './plan.ts'
import { rowOf } from './walk.ts'

/** What a pass needs to sweep a run whose waiting step's runner was lost. */
export interface SweepDeps {
  client: Pick<AgentRunsClient, 'cancelRun' | 'getRun' | 'iterateRuns'>
  desk: Pick<
    RepositoryDesk,
    | 'setComment'
    | 'runComments'
    | 'workflowRun'
    | 'newerWorkflowRun'
    | 'stepComment'
    | 'stepSpot'
    | 'stepStatus'
    | 'setStatus'
    | 'stepWorkflowRunUrl'
    | 'showInComment'
    | 'markSetStopped'
  >
  log: Log
}

const SET_LOST_RUNNER =
  'The step of this set lost its runner: its workflow run completed without it, so its post step never ran. A reconcile pass cancels the runs it left going; the table shows them as the step last saw them.'

/**
 * Cancels a run whose waiting step's runner was lost, and says so where that
 * step showed it. The step judged is the one waiting now: the newest that
 * showed the run in a comment (a `continue_run` step's answer, say), else the
 * one that started it; a step that ended on purpose left nothing behind.
 */
export async function sweepRun(
  run: RunItem,
  handoff: Handoff,
  settings: { readonly repository: string; readonly dryRun: boolean },
  deps: SweepDeps,
  deadline: number,
): Promise<PassRow> {
  if (handoff.set !== undefined) {
    // A set's comment shows the whole set: its record names the runs its step let go on purpose.
    const setShown = await deps.desk.setComment(handoff)
    const letGo = handedToPerson(setShown?.shown, run.run_id, settings.repository)
    if (letGo) return rowOf(run, 'left', letGo.why)
  }
  const traces = (await deps.desk.runComments(handoff, run.run_id)).flatMap((comment) => {
    const workflowRun = workflowRunOf(comment.shown.workflowRun, settings.repository)
    return workflowRun ? [{ ...comment, workflowRun, outcome: comment.shown.outcome }] : []
  })
  const waiting = waitingStep<StepTrace & RunInComment>(handoff, traces)
  if (waiting.kind === 'leave') return rowOf(run, 'left', waiting.why)
  const workflow = await deps.desk.workflowRun(waiting.workflowRun)
  const judged = lostRunner(workflow)
  if (!judged.lost) return rowOf(run, 'left', judged.why)
  const workflowRunId = waiting.workflowRun.workflowRunId
  if (workflow?.conclusion === 'cancelled' && handoff.thread !== undefined) {
    const newer = await deps.desk.newerWorkflowRun(waiting.workflowRun, handoff.thread)
    const handedOn = handedOnTo(workflow, newer)
    if (handedOn.kind === 'leave') return rowOf(run, 'left', handedOn.why)
  }
  const stopped = waiting.trace?.outcome
  const why = stopped
    ? `it was still ${run.state} after its step ended ${stopped} and that step's workflow run (${workflowRunId}) completed: the step's cancel did not stop it`
    : `it was still ${run.state} after the workflow run of the step waiting for it (${workflowRunId}) completed: that step's runner was lost`
  const note = stopped
    ? `The step that waited for this run ended (${stopped}) without stopping it, and its workflow run completed. A reconcile pass cancelled the run.`
    : `${LOST_RUNNER} A reconcile pass cancelled the run.`
  if (settings.dryRun) return rowOf(run, 'swept', why)
  const cancel = await requestCancel(deps.client, run.run_id, { deadline })
  if (cancel.kind === 'already-finished') {
    return rowOf(run, 'left', 'it ended as the pass came to it; the next pass finishes it')
  }
  if (cancel.kind !== 'cancelled') return rowOf(run, 'failed', describeCancel(run.run_id, cancel))
  let ended = run
  try {
    ended = await deps.client.getRun(run.run_id, { deadline, maxRetries: 1 })
  } catch {
    // The comment then shows the state last listed; the next pass reads it again.
  }
  const [spot, statusesDue] = await Promise.all([
    commentSpotOf(waiting.trace, handoff, run, deps),
    handoff.commitStatus
      ? pendingStatuses(run, statusHeads(handoff, waiting.trace?.shown), deps)
      : [],
  ])
  for (const due of statusesDue) {
    await deps.desk.setStatus(
      due.on,
      {
        state: 'error',
        description: oneLine(`Cancelled: its step's runner was lost (run ${run.run_id})`),
        targetUrl: due.workflowRun ?? deps.desk.stepWorkflowRunUrl(handoff),
      },
      deps.log,
    )
  }
  if (spot) await deps.desk.showInComment(handoff, spot, ended, { notes: [note] }, deps.log)
  // The set's comment shows every run of the set: it says the step stopped, as its post step would.
  await deps.desk.markSetStopped(handoff, SET_LOST_RUNNER, deps.log)
  return rowOf(ended, 'swept', why)
}

/** The comment of the step that waited: its own record's, else the starting step's. */
async function commentSpotOf(
  trace: RunInComment | undefined,
  handoff: Handoff,
  run: RunItem,
  deps: SweepDeps,
): Promise<CommentSpot | undefined> {
  if (trace) {
    return { commentId: trace.commentId, key: trace.key, workflowRun: trace.shown.workflowRun }
  }
  const comment = handoff.comment ? await deps.desk.stepComment(handoff, run.run_id) : undefined
  return comment ? deps.desk.stepSpot(handoff, comment.commentId) : undefined
}
