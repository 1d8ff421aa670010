import type { AgentRunsClient } from '../api/client.ts'
import type { RunItem } from '../api/types.ts'
import { rowOf, walkRuns } from './walk.ts'
import { gitlabReason, jobFinished, type GitLabApi } from '../gitlab/api.ts'
import { MergeRequestNote, type MergeRequestTarget } from '../gitlab/note.ts'
import type { NoteRecord } from '../gitlab/note-text.ts'
import { outcomeWordOf } from '../model/ending.ts'
import type { Log } from '../log.ts'
import { describeCancel } from '../model/cancel.ts'
import { FORGE_KEY } from '../model/home.ts'
import { STEP_KEYS } from '../model/handoff.ts'
import type { PassReport, PassRow } from '../summary/reconcile.ts'
import { renderSummary } from '../summary/summary.ts'
import { requestCancel } from '../run/cancel.ts'
import { listTaggedRuns } from '../run/listing.ts'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { escapeMarkdown } from '../text/markdown.ts'
import { RECONCILE_PASS } from '../timing.ts'
import { awaitingJob, firstGitLabLook, handedOnInGitLab, type GitLabRunTag } from './gitlab-plan.ts'
import { elapsedOf } from './plan.ts'

export interface GitLabPassSettings {
  /** The project's path (`group/app`): the pass touches only runs tagged with it. */
  readonly project: string
  readonly lookbackMs: number
  readonly sweep: boolean
  readonly dryRun: boolean
}

export interface GitLabPassDeps {
  readonly client: Pick<AgentRunsClient, 'iterateRuns' | 'cancelRun'>
  readonly gitlab: Pick<GitLabApi, 'job' | 'mergeRequestPipelines'>
  /** Where a merge request's note is: the API, the project, the IID and the token. */
  readonly noteOn: (mergeRequest: number) => MergeRequestTarget
  readonly now: () => number
  readonly log: Log
}

const FINISHED_LINE =
  'Its job ended without waiting for it (--no-wait); a reconcile pass wrote its end here.'

/**
 * `cloud-agent-run reconcile`, one pass over a GitLab project's runs updated within the
 * lookback (one request a page): an ended run's merge request note, still showing it going, is
 * brought to its end; a run still going whose job GitLab reports finished is cancelled, and its
 * note says so. A failure is a row and a warning, and the pass goes on.
 */
export async function gitlabReconcilePass(
  settings: GitLabPassSettings,
  deps: GitLabPassDeps,
): Promise<PassReport> {
  const deadline = deps.now() + RECONCILE_PASS.deadlineMs
  const since = new Date(deps.now() - settings.lookbackMs).toISOString()
  const listed = await listTaggedRuns(
    deps.client,
    { [STEP_KEYS.repository]: settings.project, [FORGE_KEY]: 'gitlab' },
    { updated_after: since },
    { maxPages: RECONCILE_PASS.maxPages, deadline },
  )
  deps.log.info(
    `${listed.runs.length} GitLab run(s) of ${safeForLog(settings.project)} updated within ${formatDuration(settings.lookbackMs)}.`,
  )
  const rows = await walkRuns(listed.runs, (run) => reconcileRun(run, settings, deps), {
    now: deps.now,
    deadline,
    dryRun: settings.dryRun,
    log: deps.log,
  })
  return {
    rows,
    filteredHere: listed.filteredHere,
    dryRun: settings.dryRun,
    lookbackMs: settings.lookbackMs,
  }
}

async function reconcileRun(
  run: RunItem,
  settings: GitLabPassSettings,
  deps: GitLabPassDeps,
): Promise<PassRow> {
  const look = firstGitLabLook(run, settings)
  if (look.kind === 'leave') return rowOf(run, 'left', look.why)
  let note: RunNote | undefined
  try {
    note = look.tag.mergeRequest ? await noteOfRun(run, look.tag.mergeRequest, deps) : undefined
  } catch (error) {
    return rowOf(run, 'failed', `GitLab's notes could not be read: ${gitlabReason(error)}`)
  }
  try {
    return look.kind === 'finish'
      ? await finishRun(run, look.tag, note, settings, deps)
      : await sweepRun(run, look.tag, note, settings, deps)
  } catch (error) {
    return rowOf(run, 'failed', `GitLab could not be read: ${gitlabReason(error)}`)
  }
}

interface RunNote {
  readonly note: MergeRequestNote
  readonly record: NoteRecord
  readonly where: string
}

async function noteOfRun(
  run: RunItem,
  mergeRequest: number,
  deps: GitLabPassDeps,
): Promise<RunNote | undefined> {
  const found = await MergeRequestNote.ofRun(deps.noteOn(mergeRequest), run.run_id, {
    log: deps.log,
  })
  return found && { ...found, where: `merge request !${mergeRequest}` }
}

/** Brings an ended run's note to its end, when it still shows the run going. */
async function finishRun(
  run: RunItem,
  tag: GitLabRunTag,
  note: RunNote | undefined,
  settings: GitLabPassSettings,
  deps: GitLabPassDeps,
): Promise<PassRow> {
  if (!note) return rowOf(run, 'up-to-date', 'no note on its merge request records it')
  if (note.record.ended) return rowOf(run, 'up-to-date', `its note on ${note.where} shows its end`)
  if (tag.waits) {
    // Its job may still be about to write the end itself.
    const job = awaitingJob(tag, note.record, run.run_id)
    const status = job ? (await deps.gitlab.job(tag.project, job)).status : 'unknown'
    if (!jobFinished(status)) return rowOf(run, 'left', `its job is still reporting it (${status})`)
  }
  const why = `it ended ${run.state}; its note on ${note.where} still showed it going`
  if (settings.dryRun) return rowOf(run, 'finalized', why)
  const outcome = { kind: 'finished', run, elapsedMs: elapsedOf(run) } as const
  const summary = renderSummary(outcome)
  const text = tag.waits ? summary : `${summary.trim()}\n\n${FINISHED_LINE}`
  // The key's history has its end too, so that a later job of the key lists it as it ended.
  const entry = {
    run: {
      runId: run.run_id,
      state: run.state,
      outcome: outcomeWordOf(outcome),
      ...(run.session_link ? { sessionLink: run.session_link } : {}),
    },
  }
  if (!(await note.note.upsert(text, { ...note.record, ended: true }, entry))) {
    return rowOf(run, 'failed', `${why}; GitLab refused the note, so the next pass tries again`)
  }
  return rowOf(run, 'finalized', why)
}

/** Cancels a run still going whose awaiting job GitLab reports finished; its note says so. */
async function sweepRun(
  run: RunItem,
  tag: GitLabRunTag,
  note: RunNote | undefined,
  settings: GitLabPassSettings,
  deps: GitLabPassDeps,
): Promise<PassRow> {
  const job = awaitingJob(tag, note?.record, run.run_id)
  if (!job) return rowOf(run, 'left', 'its tag names no job to ask GitLab about')
  const judged = await deps.gitlab.job(tag.project, job)
  const { status } = judged
  if (!jobFinished(status)) return rowOf(run, 'left', `its job ${job} is ${status}`)
  if (tag.steers && tag.mergeRequest !== undefined && status === 'canceled') {
    const pipelines = await deps.gitlab.mergeRequestPipelines(tag.project, tag.mergeRequest)
    const handedOn = handedOnInGitLab(judged, tag, pipelines)
    if (handedOn.kind === 'leave') return rowOf(run, 'left', handedOn.why)
  }
  const why = `its job ${job} finished (${status}) while the run still went: its runner was lost`
  if (settings.dryRun) return rowOf(run, 'swept', why)
  const report = await requestCancel(deps.client, run.run_id)
  if (report.kind !== 'cancelled' && report.kind !== 'already-finished') {
    return rowOf(run, 'failed', `${why}; ${describeCancel(run.run_id, report)}`)
  }
  if (note && !note.record.ended) {
    const text = [
      '### 🧹 Cloud agent run: swept',
      '',
      `Run <code>${escapeMarkdown(run.run_id)}</code> was still going when its job ${job} finished (${escapeMarkdown(status)}) without it: a reconcile pass cancelled it.`,
    ].join('\n')
    await note.note.upsert(text, { ...note.record, ended: true })
  }
  return rowOf(
    { ...run, state: report.kind === 'cancelled' ? 'CANCELLED' : run.state },
    'swept',
    why,
  )
}
