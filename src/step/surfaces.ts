import type { AgentRunsClient } from '../api/client.ts'
import type { PostSettings } from '../inputs/post-step.ts'
import type { CancelReport } from '../model/cancel.ts'
import type { RunRecord } from '../model/record.ts'
import type { SavedRun } from '../state.ts'
import type { StepIo } from '../step-io.ts'
import type { World } from '../world.ts'

/**
 * What a step shows on GitHub besides the log and the job summary (its comment, commit status,
 * check run, review), fed by the engine's events: the step's runs as they stand after each
 * start and poll (one run's or a set's tasks, the same event), then the end. One implementation
 * per shape: one run's (`RunSurfaces`) and a set's (`SetSurfaces`), each opened before the
 * first run; the post step's word goes through `StoppedSurfaces`.
 */
export interface StepSurfaces<End, Work> {
  /** The step's runs on their way, as they stand after a start or a poll. */
  showRunning(runs: readonly RunRecord[]): void
  /** The end, at once: what it shows then needs nothing more read. */
  showEnd(end: End): void
  /** The end with what was read after it (the agent's work); resolves once all is settled. */
  showWork(work: Work): Promise<void>
}

/** The post step's event: the main step stopped before it showed the end. */
export interface StepStopped {
  readonly saved: SavedRun
  /** How the post step's cancel of each run the main step left went (undefined: none found). */
  readonly ended: ReadonlyArray<{ runId: string; report: CancelReport } | undefined>
  readonly settings: PostSettings
  readonly world: World
  readonly client: AgentRunsClient
  readonly io: StepIo
}

/** A shape's post step: what it says where the stopped step showed its runs. */
export interface StoppedSurfaces {
  showStopped(stopped: StepStopped): Promise<void>
}
