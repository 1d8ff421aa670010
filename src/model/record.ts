import type { RunCost } from '../agent/cost.ts'
import type { Conversation } from '../agent/conversation.ts'
import type { RunItem, RunState } from '../api/types.ts'
import type { CancelReport } from './cancel.ts'
import type { StopCause } from './outcome.ts'
import type { InvalidOutput } from './step.ts'

/** How a run's life in the step ended, once it has: what its outcome is read from. */
export type RunEnd =
  /** The run reached a terminal state (a reading not from before a follow-up). */
  | { readonly kind: 'terminal' }
  /** `wait: false`: the run goes on without the step. */
  | { readonly kind: 'started' }
  /** BLOCKED with on_blocked fail or pass: handed to a person, never cancelled. */
  | {
      readonly kind: 'handed-off'
      readonly passes: boolean
      /** What it waits for: the status message, else the agent's last message. */
      readonly question: string | undefined
    }
  /** The step stopped it (timeout, the credit cap, pass_when, a signal, an error, the post step). */
  | {
      readonly kind: 'cancelled'
      readonly cause: StopCause
      /** The state it was stopped in; `run` is as it stands after the cancel. */
      readonly stateBefore: RunState | undefined
      readonly cancel: CancelReport
    }
  /** Its create failed, or the step was stopped before anything was sent. */
  | { readonly kind: 'not-started' }

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
  /** The create failed because the service could not be reached or refused the key: no run. */
  createUnreachable?: boolean
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
  /** The conversation read to check its document: its final answer is not read twice. */
  conversation?: Conversation
  /** How its life in the step ended; undefined while it goes. */
  end?: RunEnd
  /**
   * What the run had used before this step's work began, when it is not new (continue_from:
   * pull_request): not this step's, so max_credits does not count it.
   */
  usedBefore?: RunCost
  /**
   * The child runs its agent started (orchestration), as last listed: part of this run, their
   * own usage counted with its (model/tree.ts).
   */
  children?: RunItem[]
}
