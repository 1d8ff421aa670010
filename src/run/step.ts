import type { AgentRunsClient } from '../api/client.ts'
import type { RequestOptions, Sleep } from '../api/transport.ts'
import { NotFoundError } from '../api/errors.ts'
import { mayHaveActed } from '../api/retry.ts'
import type { CreateRunRequest, CreateRunResponse, RunItem } from '../api/types.ts'
import type { Settings } from '../inputs.ts'
import { cancelPreviousRuns, cancelOwnRun, rereadAfterCancel } from './cancel.ts'
import { createRunOnce, findSupersededRun, RunMayExistError, type RunTag } from './create.ts'
import { watchForNewPass } from './followup.ts'
import { safeForLog } from '../text/log.ts'
import type { RunTracker } from './tracker.ts'
import { waitForRun, type WaitDeps, type WaitOutcome } from './wait.ts'
import {
  MIN_REQUEST_MS,
  NEW_PASS_GRACE_MS,
  NEW_RUN_NOT_FOUND_GRACE_MS,
  SUPERSEDED_LOOKUP_TIMEOUT_MS,
} from '../timing.ts'
import { logCancel } from '../model/cancel.ts'
import { formatDuration } from '../text/format.ts'
import type { Log } from '../log.ts'
import type { StepTarget, StepOutcome } from '../model/step.ts'
import { errorMessage } from '../text/plain.ts'

export type StepSettings = Omit<Settings, 'target' | 'github'> & { target: StepTarget }

export interface StepDeps {
  client: Pick<
    AgentRunsClient,
    'createRun' | 'listRuns' | 'iterateRuns' | 'getRun' | 'sendFollowup' | 'cancelRun'
  >
  tracker: RunTracker
  /** Tags a new run so that a create whose answer was lost can find it again. */
  tag: RunTag
  now: () => number
  sleep: Sleep
  /** Aborts when the workflow cancels the step. */
  signal: AbortSignal
  log: Log
  /** Told of the run when it is first known and at every change of state, e.g. to update a comment. */
  onRunSeen?: (run: RunItem) => void
  /** Watches each reading while the step waits (session link, max_credits, BLOCKED, progress). */
  watch?: WaitDeps['watch']
}

export async function executeStep(settings: StepSettings, deps: StepDeps): Promise<StepOutcome> {
  const { client, tracker, log } = deps
  const startedAt = deps.now()
  if (deps.signal.aborted) return { kind: 'interrupted', run: undefined }
  const start =
    settings.target.kind === 'create'
      ? await startNewRun(settings.target.request, settings.cancelPrevious, {
          ...deps,
          deadline: startedAt + settings.timeoutMs,
        })
      : await adoptRun(settings.target.runId, settings.target.followup, {
          ...deps,
          deadline: startedAt + settings.timeoutMs,
        })
  // Interrupted before anything was sent that could start or restart a run.
  if (!start) return { kind: 'interrupted', run: undefined }
  const { run, staleSnapshot } = start

  deps.onRunSeen?.(run)
  if (deps.signal.aborted) return { kind: 'interrupted', run }
  if (!settings.wait) {
    tracker.settle()
    log.info(`Not waiting (wait: false); run ${safeForLog(run.run_id)} goes on without this step.`)
    return { kind: 'started', run }
  }

  const outcome = await waitForRun(
    {
      runId: run.run_id,
      timeoutMs: settings.timeoutMs - (deps.now() - startedAt),
      pollIntervalMs: settings.pollIntervalMs,
      lastSeen: staleSnapshot ? undefined : run,
      isStale: staleSnapshot
        ? watchForNewPass({
            before: staleSnapshot,
            now: deps.now,
            graceMs: Math.min(NEW_PASS_GRACE_MS, settings.timeoutMs / 2),
            onSettled: (how) => {
              tracker.newPassSeen()
              if (how === 'grace-over') {
                log.warning(
                  `Run ${safeForLog(run.run_id)} was never seen leaving ${safeForLog(staleSnapshot.state, 200)} after the follow-up; taking ${safeForLog(staleSnapshot.state, 200)} as its outcome.`,
                )
              }
            },
          })
        : undefined,
      notFoundGraceMs: settings.target.kind === 'create' ? NEW_RUN_NOT_FOUND_GRACE_MS : 0,
    },
    deps,
  )
  switch (outcome.kind) {
    case 'terminal':
      tracker.settle()
      return { kind: 'finished', run: outcome.run, elapsedMs: deps.now() - startedAt }
    case 'interrupted':
      return { kind: 'interrupted', run: outcome.run ?? run }
    case 'stopped':
      return stopWaiting(outcome.run, outcome.verdict, deps.now() - startedAt, settings, deps)
    case 'timed-out': {
      log.info(
        `Run ${safeForLog(run.run_id)} did not finish within the timeout input (${formatDuration(settings.timeoutMs)}); cancelling it.`,
      )
      const cancel = await cancelOwnRun(tracker, run.run_id, { kind: 'timeout' }, deps)
      // A BLOCKED run's refusal is the step's error line, said there once with why.
      if (cancel.kind !== 'blocked') logCancel(log, run.run_id, cancel)
      const lastSeen = outcome.run ?? run
      return {
        kind: 'timed-out',
        run: (await rereadAfterCancel(client, cancel, lastSeen)) ?? lastSeen,
        stateAtTimeout: lastSeen.state,
        elapsedMs: deps.now() - startedAt,
        timeoutMs: settings.timeoutMs,
        cancel,
      }
    }
  }
}

/** The watcher ended the wait: cancel a run past its budget; hand a BLOCKED one to a person. */
async function stopWaiting(
  run: RunItem,
  verdict: Extract<WaitOutcome, { kind: 'stopped' }>['verdict'],
  elapsedMs: number,
  settings: StepSettings,
  deps: StepDeps,
): Promise<StepOutcome> {
  switch (verdict.kind) {
    case 'blocked':
      // Handed off on purpose: the post step must not cancel a run a person is to answer.
      deps.tracker.settle()
      return { kind: 'blocked', run, passes: verdict.passes, question: verdict.question, elapsedMs }
    case 'over-budget': {
      deps.log.warning(`${verdict.message} Cancelling run ${run.run_id}.`)
      const cancel = await cancelOwnRun(deps.tracker, run.run_id, { kind: 'over-budget' }, deps)
      logCancel(deps.log, run.run_id, cancel)
      return {
        kind: 'over-budget',
        run: (await rereadAfterCancel(deps.client, cancel, run)) ?? run,
        cost: verdict.cost,
        maxCredits: settings.agentWork.maxCredits ?? 0,
        elapsedMs,
        cancel,
      }
    }
  }
}

/** The run the step starts with, and a reading to ignore as stale (from before a follow-up). */
interface StartingPoint {
  run: RunItem
  staleSnapshot?: RunItem
}

/**
 * Creates the run; undefined when the step was cancelled first. A signal during
 * `cancel_previous`, or before it, means no create is sent at all.
 */
async function startNewRun(
  request: CreateRunRequest,
  cancelPrevious: boolean,
  deps: StepDeps & { deadline: number },
): Promise<StartingPoint | undefined> {
  const name = request.config?.name
  if (cancelPrevious && name) {
    await cancelPreviousRuns(deps.client, name, deps.log, { deadline: deps.deadline })
  }
  // Nothing may come between this check and the request: a signal handler runs only at an await.
  if (deps.signal.aborted) return undefined
  deps.tracker.creating(deps.tag.invocation)
  let created: CreateRunResponse
  try {
    // Not given the abort signal: a create cut off mid-flight could leave a run nobody knows about.
    created = await createRunOnce(request, deps.tag, deps)
  } catch (error) {
    if (!(error instanceof RunMayExistError)) deps.tracker.noRunMade()
    throw error
  }
  deps.tracker.track(created.run_id)
  deps.log.info(
    `Created run ${safeForLog(created.run_id)}; it is ${safeForLog(created.state, 200)}.`,
  )
  await noteSupersededRun(deps)
  return { run: { ...created, title: request.title, prompt: request.prompt } }
}

/**
 * Adopts an existing run, and sends it the follow-up if there is one;
 * undefined when the step was cancelled before the follow-up was sent.
 */
async function adoptRun(
  runId: string,
  followup: string | undefined,
  deps: StepDeps & { deadline: number },
): Promise<StartingPoint | undefined> {
  // The step's timeout bounds these too, though each gets a fair try however close it is.
  const bounded = () => ({ deadline: Math.max(deps.deadline, deps.now() + MIN_REQUEST_MS) })
  const run = await getExistingRun(deps.client, runId, bounded())
  deps.log.info(`Run ${safeForLog(runId)} is ${safeForLog(run.state, 200)}.`)
  if (followup === undefined) {
    deps.tracker.track(runId)
    return { run }
  }
  if (deps.signal.aborted) return undefined
  deps.tracker.followingUp(runId)
  try {
    await deps.client.sendFollowup(runId, followup, bounded())
    deps.log.info(`Sent the follow-up to run ${safeForLog(runId)}.`)
  } catch (error) {
    const reason = errorMessage(error)
    if (!mayHaveActed(error)) {
      deps.tracker.followupRefused()
      throw new Error(
        `The follow-up (the followup input) to run ${safeForLog(runId)} was refused: ${safeForLog(reason)} The run is left as it is.`,
        { cause: error },
      )
    }
    deps.log.warning(
      `The answer to the follow-up to run ${safeForLog(runId)} was lost (${safeForLog(reason)}). It may have reached the run and restarted it, so the step awaits the run.`,
    )
  }
  deps.tracker.track(runId)
  // Until the service shows the follow-up's effect, the run's old state is stale.
  return { run, staleSnapshot: run }
}

/** A re-run job says which run of the earlier attempt this one replaces. */
async function noteSupersededRun(deps: StepDeps): Promise<void> {
  // One quick request, no retries, no Retry-After: it must not eat the wait.
  const deadline = deps.now() + SUPERSEDED_LOOKUP_TIMEOUT_MS
  const client: Pick<StepDeps['client'], 'listRuns'> = {
    listRuns: (query) =>
      deps.client.listRuns(query, {
        timeoutMs: SUPERSEDED_LOOKUP_TIMEOUT_MS,
        maxRetries: 0,
        deadline,
        signal: deps.signal,
      }),
  }
  try {
    const earlier = await findSupersededRun(deps.tag, { client })
    if (earlier) {
      deps.log.info(
        `This attempt supersedes run ${safeForLog(earlier.run_id)} of the previous attempt (${safeForLog(earlier.state, 200)}).`,
      )
    }
  } catch (error) {
    deps.log.debug(`Could not look up the previous attempt's run: ${safeForLog(String(error))}`)
  }
}

async function getExistingRun(
  client: StepDeps['client'],
  runId: string,
  options: RequestOptions,
): Promise<RunItem> {
  try {
    return await client.getRun(runId, options)
  } catch (error) {
    if (error instanceof NotFoundError) {
      throw new Error(
        `The run named by the run_id input (${safeForLog(runId)}) does not exist: ${error.message}`,
        {
          cause: error,
        },
      )
    }
    throw error
  }
}
