import { bindingCaps, maxCreditsCap, type SpendCap } from '../model/spend-cap.ts'
import type { Conversation } from '../agent/conversation.ts'
import type { RunItem } from '../api/types.ts'
import type { Settings } from '../inputs/main-step.ts'
import type { RunRecord } from '../model/record.ts'
import { outcomeOfRun } from '../model/run-outcome.ts'
import type { StepOutcome, StepTarget } from '../model/step.ts'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { CHILDREN_READ_MS, NEW_PASS_GRACE_MS } from '../timing.ts'
import type { AgentRunsClient } from '../api/client.ts'
import { mergeChildren } from '../model/tree.ts'
import { readChildren } from './tree.ts'
import type { RunTag } from './create.ts'
import type { Interruption } from './interruption.ts'
import { RunLifecycle, type LifecycleDeps, type LifecycleSpec } from './lifecycle.ts'
import { StepRuns } from './step-runs.ts'
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
  /** output_schema or pull_request_review: what checks the document of a run that succeeded. */
  checkResult?: LifecycleSpec['checkResult']
  /** Told where the run stands after each start and poll (its surfaces show it). */
  onProgress?: (runs: readonly RunRecord[]) => void
  /** What the credit budgets had left when the step was admitted: the run stops there. */
  budgetCaps?: readonly SpendCap[]
}

/** How the step's one run ended: its outcome, its checked document, and the run that replaced it. */
export interface ExecutedRun {
  readonly outcome: StepOutcome
  /** The document that validated; undefined when there is none. */
  readonly document?: unknown
  /** The conversation read to check it, so that the answer is not read twice. */
  readonly conversation?: Conversation
  /** `previous_run: cancel` in a newer step: the run that replaced this one. */
  readonly newer?: RunItem
}

/**
 * The step's one run, as a set of one: started (created, or adopted and followed up), awaited
 * and stopped by the one scheduler, its document checked (corrections asked for), a signal's
 * cancel folded in, and its end told as the step's outcome, with the newer run that replaced it.
 */
export async function executeStep(
  settings: StepSettings,
  deps: StepDeps,
  interruption: Interruption,
): Promise<ExecutedRun> {
  const startedAt = deps.now()
  if (deps.signal.aborted) return { outcome: { kind: 'interrupted', run: undefined } }
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
      checkResult: deps.checkResult,
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
      watch: deps.watch,
      onSteered: deps.onSteered,
    },
  )
  const { timeoutMs } = settings
  const caps = bindingCaps(maxCreditsCap(settings.agentWork.maxCredits), ...(deps.budgetCaps ?? []))
  const schedule = { maxParallel: 1, passWhen: { kind: 'all' as const }, timeoutMs, caps }
  const runs = new StepRuns(
    [lifecycle],
    { ...schedule, pollIntervalMs: settings.pollIntervalMs },
    {
      client,
      now,
      sleep,
      signal,
      log,
      onProgress: () => deps.onProgress?.(runs.records),
      // Only a run still in flight is cancelled: a run that ended (FAILED, say) ends pass_when
      // with it, and nothing is cancelled.
      announceStop: (stop, inFlight) => {
        if (inFlight.length === 0) return
        const subject = `Run ${safeForLog(lifecycle.record.runId ?? '')}`
        if (stop.why.kind === 'timeout') {
          return log.info(
            `${subject} did not finish within the timeout input (${formatDuration(timeoutMs)}); cancelling it.`,
          )
        }
        const line = `${subject} is being stopped: ${stop.reason}; cancelling it.`
        if (stop.why.kind === 'over-budget') log.warning(line)
        else log.info(line)
      },
    },
  )
  const end = await runs.execute(interruption)
  const { record } = lifecycle
  // After a signal the runner's grace is the cancel's; a run handed on is another step's.
  if (!end.signal && !end.handedOver) await readTreeAtEnd(record, client)
  if (end.handedOver && record.run) {
    return { outcome: { kind: 'handed-over', run: record.run, reason: end.handedOver } }
  }
  if (end.signal) {
    const { run, cancel } = record
    const by = interruption.interrupted
    return { outcome: { kind: 'interrupted', run, signal: end.signal, cancel, by } }
  }
  const read = outcomeOfRun(record, { elapsedMs: deps.now() - startedAt, timeoutMs, caps })
  // A run never started was stopped with the step: a create's failure is thrown.
  const children = record.children?.length ? { children: record.children } : {}
  const outcome: StepOutcome =
    read.kind === 'not-started' || end.schedule.kind === 'interrupted'
      ? { kind: 'interrupted', run: record.run, ...children }
      : { ...read, ...children }
  const checked = { outcome, document: record.document, conversation: record.conversation }
  if (outcome.kind !== 'finished') return checked
  const newer = (await runs.replaced())?.newer
  if (!newer) return checked
  return { ...checked, outcome: { ...outcome, supersededBy: newer.run_id }, newer }
}

/**
 * The child runs the run's agent started, read once at its end (one list request), so that its
 * spend and surfaces count them: a failed read leaves those last seen.
 */
async function readTreeAtEnd(
  record: RunRecord,
  client: Pick<AgentRunsClient, 'iterateRuns'>,
): Promise<void> {
  const { runId } = record
  if (!runId || record.end?.kind === 'started' || record.end?.kind === 'not-started') return
  try {
    const children = await readChildren(
      client,
      runId,
      {},
      { timeoutMs: CHILDREN_READ_MS, maxRetries: 0 },
    )
    record.children = mergeChildren(record.children, children)
  } catch {
    // The outcome stands; its spend is then the run's and the children last seen.
  }
}
