import type { AgentRunsClient } from '../api/client.ts'
import { NotFoundError } from '../api/errors.ts'
import type { RequestOptions } from '../api/transport.ts'
import type { RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import type { RunRecord } from '../model/record.ts'
import { safeForLog } from '../text/log.ts'
import { MIN_REQUEST_MS } from '../timing.ts'
import type { RunTracker } from './tracker.ts'

/**
 * `run_id`: one more way for a run's life to start. The step adopts the run it names, and sends
 * it the `followup` when there is one; then it awaits the run as its own.
 */

/** What adopting asks of the run's lifecycle: its record and tracker, and its one follow-up. */
export interface AdoptionHost {
  readonly record: RunRecord
  readonly tracker: RunTracker
  /** Sends a follow-up (see FollowUps): why the service refused it, or undefined once sent. */
  followUp(run: RunItem, message: string, deadline: number): Promise<string | undefined>
}

export interface AdoptionDeps {
  client: Pick<AgentRunsClient, 'getRun'>
  log: Log
  now: () => number
  /** Aborts when the workflow cancels the step. */
  signal: AbortSignal
}

/**
 * Adopts the run `runId`, and sends it the follow-up if there is one. Undefined when the step
 * was cancelled before the follow-up went out; a refused follow-up is an error (the run is left
 * as it is).
 */
export async function adoptRun(
  target: { runId: string; followup: string | undefined },
  deadline: number,
  host: AdoptionHost,
  deps: AdoptionDeps,
): Promise<RunItem | undefined> {
  const { runId, followup } = target
  const { client, log, now } = deps
  // The step's timeout bounds these too, though each gets a fair try however close it is.
  const bounded = () => ({ deadline: Math.max(deadline, now() + MIN_REQUEST_MS) })
  const run = await getExistingRun(client, runId, bounded())
  log.info(`Run ${safeForLog(runId)} is ${safeForLog(run.state, 200)}.`)
  if (followup === undefined) {
    host.tracker.track(runId)
    host.record.runId = runId
    return run
  }
  if (deps.signal.aborted) return undefined
  const refusal = await host.followUp(run, followup, deadline)
  if (refusal !== undefined) {
    throw new Error(
      `The follow-up (the followup input) to run ${safeForLog(runId)} was refused: ${safeForLog(refusal)} The run is left as it is.`,
      { cause: refusal },
    )
  }
  host.record.runId = runId
  return run
}

/** The run named by the run_id input, as the service shows it now. */
async function getExistingRun(
  client: Pick<AgentRunsClient, 'getRun'>,
  runId: string,
  options: RequestOptions,
): Promise<RunItem> {
  try {
    return await client.getRun(runId, options)
  } catch (error) {
    if (error instanceof NotFoundError) {
      throw new Error(
        `The run named by the run_id input (${safeForLog(runId)}) does not exist: ${error.message}`,
        { cause: error },
      )
    }
    throw error
  }
}
