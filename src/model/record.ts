import type { RunItem } from '../api/types.ts'
import type { CancelReport } from './cancel.ts'
import type { StopCause } from './outcome.ts'
import type { InvalidOutput } from './step.ts'

/**
 * One run as the step knows it, kept up to date by its lifecycle: what the
 * outcome words, the set's table and the post step read of it.
 */
export interface RunRecord {
  /** The create's tag, set the moment the create goes out. */
  invocation?: string
  runId?: string
  /** The run as last seen. */
  run?: RunItem
  startedAt?: number
  endedAt?: number
  /** Why the step stopped this run, or never started it. */
  stoppedBy?: StopCause
  cancel?: CancelReport
  /** The create failed, or its run may exist but was not found. */
  createError?: string
  /** The create's answer was lost and its run not found: the post step looks for it. */
  runMayExist?: boolean
  /** The run ended or was cancelled for good: nothing more is owed on it. */
  settled?: boolean
  /** BLOCKED, and handed to a person (on_blocked fail or pass): `passes` with on_blocked: pass. */
  handedOff?: { readonly passes: boolean }
  /** output_schema: the document that validated. */
  document?: unknown
  /** output_schema: the document never validated (the run ends `invalid_output`). */
  invalidOutput?: InvalidOutput
}
