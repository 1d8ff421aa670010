import type { AgentRunsClient } from '../api/client.ts'
import type { RunItem } from '../api/types.ts'
import type { RepositoryDesk } from '../github/repository-desk.ts'
import type { Log } from '../log.ts'
import { describeCancel } from '../model/cancel.ts'
import type { Handoff } from '../model/handoff.ts'
import type { RowAction } from '../summary/reconcile.ts'
import { requestCancel } from '../run/cancel.ts'
import { DETACHED_SET_GOING, detachedSetHandedOver, setStarterLost, tasksWithRuns } from './plan.ts'

export interface SetSweepDeps {
  client: Pick<AgentRunsClient, 'cancelRun' | 'getRun' | 'iterateRuns'>
  desk: Pick<RepositoryDesk, 'setComment' | 'stepStatus' | 'workflowRun' | 'markSetStopped'>
  log: Log
  /** The set's runs, as the pass lists them (see finish-set.ts). */
  setRuns: () => Promise<readonly RunItem[]>
}

const SET_LOST_WHILE_STARTING =
  "The step of this set lost its runner while it started the set's runs: it never handed the set over. A reconcile pass cancelled the runs it had created."

/**
 * A detached set's run still going: left while its step handed the set over (or may yet), swept
 * once that step's workflow run completed without handing it over (its runner was lost while it
 * created the set's runs), with the set's comment saying so when there is one.
 */
export async function sweepDetachedSetRun(
  run: RunItem,
  handoff: Handoff,
  options: { dryRun: boolean; deadline: number },
  deps: SetSweepDeps,
): Promise<{ action: RowAction; why: string; run: RunItem }> {
  const setId = handoff.set ?? ''
  const commented = handoff.comment && handoff.thread !== undefined
  const statused = handoff.commitStatus && handoff.headSha !== undefined
  const [comment, status] = await Promise.all([
    commented ? deps.desk.setComment(handoff) : undefined,
    statused ? deps.desk.stepStatus(handoff) : undefined,
  ])
  // A step that showed the set nowhere: a run of every task is the only sign it got that far.
  const runs = commented || statused ? [] : await deps.setRuns()
  const everyTaskRan = () => tasksWithRuns(setId, runs) >= (handoff.tasks ?? Infinity)
  const shown = { shows: Boolean(commented || statused), comment: comment?.shown, status }
  if (detachedSetHandedOver({ ...shown, everyTaskRan }, setId)) {
    return { action: 'left', why: DETACHED_SET_GOING, run }
  }
  const judged = setStarterLost(await deps.desk.workflowRun(handoff))
  if (judged.kind === 'leave') return { action: 'left', why: judged.why, run }
  const why = `it was still ${run.state} after the workflow run of its set's step (${handoff.workflowRunId ?? 'unknown'}) completed before that step handed the set over: its runner was lost while it started the set`
  if (options.dryRun) return { action: 'swept', why, run }
  const cancel = await requestCancel(deps.client, run.run_id, { deadline: options.deadline })
  if (cancel.kind === 'already-finished') {
    return {
      action: 'left',
      why: 'it ended as the pass came to it; the next pass finishes it',
      run,
    }
  }
  if (cancel.kind !== 'cancelled') {
    return { action: 'failed', why: describeCancel(run.run_id, cancel), run }
  }
  let ended = run
  try {
    ended = await deps.client.getRun(run.run_id, { deadline: options.deadline, maxRetries: 1 })
  } catch {
    // The row then shows the state last listed.
  }
  await deps.desk.markSetStopped(handoff, SET_LOST_WHILE_STARTING, deps.log)
  return { action: 'swept', why, run: ended }
}
