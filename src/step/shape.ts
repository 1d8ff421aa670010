import type { AgentRunsClient } from '../api/client.ts'
import type { GitHubContext } from '../github/context.ts'
import type { Connection } from '../inputs/connection.ts'
import type { Amount } from '../model/money.ts'
import type { SpendCap } from '../model/spend-cap.ts'
import type { CreditBudgets } from '../inputs/budgets.ts'
import type { InputSource } from '../step-io.ts'
import type { RunHome } from '../model/home.ts'
import type { Interruption } from '../run/interruption.ts'
import type { RunTracker } from '../run/tracker.ts'
import type { StepIo } from '../step-io.ts'
import type { World } from '../world.ts'

/**
 * What the main step's one outline asks of its shape at each beat: one run (`one-run.ts`) or a
 * set of tasks (`task-set.ts`). The outline reads the inputs, the service, approval, the budgets
 * and the signals once for both; a shape says what differs.
 */
export interface StepShape {
  /** What the outline reads of the settings: the service, and the budgets. */
  readonly settings: Connection & {
    readonly budgets: CreditBudgets
    readonly agentWork: { readonly maxCredits: Amount | undefined }
  }
  /**
   * `approval`: the step admitted to start (pinned to the approved head), with GitHub; undefined
   * when it waits, or an approval did not count (the step passes and starts nothing).
   */
  admit(world: World, io: StepIo): Promise<AdmittedStep | undefined>
}

/** A step admitted to start: it knows GitHub's side, and whether it creates runs. */
export interface AdmittedStep {
  readonly github: GitHubContext
  /** Whether it creates runs, which the budgets count; not when it follows up one that exists. */
  readonly creates: boolean
  /** Opens its surfaces and decides its runs; undefined when it starts nothing (a refused comment). */
  prepare(start: StepStart): Promise<PreparedStep | undefined>
}

/** What every shape starts from, read once by the outline. */
export interface StepStart {
  readonly world: World
  /** Where the step's runs belong: its forge, project and thread. */
  readonly home: RunHome
  readonly io: StepIo
  readonly github: GitHubContext
  readonly client: AgentRunsClient
  /** The run the step answers for, saved for the post step as it becomes known. */
  readonly tracker: RunTracker
  /** `previous_run: steer`: what a door other than the runner says of a newer step. */
  readonly steering?: InputSource['steering']
  /** What the budgets had left when the step was admitted, one per unit: its runs stop there. */
  readonly budgetCaps?: readonly SpendCap[]
}

/** A prepared step: its runs are started and awaited under the interruption, then shown. */
export interface PreparedStep {
  execute(interruption: Interruption): Promise<EndedStep>
}

/** A step whose runs ended: it shows the end on every surface, with the agent's work. */
export interface EndedStep {
  finish(): Promise<void>
  /**
   * A set's: every create failed because the service could not be reached or refused the key,
   * so no run was made (one run's step says so by the error it ends on).
   */
  readonly unreachable?: boolean
}
