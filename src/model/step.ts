import type { RunCost } from '../agent/cost.ts'
import type { ReviewVerdict } from '../agent/review-document.ts'
import type { Interrupted } from '../door-words.ts'
import type { CreateRunRequest, RunItem, RunState } from '../api/types.ts'
import type { CancelReport } from './cancel.ts'
import type { StoppedCause } from './outcome.ts'
import type { SpendCap } from './spend-cap.ts'

/**
 * How the step ended, as a value; reporting turns it into outputs, a summary and an exit status.
 * `children`: the runs its run's agent started, part of it (their spend counted with its).
 */
export type StepOutcome = { readonly children?: readonly RunItem[] } & (
  | { kind: 'started'; run: RunItem }
  | {
      kind: 'finished'
      run: RunItem
      elapsedMs: number
      /** A newer run with the same name that replaced this one (it was cancelled for it). */
      supersededBy?: string
      /**
       * output_schema: the first validation errors of a document that never validated, after
       * `corrections` follow-ups asking for a corrected one.
       */
      invalidOutput?: InvalidOutput
      /**
       * pull_request_review: the agent's verdict on the work, once its review validated. The run
       * succeeded either way; the verdict is what every surface leads with.
       */
      reviewVerdict?: ReviewVerdict
    }
  | {
      kind: 'timed-out'
      run: RunItem
      /** The state when time ran out; `run` is as it stands after the cancel. */
      stateAtTimeout: RunState
      elapsedMs: number
      timeoutMs: number
      cancel: CancelReport
    }
  | {
      /** Past max_credits: the step cancelled the run. `run` is as it stands after the cancel. */
      kind: 'over-budget'
      run: RunItem
      cost: RunCost
      cap: SpendCap
      elapsedMs: number
      cancel: CancelReport
    }
  | {
      /** BLOCKED with on_blocked fail or pass: handed to a person, never cancelled. */
      kind: 'blocked'
      run: RunItem
      passes: boolean
      /** What it waits for: the status message, else the agent's last message. */
      question: string | undefined
      elapsedMs: number
    }
  | {
      /**
       * previous_run: steer: the workflow cancelled the step because a newer step for the thread
       * started, which steers the run: it was handed over, not cancelled.
       */
      kind: 'handed-over'
      run: RunItem
      /** What showed the newer step: the pull request's head moved on. */
      reason: string
    }
  | {
      /**
       * The step stopped the run for a cause of its own that is not the run's: an error, or a
       * set whose `pass_when` can no longer be met. `run` is as it stands after the cancel.
       */
      kind: 'stopped'
      run: RunItem
      cause: StoppedCause
      elapsedMs: number
      cancel: CancelReport
    }
  | {
      kind: 'interrupted'
      run: RunItem | undefined
      /** Filled in by the signal handler, which owns the cancel request. */
      signal?: NodeJS.Signals
      cancel?: CancelReport
      /** What the signal meant, in the door's words ("the workflow was cancelled"). */
      by?: Interrupted
    }
)

/** A document that never validated: its first errors, after `corrections` follow-ups. */
export interface InvalidOutput {
  readonly errors: readonly string[]
  readonly corrections: number
  /** The input that asked for the document: the error names it, and no other. */
  readonly input: 'output_schema' | 'pull_request_review'
}

/** What the step is asked to do with a run. */
export type RunTarget =
  | { readonly kind: 'create'; readonly request: CreateRunRequest }
  | { readonly kind: 'existing'; readonly runId: string; readonly followup: string | undefined }
  /** Follow up the run named by this step's comment thread; create one from `request` if none. */
  | { readonly kind: 'continue'; readonly message: string; readonly request: CreateRunRequest }

/** What the step acts on, once `continue_run` has been turned into a run to follow up or none. */
export type StepTarget = Exclude<RunTarget, { kind: 'continue' }>
