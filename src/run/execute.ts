import type { AgentRunsClient } from '../api/client.ts'
import type { RunItem } from '../api/types.ts'
import type { RunRecord } from '../model/record.ts'
import type { Log } from '../log.ts'
import { cancelAfterError } from './cancel.ts'
import { RunMayExistError } from './create.ts'
import type { Interruption } from './interruption.ts'
import {
  awaitValidOutput,
  outputCheckDeps,
  type CheckedOutput,
  type OutputRequest,
  type StepOutputCheck,
} from './output.ts'
import { executeStep, type StepDeps, type StepSettings } from './step.ts'
import { findSupersedingRun } from './superseded.ts'

/** How the run ended, with its checked result and the newer run that replaced it, if any. */
export type ExecutedRun = CheckedOutput & {
  /** cancel_previous in a newer step: the run that replaced this one. */
  newer?: RunItem
}

/** What carrying one run to its outcome needs beside the step's settings and deps. */
export interface ExecuteRunDeps {
  client: AgentRunsClient
  interruption: Interruption
  /** output_schema or pull_request_review: what the agent's result must validate against. */
  output: OutputRequest | undefined
  /** Where the result is read from, and until when. */
  check: Pick<StepOutputCheck, 'sources' | 'waitsEndBy'>
  /** The step's own lines (the error's cancel, the result's check), beside the wait's. */
  log: Log
}

/**
 * One run, from its start to the step's outcome: created or adopted and waited for, its result
 * checked (and corrections asked for), a signal's cancel folded in, and a newer run that
 * replaced it found. A run must not outlive a step that failed: an error cancels it, then
 * is thrown on.
 */
export async function executeRun(
  settings: StepSettings,
  deps: StepDeps,
  run: ExecuteRunDeps,
): Promise<ExecutedRun> {
  const { client, interruption, log } = run
  const startedAt = deps.now()
  let current: RunRecord | undefined
  // Each schedule (the run's, then a correction's) is what a signal's cancel goes through.
  const scheduled: StepDeps = {
    ...deps,
    onSchedule: (scheduler, record) => {
      interruption.guard(scheduler)
      current = record
    },
  }
  let executed: CheckedOutput
  try {
    executed = { outcome: await executeStep(settings, scheduled) }
    if (run.output) {
      const check = { ...run.check, settings, startedAt, deps: scheduled, log }
      executed = await awaitValidOutput(executed.outcome, outputCheckDeps(run.output, check))
    }
  } catch (error) {
    if (!interruption.cancelling) {
      await cancelAfterError(deps.tracker, { ...deps, client, log })
      throw error
    }
    // The cancel is the signal handler's; what went wrong meanwhile is still worth telling.
    if (error instanceof RunMayExistError) log.warning(error.message)
    executed = { outcome: { kind: 'interrupted', run: undefined } }
  }
  const { outcome } = executed
  const signal = await interruption.settled()
  const handedTo = interruption.handedOver
  const steered = current?.run ?? outcome.run
  if (handedTo && steered)
    return { outcome: { kind: 'handed-over', run: steered, reason: handedTo } }
  if (signal) {
    const run = current?.run ?? outcome.run
    const by = interruption.interrupted
    return { outcome: { kind: 'interrupted', run, signal, cancel: current?.cancel, by } }
  }
  if (outcome.kind !== 'finished') return executed
  const newer = await findSupersedingRun(client, outcome.run, deps)
  return newer
    ? { ...executed, outcome: { ...outcome, supersededBy: newer.run_id }, newer }
    : executed
}
