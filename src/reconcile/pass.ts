import { agentWorkSources } from '../agent/sources.ts'
import { collectAgentWork } from '../agent/work.ts'
import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import type { RunItem } from '../api/types.ts'
import { commentOutcomeOf } from '../github/comment.ts'
import type { CommentSpot, RepositoryDesk, RunInComment } from '../github/handoff.ts'
import { finalStatus, oneLine } from '../github/status.ts'
import type { Log } from '../log.ts'
import { describeCancel } from '../model/cancel.ts'
import { readHandoff, STEP_KEYS, type Handoff } from '../model/handoff.ts'
import { parseIsoDuration } from '../model/run.ts'
import type { StepOutcome } from '../model/step.ts'
import { requestCancel } from '../run/cancel.ts'
import { listTaggedRuns } from '../run/listing.ts'
import { findSupersedingRun } from '../run/superseded.ts'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { RECONCILE_PASS } from '../timing.ts'
import type { PassReport, PassRow, RowAction } from '../report/reconcile.ts'
import {
  commentShowsEnd,
  firstLook,
  lostRunner,
  statusLeftPending,
  waitingStep,
  workflowRunOf,
  type StepTrace,
} from './plan.ts'

export interface PassSettings {
  /** `owner/repo`: the pass touches only runs tagged with it. */
  repository: string
  lookbackMs: number
  sweep: boolean
  dryRun: boolean
}

export interface PassDeps {
  client: Pick<
    AgentRunsClient,
    | 'iterateRuns'
    | 'listRuns'
    | 'getRun'
    | 'cancelRun'
    | 'getConversation'
    | 'getArtifact'
    | 'downloadSignedUrl'
  >
  desk: Pick<
    RepositoryDesk,
    | 'commentsSince'
    | 'stepComment'
    | 'runComments'
    | 'stepSpot'
    | 'stepStatus'
    | 'workflowRun'
    | 'stepWorkflowRunUrl'
    | 'showInComment'
    | 'markSetStopped'
    | 'setStatus'
  >
  now: () => number
  sleep: Sleep
  log: Log
}

const LOST_RUNNER =
  'The step that waited for this run lost its runner: its workflow run completed without it.'

const SET_LOST_RUNNER =
  'The step of this set lost its runner: its workflow run completed without it, so its post step never ran. A reconcile pass cancels the runs it left going; the table shows them as the step last saw them.'

/**
 * One reconcile pass: lists this repository's runs updated within the
 * lookback (one request a page), then for each one finishes what its step left
 * unfinished on GitHub, sweeps what a lost runner left running, or leaves it,
 * saying why. GitHub's comments are read a page of the repository's at a time,
 * and a commit status or a workflow run only where the comment cannot vouch for
 * it; GitHub is written only where what it shows differs from what it should. A
 * failure is a row of the table and a warning, and the pass goes on.
 */
export async function reconcilePass(settings: PassSettings, deps: PassDeps): Promise<PassReport> {
  const deadline = deps.now() + RECONCILE_PASS.deadlineMs
  const since = new Date(deps.now() - settings.lookbackMs).toISOString()
  const listed = await listTaggedRuns(
    deps.client,
    { [STEP_KEYS.repository]: settings.repository },
    { updated_after: since },
    { maxPages: RECONCILE_PASS.maxPages, deadline },
  )
  if (listed.filteredHere) {
    deps.log.info(
      `The service cannot filter runs by metadata on this plan (feature_not_available): listed every run updated since ${since} and kept those tagged ${STEP_KEYS.repository}=${settings.repository}.`,
    )
  }
  deps.log.info(
    `${listed.runs.length} run(s) of ${settings.repository} updated within ${formatDuration(settings.lookbackMs)}.`,
  )
  const commentsFrom = commentsSince(listed.runs)
  if (commentsFrom) deps.desk.commentsSince(commentsFrom)
  const rows: PassRow[] = []
  for (const run of listed.runs) {
    const row =
      deps.now() > deadline
        ? rowOf(run, 'left', 'the pass ran out of time; the next pass takes it up')
        : await reconcileRun(run, settings, deps, deadline)
    const log = row.action === 'failed' ? deps.log.warning : deps.log.info
    log(
      `Run ${safeForLog(row.runId)}: ${settings.dryRun ? 'dry run, ' : ''}${row.action}: ${row.why}`,
    )
    rows.push(row)
  }
  return {
    rows,
    filteredHere: listed.filteredHere,
    dryRun: settings.dryRun,
    lookbackMs: settings.lookbackMs,
  }
}

async function reconcileRun(
  run: RunItem,
  settings: PassSettings,
  deps: PassDeps,
  deadline: number,
): Promise<PassRow> {
  const look = firstLook(run, readHandoff(run.metadata), settings)
  try {
    switch (look.kind) {
      case 'leave':
        return rowOf(run, 'left', look.why)
      case 'finish':
        return await finishRun(run, look.handoff, settings, deps)
      case 'sweep-check':
        return await sweepRun(run, look.handoff, settings, deps, deadline)
    }
  } catch (error) {
    return rowOf(run, 'failed', `GitHub could not be read: ${reasonOf(error)}`)
  }
}

/** Brings an ended run's comment and status to its end, when they still show it going. */
async function finishRun(
  run: RunItem,
  handoff: Handoff,
  settings: PassSettings,
  deps: PassDeps,
): Promise<PassRow> {
  const comment = handoff.comment ? await deps.desk.stepComment(handoff, run.run_id) : undefined
  const commentDue = comment && !commentShowsEnd(comment.shown) ? comment : undefined
  // The comment is written last, so one at its end vouches for the status: no read per commit.
  const status =
    handoff.commitStatus && !(comment && !commentDue)
      ? await deps.desk.stepStatus(handoff)
      : undefined
  const statusDue = statusLeftPending(status, run.run_id)
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
  const outcome: StepOutcome = {
    kind: 'finished',
    run,
    elapsedMs: elapsedOf(run),
    ...(newer ? { supersededBy: newer.run_id } : {}),
  }
  // The status first: a comment at its end then means the status is too (see above), and a
  // refused status leaves the comment going, so that the next pass tries both again.
  // A newer run on the same commit owns the status now, as a waiting step would leave it.
  const statusOwnedByNewer = newer?.metadata?.[STEP_KEYS.headSha] === handoff.headSha
  if (statusDue && !statusOwnedByNewer) {
    const report = finalStatus(outcome, deps.desk.stepWorkflowRunUrl(handoff))
    if (!(await deps.desk.setStatus(handoff, report, deps.log))) {
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

/**
 * Where the comments a pass looks through begin: a step shows its run from its
 * start, so the earliest start among the runs (less a margin for clocks) bounds them.
 */
function commentsSince(runs: readonly RunItem[]): string | undefined {
  const starts = runs.map((run) => Date.parse(run.created_at ?? '')).filter(Number.isFinite)
  if (starts.length === 0) return undefined
  return new Date(Math.min(...starts) - RECONCILE_PASS.commentsMarginMs).toISOString()
}

/**
 * Cancels a run whose waiting step's runner was lost, and says so where that
 * step showed it. The step judged is the one waiting now: the newest that
 * showed the run in a comment (a `continue_run` step's answer, say), else the
 * one that started it; a step that ended on purpose left nothing behind.
 */
async function sweepRun(
  run: RunItem,
  handoff: Handoff,
  settings: PassSettings,
  deps: PassDeps,
  deadline: number,
): Promise<PassRow> {
  const traces = (await deps.desk.runComments(handoff, run.run_id)).flatMap((comment) => {
    const workflowRun = workflowRunOf(comment.shown.workflowRun, settings.repository)
    return workflowRun ? [{ ...comment, workflowRun, outcome: comment.shown.outcome }] : []
  })
  const waiting = waitingStep<StepTrace & RunInComment>(handoff, traces)
  if (waiting.kind === 'leave') return rowOf(run, 'left', waiting.why)
  const judged = lostRunner(await deps.desk.workflowRun(waiting.workflowRun))
  if (!judged.lost) return rowOf(run, 'left', judged.why)
  const workflowRunId = waiting.workflowRun.workflowRunId
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
  const [spot, status] = await Promise.all([
    commentSpotOf(waiting.trace, handoff, run, deps),
    handoff.commitStatus ? deps.desk.stepStatus(handoff) : undefined,
  ])
  if (statusLeftPending(status, run.run_id)) {
    await deps.desk.setStatus(
      handoff,
      {
        state: 'error',
        description: oneLine(`Cancelled: its step's runner was lost (run ${run.run_id})`),
        targetUrl: deps.desk.stepWorkflowRunUrl(handoff),
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
  deps: PassDeps,
): Promise<CommentSpot | undefined> {
  if (trace) {
    return { commentId: trace.commentId, key: trace.key, workflowRun: trace.shown.workflowRun }
  }
  const comment = handoff.comment ? await deps.desk.stepComment(handoff, run.run_id) : undefined
  return comment ? deps.desk.stepSpot(handoff, comment.commentId) : undefined
}

/** The agent's final message, as a waiting step reads it; undefined when there is none. */
async function answerOf(run: RunItem, deps: PassDeps): Promise<string | undefined> {
  const quiet = {
    info: deps.log.debug,
    warning: deps.log.warning,
    debug: deps.log.debug,
    safeForLog,
  }
  const work = await collectAgentWork(
    run,
    { downloadPatterns: [], artifactsDir: '', runnerTemp: '', workspace: '' },
    // No download patterns: only the conversation is read.
    agentWorkSources(deps.client),
    quiet,
    AbortSignal.timeout(RECONCILE_PASS.answerMs),
  )
  return work.answer
}

/** The run's time, by the service's figure, else from its creation to its last update. */
function elapsedOf(run: RunItem): number {
  const fromService = run.run_time ? parseIsoDuration(run.run_time) : undefined
  if (fromService !== undefined) return fromService
  const span = Date.parse(run.updated_at ?? '') - Date.parse(run.created_at ?? '')
  return Number.isFinite(span) && span > 0 ? span : 0
}

function upToDateWhy(handoff: Handoff, commentFound: boolean): string {
  if (handoff.comment && !commentFound) {
    return 'no comment of its step lists it, and its commit status is not left pending'
  }
  return 'GitHub already shows its end'
}

function rowOf(run: RunItem, action: RowAction, why: string): PassRow {
  return {
    runId: run.run_id,
    title: run.title,
    state: run.state,
    sessionLink: run.session_link,
    action,
    why,
  }
}

function reasonOf(error: unknown): string {
  return safeForLog(error instanceof Error ? error.message : String(error), 300)
}
