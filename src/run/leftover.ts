import type { AgentRunsClient } from '../api/client.ts'
import { abortableSleep } from '../api/transport.ts'
import type { Log } from '../log.ts'
import { describeCancel, logCancel, type CancelReport } from '../model/cancel.ts'
import type { SavedRun, SavedRunRecord } from '../state.ts'
import { CREATE_LOOKUP } from '../timing.ts'
import { cancelDeadline, cancelRun } from './cancel.ts'
import { INVOCATION_KEY, searchForCreatedRun, steadyPauses } from './create.ts'

/**
 * What a main step left behind, as the post step finds it: a run it did not see end, or the
 * run of a create it never heard back from. The post step cancels them, one run or a set's.
 */
export interface LeftoverDeps {
  client: AgentRunsClient
  log: Log
  /** Fails the step with its error line: a cancel that failed leaves a run going. */
  setFailed: (message: string) => void
  /** The door's line before it cancels a run left going ("The main step left … unfinished"). */
  leftGoing: (run: string) => string
}

/**
 * The runs the main step left that may still need cancelling (a run, or a create's run it never
 * learned of), after saying in the log when there is none.
 */
export function leftUnfinished(saved: SavedRun, log: Log): SavedRunRecord[] {
  const left = saved.runs.filter((record) => !record.settled)
  if (left.length > 0) return left
  const [only] = saved.runs
  log.info(
    saved.ofSet
      ? 'Every run of the set ended or was cancelled in the main step; nothing to clean up.'
      : only?.runId
        ? `Run ${only.runId} ended or was handed off in the main step; nothing to clean up.`
        : // Not "created none": a main step whose state never reached this one (a local runner
          // running both in one process) may have created one, and ended it.
          'The main step saved no run for this step; nothing to clean up.',
  )
  return []
}

/**
 * Cancels a run the main step left unfinished, looking for it by its create's tag when the
 * main step never learned its ID. `ofTheSet` names it as one of a set's runs in the log.
 */
export async function cancelLeftRun(
  left: SavedRunRecord,
  deps: LeftoverDeps,
  options: { ofTheSet?: boolean } = {},
): Promise<{ runId: string; report: CancelReport } | undefined> {
  const { client, log } = deps
  const runId = left.runId ?? (await findUnansweredRun(client, left.invocation ?? '', log))
  if (!runId) return undefined
  const run = options.ofTheSet ? `run ${runId} of the set` : `run ${runId}`
  log.info(deps.leftGoing(run))
  const why = { kind: 'post' } as const
  const report = await cancelRun(
    {
      runId,
      why,
      deadline: cancelDeadline(why, Date.now()),
      mayRestart: () => left.awaitingNewPass === true,
    },
    { client, now: Date.now, sleep: abortableSleep, log },
  )
  if (report.kind === 'failed') deps.setFailed(describeCancel(runId, report))
  else logCancel(log, runId, report)
  return { runId, report }
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
  log: Log,
): Promise<string | undefined> {
  log.info(
    `The answer to the create request never came, so the run it made is not known; looking for a run tagged ${INVOCATION_KEY}=${invocation}.`,
  )
  const search = await searchForCreatedRun(invocation, {
    client,
    now: Date.now,
    sleep: abortableSleep,
    log,
    pausesMs: steadyPauses(CREATE_LOOKUP.postPauseMs),
    deadline: Date.now() + CREATE_LOOKUP.postDeadlineMs,
  })
  switch (search.kind) {
    case 'found':
      return search.run.run_id
    case 'ambiguous':
      log.warning(
        `Runs ${search.runIds.join(', ')} all carry ${INVOCATION_KEY}=${invocation}; none is cancelled. Check them by hand.`,
      )
      return undefined
    case 'none':
      log.warning(
        `No run tagged ${INVOCATION_KEY}=${invocation} was found within ${CREATE_LOOKUP.postDeadlineMs / 1000}s (${search.lastProblem}). ` +
          'The create request may still have made one: search the runs for that metadata, and cancel it if it is there.',
      )
      return undefined
  }
}
