import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import type { RunItem } from '../api/types.ts'
import type { RepositoryDesk } from '../github/repository-desk.ts'
import type { Log } from '../log.ts'
import { readHandoff, STEP_KEYS } from '../model/handoff.ts'
import { forgeTagOf } from '../model/home.ts'
import type { PassReport, PassRow } from '../summary/reconcile.ts'
import { listTaggedRuns } from '../run/listing.ts'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { RECONCILE_PASS } from '../timing.ts'
import { finishRun } from './finish-run.ts'
import { finishSetOnce, setRuns, type SetsSeen } from './finish-set.ts'
import { firstLook } from './plan.ts'
import { sweepDetachedSetRun } from './set-sweep.ts'
import { sweepRun } from './sweep.ts'
import { rowOf, walkRuns } from './walk.ts'

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
  const found = await listTaggedRuns(
    deps.client,
    { [STEP_KEYS.repository]: settings.repository },
    { updated_after: since },
    { maxPages: RECONCILE_PASS.maxPages, deadline },
  )
  // A GitLab project of the same path is another forge's: its runs are its own pass's.
  // GitHub's runs only: the pass writes GitHub's surfaces and asks GitHub about their jobs.
  const listed = { ...found, runs: found.runs.filter((run) => forgeTagOf(run) === 'github') }
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

/**
 * Where the comments a pass looks through begin: a step shows its run from its
 * start, so the earliest start among the runs (less a margin for clocks) bounds them.
 */
function commentsSince(runs: readonly RunItem[]): string | undefined {
  const starts = runs.map((run) => Date.parse(run.created_at ?? '')).filter(Number.isFinite)
  if (starts.length === 0) return undefined
  return new Date(Math.min(...starts) - RECONCILE_PASS.commentsMarginMs).toISOString()
}

function reasonOf(error: unknown): string {
  return safeForLog(error instanceof Error ? error.message : String(error), 300)
}
