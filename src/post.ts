import * as core from '@actions/core'
import { type AgentRunsClient } from './api/client.ts'
import { abortableSleep } from './api/transport.ts'
import type { RunItem } from './api/types.ts'
import { reportFromSaved, stoppedCheckReport } from './github/check-run.ts'
import { GitHubContext } from './github/context.ts'
import {
  adoptCheckRun,
  openCommitStatus,
  openSetComment,
  openThreadComment,
} from './github/setup.ts'
import { oneLine } from './github/status.ts'
import { readPostSettings, runnerInputs, type GitHubSettings, type PostSettings } from './inputs.ts'
import { describeCancel, logCancel, type CancelReport } from './model/cancel.ts'
import { publishError } from './report/publish.ts'
import { cancelDeadline, cancelRun } from './run/cancel.ts'
import { INVOCATION_KEY, searchForCreatedRun, steadyPauses } from './run/create.ts'
import { serviceClient } from './service.ts'
import { readRunnerWorld } from './runner.ts'
import { readSavedRun, type CheckRunLookup, type SavedRun } from './state.ts'
import { CREATE_LOOKUP } from './timing.ts'
import type { World } from './world.ts'

/**
 * The post step: the cleanup path that works when no signal reached the main
 * step (a hard kill, a container job, a step under `if: always()`). It cancels
 * a run the main step left unfinished, and does nothing otherwise. It reuses
 * the main step's pieces: the search for a create's run, and the cancel. The
 * runner's world is read here, once, and handed down.
 */
export async function run(world: World = readRunnerWorld()): Promise<void> {
  try {
    const saved = readSavedRun()
    if (saved.setRuns.length > 0) return await cancelSetRuns(saved, world)
    const unfinished = leftUnfinished(saved)
    const checkRunLeft = saved.checkRunDone ? undefined : checkRunOf(saved)
    // Inputs are read only when there is work: a main step that failed on them created nothing.
    if (!unfinished && checkRunLeft === undefined) return
    const settings = readPostSettings(runnerInputs(world))
    const github = new GitHubContext(settings.github.token, world)
    const report = unfinished ? await cancelLeftRun(saved, settings, github) : undefined
    if (checkRunLeft !== undefined) {
      await finishCheckRun(checkRunLeft, saved, report, settings.github, github)
    }
  } catch (error) {
    await publishError(error)
  }
}

/** Cancels the run the main step left, and shows where it ended on its comment and status. */
async function cancelLeftRun(
  saved: SavedRun,
  settings: PostSettings,
  context: GitHubContext,
): Promise<CancelReport | undefined> {
  const client = postClient(settings)
  const runId = saved.runId ?? (await findUnansweredRun(client, saved.invocation ?? ''))
  if (!runId) return undefined
  core.info(`The main step left run ${runId} unfinished; cancelling it.`)
  const why = { kind: 'post' } as const
  const report = await cancelRun(
    {
      runId,
      why,
      deadline: cancelDeadline(why, Date.now()),
      mayRestart: () => saved.awaitingNewPass,
    },
    { client, now: Date.now, sleep: abortableSleep, log: core },
  )
  if (report.kind === 'failed') core.setFailed(describeCancel(runId, report))
  else logCancel(core, runId, report)
  if (saved.commentId && settings.github.comment) {
    const stopped = STOPPED[report.kind]
    await finishComment(client, runId, saved.commentId, settings.github, context, stopped)
  }
  if (saved.statusSha && settings.github.commitStatus) {
    await finishStatus(saved.statusSha, report, settings.github, context)
  }
  return report
}

/** A run still being prepared answers 409 for a while; there is time to wait it out here. */
function postClient(settings: PostSettings): AgentRunsClient {
  return serviceClient(settings, { maxRetries: 5 })
}

/**
 * With `tasks`: cancels, in parallel, every run of the set the main step left
 * unfinished, and looks (by its tag) for the run of every create it never
 * heard back from. Fails the step when a cancel failed.
 */
async function cancelSetRuns(saved: SavedRun, world: World): Promise<void> {
  const left = saved.setRuns.filter((record) => !record.settled)
  if (left.length === 0) {
    core.info('Every run of the set ended or was cancelled in the main step; nothing to clean up.')
    return
  }
  const settings = readPostSettings(runnerInputs(world))
  const client = postClient(settings)
  const deps = { client, now: Date.now, sleep: abortableSleep, log: core }
  const why = { kind: 'post' } as const
  const reports = await Promise.all(
    left.map(async (record) => {
      const runId = record.runId ?? (await findUnansweredRun(client, record.invocation))
      if (!runId) return undefined
      core.info(`The main step left run ${runId} of the set unfinished; cancelling it.`)
      const report = await cancelRun(
        { runId, why, deadline: cancelDeadline(why, Date.now()) },
        deps,
      )
      if (report.kind === 'failed') core.setFailed(describeCancel(runId, report))
      else logCancel(core, runId, report)
      return report
    }),
  )
  const cancelled = reports.filter((report) => report?.kind === 'cancelled').length
  const runs = (count: number) => `${count} ${count === 1 ? 'run' : 'runs'}`
  const note = `The step stopped before the set ended; the post step cancelled ${runs(cancelled)} it left unfinished${cancelled < left.length ? ` (of ${left.length})` : ''}. The table shows the runs as the step last saw them.`
  await finishSetSurfaces(saved, settings, world, note)
}

/** The set's comment and status still show it running; say that the step stopped. */
async function finishSetSurfaces(
  saved: SavedRun,
  settings: PostSettings,
  world: World,
  note: string,
): Promise<void> {
  const setComment = settings.github.comment ? saved.setComment : undefined
  const statusSha = settings.github.commitStatus ? saved.statusSha : undefined
  if (!setComment && !statusSha) return
  const context = new GitHubContext(settings.github.token, world)
  const comment = setComment
    ? await openSetComment(settings.github, context, core, setComment)
    : undefined
  const status = statusSha
    ? await openCommitStatus(settings.github, context, { sha: statusSha }, core)
    : undefined
  status?.show({ state: 'error', description: oneLine(note) })
  await Promise.all([comment?.markStopped(note), status?.settled()])
}

/** Whether the main step left a run (or a create's run) that may still need cancelling. */
function leftUnfinished(saved: SavedRun): boolean {
  if (saved.settled) {
    core.info(
      saved.runId
        ? `Run ${saved.runId} ended or was handed off in the main step; nothing to clean up.`
        : 'The main step created no run; nothing to clean up.',
    )
    return false
  }
  if (!saved.runId && !saved.invocation) {
    core.info('The main step created no run; nothing to clean up.')
    return false
  }
  return true
}

/**
 * The run a create request made when the main step never learned of it: the
 * main step stopped before the answer came, or the answer was lost and the run
 * was not found yet. Looks patiently (the service's list can lag behind its
 * writes by seconds, and a cancelled job leaves the post step minutes before
 * the runner's force-kill), by the request's unique tag, until a deadline.
 */
async function findUnansweredRun(
  client: AgentRunsClient,
  invocation: string,
): Promise<string | undefined> {
  core.info(
    `The main step did not learn which run its create request made; looking for a run tagged ${INVOCATION_KEY}=${invocation}.`,
  )
  const search = await searchForCreatedRun(invocation, {
    client,
    now: Date.now,
    sleep: abortableSleep,
    log: core,
    pausesMs: steadyPauses(CREATE_LOOKUP.postPauseMs),
    deadline: Date.now() + CREATE_LOOKUP.postDeadlineMs,
  })
  switch (search.kind) {
    case 'found':
      return search.run.run_id
    case 'ambiguous':
      core.warning(
        `Runs ${search.runIds.join(', ')} all carry ${INVOCATION_KEY}=${invocation}; none is cancelled. Check them by hand.`,
      )
      return undefined
    case 'none':
      core.warning(
        `No run tagged ${INVOCATION_KEY}=${invocation} was found within ${CREATE_LOOKUP.postDeadlineMs / 1000}s (${search.lastProblem}). ` +
          'The create request may still have made one: search the runs for that metadata, and cancel it if it is there.',
      )
      return undefined
  }
}

/** The main step's comment still shows the run in progress; show where it ended. */
async function finishComment(
  client: AgentRunsClient,
  runId: string,
  commentId: number,
  github: GitHubSettings,
  context: GitHubContext,
  stopped: string,
): Promise<void> {
  let run: RunItem
  try {
    run = await client.getRun(runId, { maxRetries: 0 })
  } catch {
    return // Without the run's state, the comment is better left as it is than guessed at.
  }
  const comment = await openThreadComment(github, context, core, {
    commentId,
    name: run.agent_config?.name,
  })
  if (!comment) return
  comment.show(run, { notes: [`${stopped}.`] })
  await comment.settled()
}

const STOPPED: Record<CancelReport['kind'], string> = {
  cancelled: 'The step stopped before the run ended; the run was cancelled',
  'already-finished': 'The step stopped before it could report the run, which has ended',
  blocked: 'The step stopped while the run waits for a person; a BLOCKED run cannot be cancelled',
  refused: 'The step stopped before the run ended; the service refused the cancel',
  'not-cancellable': 'The step stopped before the run ended; the run cannot be cancelled',
  failed: 'The step stopped before the run ended, and cancelling the run failed',
}

/** The main step's check run: by its ID, or by its external_id when the create's answer was lost. */
function checkRunOf(saved: SavedRun): { id: number } | CheckRunLookup | undefined {
  return saved.checkRunId !== undefined ? { id: saved.checkRunId } : saved.checkRunLookup
}

/**
 * The main step's check run is still in progress: GitHub did not take the main step's
 * completion (it is completed with the conclusion the main step reached), or the step stopped
 * (a hard kill, or an error) before it came to complete it. Without a cancel to tell, it failed.
 */
async function finishCheckRun(
  known: { id: number } | CheckRunLookup,
  saved: SavedRun,
  report: CancelReport | undefined,
  github: GitHubSettings,
  context: GitHubContext,
): Promise<void> {
  const checkRun = await adoptCheckRun(github, context, known, core)
  await checkRun.finish(
    saved.checkRunReport
      ? reportFromSaved(saved.checkRunReport)
      : stoppedCheckReport(
          report ? `${STOPPED[report.kind]}.` : STEP_STOPPED,
          report?.kind === 'cancelled',
        ),
  )
}

const STEP_STOPPED = "The step stopped before it reported the run. The workflow run's log says why."

/** The main step's commit status still says pending; say that the step stopped. */
async function finishStatus(
  sha: string,
  report: CancelReport,
  github: GitHubSettings,
  context: GitHubContext,
): Promise<void> {
  const status = await openCommitStatus(github, context, { sha }, core)
  status?.show({ state: 'error', description: STOPPED[report.kind] })
  await status?.settled()
}
