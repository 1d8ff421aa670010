import type { Settings } from '../inputs/main-step.ts'
import type { RunRecord } from '../model/record.ts'
import type { StepOutcome, StepTarget } from '../model/step.ts'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { NEW_PASS_GRACE_MS } from '../timing.ts'
import { rereadAfterCancel } from './cancel.ts'
import type { RunTag } from './create.ts'
import { RunLifecycle, type LifecycleDeps } from './lifecycle.ts'
import { RunScheduler, type ScheduleEnd } from './scheduler.ts'
import type { SteerSource } from './steer.ts'
import type { ContinueSource } from './continue-pr.ts'

export type StepSettings = Omit<Settings, 'target' | 'github'> & { target: StepTarget }

/** What one run's step needs: its lifecycle's needs, with the tag, steering and the schedule's hook. */
export interface StepDeps extends LifecycleDeps {
  /** Tags a new run so that a create whose answer was lost can find it again. */
  tag: RunTag
  /** `previous_run: steer`: what changed on GitHub, to steer the key's run instead of creating. */
  steer?: SteerSource
  /** `continue_from: pull_request`: the step's pull request, whose run gets its prompt. */
  continueFrom?: ContinueSource
  /** Told of each schedule as it begins, and the record of its run: a signal's cancel goes through it. */
  onSchedule?: (scheduler: RunScheduler, record: RunRecord) => void
}

/**
 * The step's one run, as a set of one: started (created, or adopted and followed up), awaited
 * and stopped by the one scheduler, and its end told as the step's outcome.
 */
export async function executeStep(settings: StepSettings, deps: StepDeps): Promise<StepOutcome> {
  const startedAt = deps.now()
  if (deps.signal.aborted) return { kind: 'interrupted', run: undefined }
  const { client, tracker, now, sleep, signal, log } = deps
  const lifecycle = new RunLifecycle(
    {
      target: settings.target,
      record: {},
      tag: deps.tag,
      wait: settings.wait,
      cancelPrevious: settings.cancelPrevious,
      noteSuperseded: true,
      startFailure: 'throw',
      newPassGraceMs: Math.min(NEW_PASS_GRACE_MS, settings.timeoutMs / 2),
      ...(settings.previousRun === 'steer' ? { steer: deps.steer } : {}),
      ...(settings.continueFrom ? { continueFrom: deps.continueFrom } : {}),
    },
    {
      client,
      tracker,
      now,
      sleep,
      signal,
      log,
      onRunSeen: deps.onRunSeen,
      watch: deps.watch,
      onSteered: deps.onSteered,
    },
  )
  const scheduler = new RunScheduler(
    [lifecycle],
    {
      maxParallel: 1,
      passWhen: { kind: 'all' },
      timeoutMs: settings.timeoutMs,
      pollIntervalMs: settings.pollIntervalMs,
      // One run's cap is its watcher's, which says what the run cost.
      maxCredits: undefined,
    },
    {
      client,
      now,
      sleep,
      signal,
      log,
      // Only a run still in flight is cancelled, and only the timeout stops one run on its way:
      // a run that ended (FAILED, say) ends pass_when with it, and nothing is cancelled.
      announceStop: (stop, inFlight) => {
        if (inFlight.length === 0) return
        const subject = `Run ${safeForLog(lifecycle.record.runId ?? '')}`
        log.info(
          stop.why.kind === 'timeout'
            ? `${subject} did not finish within the timeout input (${formatDuration(settings.timeoutMs)}); cancelling it.`
            : `${subject} is being stopped: ${stop.reason}; cancelling it.`,
        )
      },
    },
  )
  deps.onSchedule?.(scheduler, lifecycle.record)
  const end = await scheduler.run()
  return outcomeOf(lifecycle, end, { settings, client, elapsedMs: deps.now() - startedAt })
}

/** The step's outcome, from how its run's lifecycle ended. */
async function outcomeOf(
  lifecycle: RunLifecycle,
  end: ScheduleEnd,
  context: { settings: StepSettings; client: StepDeps['client']; elapsedMs: number },
): Promise<StepOutcome> {
  const { settings, elapsedMs } = context
  const { run } = lifecycle.record
  const ended = lifecycle.end
  if (!run || !ended || end.kind === 'interrupted') return { kind: 'interrupted', run }
  switch (ended.kind) {
    case 'not-started':
      return { kind: 'interrupted', run }
    case 'started':
      return { kind: 'started', run }
    case 'terminal':
      return { kind: 'finished', run, elapsedMs }
    case 'handed-off': {
      const { passes, question } = ended.verdict
      return { kind: 'blocked', run, passes, question, elapsedMs }
    }
    case 'over-budget':
      return {
        kind: 'over-budget',
        run: (await rereadAfterCancel(context.client, ended.cancel, run)) ?? run,
        cost: ended.verdict.cost,
        maxCredits: settings.agentWork.maxCredits ?? 0,
        elapsedMs,
        cancel: ended.cancel,
      }
    case 'cancelled':
      if (ended.why.kind !== 'timeout') return { kind: 'interrupted', run }
      return {
        kind: 'timed-out',
        run,
        stateAtTimeout: ended.stateBefore ?? run.state,
        elapsedMs,
        timeoutMs: settings.timeoutMs,
        cancel: ended.cancel,
      }
  }
}
