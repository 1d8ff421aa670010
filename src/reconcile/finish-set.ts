import type { AgentRunsClient } from '../api/client.ts'
import type { RunItem } from '../api/types.ts'
import type { RepositoryDesk } from '../github/repository-desk.ts'
import { SET_COMMENT_TABLE_CHARS } from '../github/set-comment.ts'
import { oneLine } from '../github/status.ts'
import type { Log } from '../log.ts'
import { STEP_KEYS, type Handoff } from '../model/handoff.ts'
import type { PassRow, RowAction } from '../summary/reconcile.ts'
import {
  renderSetComment,
  setCounts,
  setHeadline,
  setStatusOf,
  type SetView,
} from '../summary/set-table.ts'
import { carriesTags, listTaggedRuns } from '../run/listing.ts'
import { RECONCILE_PASS } from '../timing.ts'
import { upToDateWhy } from './finish-run.ts'
import { commentShowsEnd, detachedSetStanding, setStatusLeftPending } from './plan.ts'
import { rowOf } from './walk.ts'

/** What a pass needs to bring a detached set's comment and status to its end. */
export interface SetFinishDeps {
  client: Pick<AgentRunsClient, 'iterateRuns'>
  desk: Pick<
    RepositoryDesk,
    'setComment' | 'stepStatus' | 'setStatus' | 'stepWorkflowRunUrl' | 'showSetEnd'
  >
  log: Log
}

/** The pass's runs, and what it made of each detached set it took up, by the set's ID. */
export interface SetsSeen {
  readonly listed: readonly RunItem[]
  readonly ended: Map<string, { runId: string; action: RowAction; why: string }>
}

/**
 * A detached set is taken up once a pass, by the first of its runs the pass comes to: the
 * set's other runs say what became of it.
 */
export async function finishSetOnce(
  run: RunItem,
  handoff: Handoff,
  settings: { readonly dryRun: boolean },
  deps: SetFinishDeps,
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
  settings: { readonly dryRun: boolean },
  deps: SetFinishDeps,
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
export async function setRuns(
  handoff: Handoff,
  deps: { client: Pick<AgentRunsClient, 'iterateRuns'> },
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
