import { agentWorkSources } from '../agent/sources.ts'
import { readAnswer } from '../agent/work.ts'
import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import type { RunItem } from '../api/types.ts'
import { commentOutcomeOf } from '../github/comment.ts'
import type { RepositoryDesk } from '../github/repository-desk.ts'
import { finalStatus } from '../github/status.ts'
import type { Log } from '../log.ts'
import { STEP_KEYS, type Handoff } from '../model/handoff.ts'
import type { RunEntry } from '../model/key-history.ts'
import type { StepOutcome } from '../model/step.ts'
import type { PassRow } from '../summary/reconcile.ts'
import { findSupersedingRun } from '../run/superseded.ts'
import { readChildren } from '../run/tree.ts'
import { CHILDREN_READ_MS, RECONCILE_PASS } from '../timing.ts'
import { commentShowsEnd, elapsedOf, statusLeftPending } from './plan.ts'
import { rowOf } from './walk.ts'

/** What a pass needs to bring one ended run's comment and status to its end. */
export interface RunFinishDeps {
  client: Pick<
    AgentRunsClient,
    'listRuns' | 'iterateRuns' | 'getConversation' | 'getArtifact' | 'downloadSignedUrl'
  >
  desk: Pick<
    RepositoryDesk,
    | 'stepComment'
    | 'stepStatus'
    | 'workflowRun'
    | 'stepWorkflowRunUrl'
    | 'setStatus'
    | 'stepSpot'
    | 'showInComment'
  >
  now: () => number
  sleep: Sleep
  log: Log
}

export const LOST_RUNNER =
  'The step that waited for this run lost its runner: its workflow run completed without it.'

/** Brings an ended run's comment and status to its end, when they still show it going. */
export async function finishRun(
  run: RunItem,
  handoff: Handoff,
  settings: { readonly dryRun: boolean },
  deps: RunFinishDeps,
): Promise<PassRow> {
  const comment = handoff.comment ? await deps.desk.stepComment(handoff, run.run_id) : undefined
  const commentDue = comment && !commentShowsEnd(comment.shown) ? comment : undefined
  // The comment is written last, so one at its end vouches for the status: no read per commit.
  const statusesDue =
    handoff.commitStatus && !(comment && !commentDue)
      ? await pendingStatuses(run, statusHeads(handoff, comment?.shown), deps)
      : []
  const statusDue = statusesDue.length > 0
  if (!commentDue && !statusDue) {
    return rowOf(run, 'up-to-date', upToDateWhy(handoff, comment !== undefined))
  }
  let notes: string[] = []
  if (handoff.waits) {
    // Its step may still be about to write the end itself.
    const workflow = await deps.desk.workflowRun(handoff)
    if (!workflow?.over) {
      return rowOf(
        run,
        'left',
        `its step is still reporting it (workflow run ${workflow?.status ?? 'unknown'})`,
      )
    }
    notes = [LOST_RUNNER]
  }
  const shows = [commentDue ? 'comment' : '', statusDue ? 'commit status' : ''].filter(Boolean)
  const why = `it ended ${run.state}; its ${shows.join(' and ')} still showed it going`
  if (settings.dryRun) return rowOf(run, 'finalized', why)

  const newer = await findSupersedingRun(deps.client, run, { sleep: deps.sleep, now: deps.now })
  const children = await childrenAtEnd(run, deps)
  const outcome: StepOutcome = {
    kind: 'finished',
    run,
    elapsedMs: elapsedOf(run),
    ...(newer ? { supersededBy: newer.run_id } : {}),
    ...(children.length > 0 ? { children } : {}),
  }
  // The status first: a comment at its end then means the status is too (see above), and a
  // refused status leaves the comment going, so that the next pass tries both again.
  // A newer run on the same commit owns the status now, as a waiting step would leave it.
  for (const due of statusesDue) {
    if (newer?.metadata?.[STEP_KEYS.headSha] === due.on.headSha) continue
    const report = finalStatus(outcome, due.workflowRun ?? deps.desk.stepWorkflowRunUrl(handoff))
    if (!(await deps.desk.setStatus(due.on, report, deps.log))) {
      return rowOf(run, 'failed', `${why}; GitHub refused the status, so the next pass tries again`)
    }
  }
  if (commentDue) {
    const answer = await answerOf(run, deps)
    const context = { outcome: commentOutcomeOf(outcome, false), answer, notes }
    const spot = deps.desk.stepSpot(handoff, commentDue.commentId)
    if (!(await deps.desk.showInComment(handoff, spot, run, context, deps.log))) {
      return rowOf(
        run,
        'failed',
        `${why}; GitHub refused the comment, so the next pass tries again`,
      )
    }
  }
  return rowOf(run, 'finalized', why)
}

/** A commit a step left the run's status on, and the workflow run of that step when known. */
export interface StatusHead {
  on: Handoff
  workflowRun: string | undefined
}

/**
 * The commits whose status shows the run: its starting step's head, and the head its comment
 * records when a later step (previous_run: steer) took the run on to a newer one.
 */
export function statusHeads(handoff: Handoff, shown: RunEntry | undefined): StatusHead[] {
  const heads: StatusHead[] = [{ on: handoff, workflowRun: undefined }]
  if (shown?.head && shown.head !== handoff.headSha) {
    heads.push({ on: { ...handoff, headSha: shown.head }, workflowRun: shown.workflowRun })
  }
  return heads
}

/** Those of `heads` whose status is the one a step left pending for the run. */
export async function pendingStatuses(
  run: RunItem,
  heads: readonly StatusHead[],
  deps: { desk: Pick<RepositoryDesk, 'stepStatus'> },
): Promise<StatusHead[]> {
  const read = await Promise.all(heads.map((head) => deps.desk.stepStatus(head.on)))
  return heads.filter((_, index) => statusLeftPending(read[index], run.run_id))
}

/** The agent's final message, as a waiting step reads it; undefined when there is none. */
function answerOf(
  run: RunItem,
  deps: Pick<RunFinishDeps, 'client' | 'log'>,
): Promise<string | undefined> {
  const quiet = { info: deps.log.debug, warning: deps.log.warning, debug: deps.log.debug }
  const signal = AbortSignal.timeout(RECONCILE_PASS.answerMs)
  return readAnswer(run.run_id, agentWorkSources(deps.client), quiet, signal)
}

export function upToDateWhy(
  handoff: Handoff,
  commentFound: boolean,
  what: 'run' | 'set' = 'run',
): string {
  const it = what === 'set' ? 'its set' : 'it'
  if (handoff.comment && !commentFound) {
    return `no comment of its step lists ${it}, and its commit status is not left pending`
  }
  return what === 'set' ? "GitHub already shows its set's end" : 'GitHub already shows its end'
}

/** The runs the run's agent started, for its comment (their spend, their sessions); none if unread. */
async function childrenAtEnd(
  run: RunItem,
  deps: Pick<RunFinishDeps, 'client'>,
): Promise<RunItem[]> {
  try {
    return await readChildren(
      deps.client,
      run.run_id,
      {},
      {
        timeoutMs: CHILDREN_READ_MS,
        maxRetries: 0,
      },
    )
  } catch {
    return []
  }
}
