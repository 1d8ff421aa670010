import type { RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import type { RunRecord } from '../model/record.ts'
import { cancelAfterError, cancelDeadline, type CancelWhy } from './cancel.ts'
import { RunMayExistError } from './create.ts'
import type { Interruption } from './interruption.ts'
import type { LifecycleClient, RunLifecycle } from './lifecycle.ts'
import {
  RunScheduler,
  type ScheduleEnd,
  type ScheduleSettings,
  type SchedulerDeps,
} from './scheduler.ts'
import { findSupersedingRun } from './superseded.ts'

/** How a step's runs came to their end, with what the workflow did meanwhile. */
export interface RunsEnd {
  readonly schedule: ScheduleEnd
  /** The workflow's signal, once its cancel has been answered; undefined without one. */
  readonly signal: NodeJS.Signals | undefined
  /** Why a newer step steers the runs now (`previous_run: steer`); undefined when none does. */
  readonly handedOver: string | undefined
}

export interface StepRunsDeps extends SchedulerDeps {
  client: LifecycleClient
  /** The step's own lines (the error's cancel), beside the runs'. */
  log: Log
}

/**
 * A step's runs, one or many: their lifecycles under the one scheduler, carried to their end
 * by one path, whatever the shape of the step. A signal's cancel goes through them; a run must
 * not outlive a step that failed, so an error cancels every run in flight, then is thrown on.
 */
export class StepRuns {
  readonly lifecycles: readonly RunLifecycle[]
  readonly #scheduler: RunScheduler
  readonly #deps: StepRunsDeps

  constructor(lifecycles: readonly RunLifecycle[], settings: ScheduleSettings, deps: StepRunsDeps) {
    this.lifecycles = lifecycles
    this.#deps = deps
    this.#scheduler = new RunScheduler(lifecycles, settings, deps)
  }

  get records(): readonly RunRecord[] {
    return this.lifecycles.map((one) => one.record)
  }

  /** The service's plan cannot filter runs by metadata: each run was read on its own. */
  get listFallback(): boolean {
    return this.#scheduler.listFallback
  }

  /** How many runs succeeded, and how many ended otherwise (or failed to start). */
  counts(): ReturnType<RunScheduler['counts']> {
    return this.#scheduler.counts()
  }

  /**
   * Starts the runs and waits for them, under `interruption`: on SIGINT or SIGTERM every run in
   * flight gets its cancel at once, in parallel, within the runner's grace; on an error, briefly,
   * as after a timeout (a cancel that fails leaves the run to the post step).
   */
  async execute(interruption: Interruption): Promise<RunsEnd> {
    interruption.guard(this.#scheduler)
    const startedAt = this.#deps.now()
    let schedule: ScheduleEnd
    try {
      schedule = await this.#scheduler.run()
    } catch (error) {
      if (!interruption.cancelling) {
        await this.#cancelAfterError()
        await interruption.settled()
        throw error
      }
      // The cancel is the signal handler's; what went wrong meanwhile is still worth telling.
      if (error instanceof RunMayExistError) this.#deps.log.warning(error.message)
      schedule = { kind: 'interrupted', elapsedMs: this.#deps.now() - startedAt }
    }
    const signal = await interruption.settled()
    return { schedule, signal, handedOver: interruption.handedOver }
  }

  /**
   * Every run in flight is cancelled, in parallel; then a run known but not in flight (its
   * start failed after its create) is too. A create whose answer was lost and whose run was not
   * found leaves its tag for the post step; one that certainly failed leaves nothing owed.
   */
  async #cancelAfterError(): Promise<void> {
    const why: CancelWhy = { kind: 'error' }
    await this.#scheduler.cancelInFlight(why, cancelDeadline(why, this.#deps.now()))
    await Promise.all(this.lifecycles.map((one) => cancelAfterError(one.tracker, this.#deps)))
  }

  /**
   * The newer run that replaced one of these, when the service cancelled it for a newer step of
   * its key (`previous_run: cancel` there): a run cancelled elsewhere, not by this step.
   */
  async replaced(): Promise<{ record: RunRecord; newer: RunItem } | undefined> {
    const record = this.records.find(
      (one) => one.run?.state === 'CANCELLED' && one.stoppedBy === undefined,
    )
    if (!record?.run) return undefined
    const newer = await findSupersedingRun(this.#deps.client, record.run, this.#deps)
    return newer && { record, newer }
  }
}
