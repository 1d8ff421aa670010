import { agentWorkSources } from '../agent/sources.ts'
import { readAnswer } from '../agent/work.ts'
import { rowOf, walkRuns } from './walk.ts'
import { ofHomeForge } from '../model/home.ts'
import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import type { RunItem } from '../api/types.ts'
import { commentOutcomeOf } from '../github/comment.ts'
import type { RunEntry } from '../model/key-history.ts'
import type { CommentSpot, RepositoryDesk, RunInComment } from '../github/repository-desk.ts'
import { finalStatus, oneLine } from '../github/status.ts'
import type { Log } from '../log.ts'
import { describeCancel } from '../model/cancel.ts'
import { readHandoff, STEP_KEYS, type Handoff } from '../model/handoff.ts'
import type { StepOutcome } from '../model/step.ts'
import { requestCancel } from '../run/cancel.ts'
import { carriesTags, listTaggedRuns } from '../run/listing.ts'
import { SET_COMMENT_TABLE_CHARS } from '../github/set-comment.ts'
import {
  renderSetComment,
  setCounts,
  setHeadline,
  setStatusOf,
  type SetView,
} from '../report/set-table.ts'
import { findSupersedingRun } from '../run/superseded.ts'
import { sweepDetachedSetRun } from './set-sweep.ts'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { RECONCILE_PASS } from '../timing.ts'
import type { PassReport, PassRow, RowAction } from '../report/reconcile.ts'
import {
  commentShowsEnd,
  detachedSetStanding,
  elapsedOf,
  firstLook,
  handedOnTo,
  handedToPerson,
  setStatusLeftPending,
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
    | 'newerWorkflowRun'
    | 'stepWorkflowRunUrl'
    | 'showInComment'
    | 'markSetStopped'
    | 'setStatus'
    | 'setComment'
    | 'showSetEnd'
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
/** Where this pass's runs belong: GitHub's repositories (a run tagged before gh_forge is one). */
const GITHUB = {
  forge: 'github',
  project: undefined,
  thread: undefined,
  change: undefined,
} as const

export async function reconcilePass(settings: PassSettings, deps: PassDeps): Promise<PassReport> {
  const deadline = deps.now() + RECONCILE_PASS.deadlineMs
  const since = new Date(deps.now() - settings.lookbackMs).toISOString()
  const found = await listTaggedRuns(
    deps.client,
    { [STEP_KEYS.repository]: settings.repository },
    { updated_after: since },
    { maxPages: RECONCILE_PASS.maxPages, deadline },
  )
  // A GitLab project of the same path is another forge's: its runs are its own pass's.
  const listed = { ...found, runs: found.runs.filter((run) => ofHomeForge(run, GITHUB)) }
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
  const sets: SetsSeen = { listed: listed.runs, ended: new Map() }
  const rows = await walkRuns(
    listed.runs,
    (run) => reconcileRun(run, settings, deps, deadline, sets),
    {
      now: deps.now,
      deadline,
      dryRun: settings.dryRun,
      log: deps.log,
    },
  )
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
  sets: SetsSeen,
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
      case 'finish-set':
        return await finishSetOnce(run, look.handoff, settings, deps, { deadline, sets })
      case 'set-sweep-check': {
        const options = { dryRun: settings.dryRun, deadline }
        const setRunsOf = () => setRuns(look.handoff, deps, { deadline, sets })
        const swept = await sweepDetachedSetRun(run, look.handoff, options, {
          ...deps,
          setRuns: setRunsOf,
        })
        return rowOf(swept.run, swept.action, swept.why)
      }
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
  const outcome: StepOutcome = {
    kind: 'finished',
    run,
    elapsedMs: elapsedOf(run),
    ...(newer ? { supersededBy: newer.run_id } : {}),
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
interface StatusHead {
  on: Handoff
  workflowRun: string | undefined
}

/**
 * The commits whose status shows the run: its starting step's head, and the head its comment
 * records when a later step (previous_run: steer) took the run on to a newer one.
 */
function statusHeads(handoff: Handoff, shown: RunEntry | undefined): StatusHead[] {
  const heads: StatusHead[] = [{ on: handoff, workflowRun: undefined }]
  if (shown?.head && shown.head !== handoff.headSha) {
    heads.push({ on: { ...handoff, headSha: shown.head }, workflowRun: shown.workflowRun })
  }
  return heads
}

/** Those of `heads` whose status is the one a step left pending for the run. */
async function pendingStatuses(
  run: RunItem,
  heads: readonly StatusHead[],
  deps: PassDeps,
): Promise<StatusHead[]> {
  const read = await Promise.all(heads.map((head) => deps.desk.stepStatus(head.on)))
  return heads.filter((_, index) => statusLeftPending(read[index], run.run_id))
}

/** The pass's runs, and what it made of each detached set it took up, by the set's ID. */
interface SetsSeen {
  readonly listed: readonly RunItem[]
  readonly ended: Map<string, { runId: string; action: RowAction; why: string }>
}

/**
 * A detached set is taken up once a pass, by the first of its runs the pass comes to: the
 * set's other runs say what became of it.
 */
async function finishSetOnce(
  run: RunItem,
  handoff: Handoff,
  settings: PassSettings,
  deps: PassDeps,
  pass: { deadline: number; sets: SetsSeen },
): Promise<PassRow> {
  const setId = handoff.set ?? ''
  const seen = pass.sets.ended.get(setId)
  if (seen?.action === 'up-to-date') return rowOf(run, 'up-to-date', seen.why)
  if (seen?.action === 'finalized') {
    return rowOf(
      run,
      'up-to-date',
      `its set's end was written in this pass, with run ${seen.runId}`,
    )
  }
  if (seen) return rowOf(run, 'left', `its set was taken up with run ${seen.runId}: ${seen.why}`)
  const row = await finishSet(run, handoff, settings, deps, pass)
  pass.sets.ended.set(setId, { runId: run.run_id, action: row.action, why: row.why })
  return row
}

/**
 * Brings a detached set's comment and status to its end once every run of it has ended, as
 * its step would have shown it had it waited: the outcome by the set's `pass_when`, and the
 * set's table. The comment is written last, so one at its end vouches for the status.
 */
async function finishSet(
  run: RunItem,
  handoff: Handoff,
  settings: PassSettings,
  deps: PassDeps,
  pass: { deadline: number; sets: SetsSeen },
): Promise<PassRow> {
  const setId = handoff.set ?? ''
  const comment = handoff.comment ? await deps.desk.setComment(handoff) : undefined
  const commentDue = comment && !commentShowsEnd({ state: '', outcome: comment.shown.outcome })
  const status =
    handoff.commitStatus && !(comment && !commentDue)
      ? await deps.desk.stepStatus(handoff)
      : undefined
  const statusDue = setStatusLeftPending(status, setId)
  if (!commentDue && !statusDue) {
    return rowOf(run, 'up-to-date', upToDateWhy(handoff, comment !== undefined, 'set'))
  }
  const standing = detachedSetStanding(handoff, await setRuns(handoff, deps, pass))
  if (standing.kind === 'unknown') return rowOf(run, 'left', standing.why)
  if (standing.kind === 'going') {
    const going = standing.total - standing.ended
    return rowOf(
      run,
      'left',
      `its set is still going (${going} of its ${standing.total} runs): the pass that finds the last ended finishes the set`,
    )
  }
  const view: SetView = { kind: 'ended', outcome: standing.outcome }
  const [tally] = setHeadline(view).figures
  const shows = [commentDue ? 'comment' : '', statusDue ? 'commit status' : ''].filter(Boolean)
  const why = `its set ended ${standing.outcome.word} (${tally}); its ${shows.join(' and ')} still showed the set started`
  if (settings.dryRun) return rowOf(run, 'finalized', why)
  const workflowRun = deps.desk.stepWorkflowRunUrl(handoff)
  if (statusDue) {
    const { state, description } = setStatusOf(view)
    const report = { state, description: oneLine(description), targetUrl: workflowRun }
    if (!(await deps.desk.setStatus(handoff, report, deps.log))) {
      return rowOf(run, 'failed', `${why}; GitHub refused the status, so the next pass tries again`)
    }
  }
  if (comment && commentDue) {
    const { done, total } = setCounts(standing.outcome.tasks)
    const body = renderSetComment(view, workflowRun, SET_COMMENT_TABLE_CHARS)
    const shown = { body, outcome: standing.outcome.word, done, total }
    if (!(await deps.desk.showSetEnd(handoff, comment.commentId, shown, deps.log))) {
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
 * A set's runs: those the pass listed, and when some task's is not among them (it ended
 * before the lookback, say), one listing of the set's own, a page of 100 a request.
 */
async function setRuns(
  handoff: Handoff,
  deps: PassDeps,
  pass: { deadline: number; sets: SetsSeen },
): Promise<readonly RunItem[]> {
  const tags = { [STEP_KEYS.repository]: handoff.repository, [STEP_KEYS.set]: handoff.set ?? '' }
  const listed = pass.sets.listed.filter((one) => carriesTags(one, tags))
  if (listed.length >= (handoff.tasks ?? 0)) return listed
  const own = await listTaggedRuns(
    deps.client,
    tags,
    {},
    {
      maxPages: RECONCILE_PASS.maxPages,
      deadline: pass.deadline,
    },
  )
  return own.runs
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
  deps: PassDeps,
): Promise<CommentSpot | undefined> {
  if (trace) {
    return { commentId: trace.commentId, key: trace.key, workflowRun: trace.shown.workflowRun }
  }
  const comment = handoff.comment ? await deps.desk.stepComment(handoff, run.run_id) : undefined
  return comment ? deps.desk.stepSpot(handoff, comment.commentId) : undefined
}

/** The agent's final message, as a waiting step reads it; undefined when there is none. */
function answerOf(run: RunItem, deps: PassDeps): Promise<string | undefined> {
  const quiet = { info: deps.log.debug, warning: deps.log.warning, debug: deps.log.debug }
  const signal = AbortSignal.timeout(RECONCILE_PASS.answerMs)
  return readAnswer(run.run_id, agentWorkSources(deps.client), quiet, signal)
}

function upToDateWhy(handoff: Handoff, commentFound: boolean, what: 'run' | 'set' = 'run'): string {
  const it = what === 'set' ? 'its set' : 'it'
  if (handoff.comment && !commentFound) {
    return `no comment of its step lists ${it}, and its commit status is not left pending`
  }
  return what === 'set' ? "GitHub already shows its set's end" : 'GitHub already shows its end'
}

function reasonOf(error: unknown): string {
  return safeForLog(error instanceof Error ? error.message : String(error), 300)
}
