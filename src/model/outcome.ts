import type { ReviewVerdict } from '../agent/review-document.ts'
import { meaningOf } from './states.ts'

/** The `outcome` output: why the step ended, in one word (the contract's list, v1.1). */
export const OUTCOMES = [
  'succeeded',
  'failed',
  'error',
  'cancelled',
  'timed_out',
  'superseded',
  'blocked',
  'over_budget',
  'interrupted',
  'started',
  'invalid_output',
  'awaiting_approval',
] as const

export type Outcome = (typeof OUTCOMES)[number]

/**
 * Why the step stopped a run before it ended on its own, or never started it: the workflow's
 * signal, the timeout, the credit cap, an error, the post step, or a set whose `pass_when` can
 * no longer be met. `outcomeOfStop` names the outcome each ends a run with.
 */
export const STOP_CAUSES = [
  'signal',
  'timeout',
  'over-budget',
  'error',
  'post',
  'pass-when',
] as const

export type StopCause = (typeof STOP_CAUSES)[number]

/**
 * The causes whose ending is told by the cause alone (`stopped`): every one but those with
 * facts of their own (the timeout's, the cap's, a signal's). A new cause is one of them.
 */
export type StoppedCause = Exclude<StopCause, 'timeout' | 'over-budget' | 'signal' | 'post'>

/** A commit status's state: what branch protection sees. */
export type CommitState = 'pending' | 'success' | 'failure' | 'error'

/** A check run's conclusion. */
export type CheckConclusion =
  'success' | 'failure' | 'neutral' | 'cancelled' | 'timed_out' | 'action_required'

/**
 * What every surface shows of one outcome, whatever its facts: the log, the summary, the
 * comment and its history, the commit status, the check run and a set's table all read it.
 * A new outcome is one more record here.
 */
export interface OutcomeRecord {
  readonly icon: string
  /** A few words: the comment's history, a task's row. */
  readonly short: string
  /** Whether the step passes (a blocked run passes only with on_blocked: pass). */
  readonly passes: boolean
  /**
   * Only the agent's verdict on the work is `failure`; a run that never gave one (the service's
   * error, a cancel, a stopped workflow, a result that never validated) is `error`, so that a
   * re-run is the obvious answer. Superseded is `success`: the newer run gives the verdict.
   */
  readonly commitState: CommitState
  /** The check run: a broken run says so, and is never "changes requested". */
  readonly check: { readonly conclusion: CheckConclusion; readonly title: string }
  /**
   * Whether the step brings back the agent's work (its answer, its files) on this outcome: a
   * run that ended, was stopped by the step, or waits for a person has work to show; one the
   * step never waited for (started) or that the workflow cut short (interrupted) does not.
   */
  readonly carriesAgentWork: boolean
}

export const OUTCOME_RECORDS: { readonly [O in Outcome]: OutcomeRecord } = {
  succeeded: {
    icon: '✅',
    short: 'succeeded',
    passes: true,
    commitState: 'success',
    check: { conclusion: 'success', title: 'Succeeded' },
    carriesAgentWork: true,
  },
  failed: {
    icon: '❌',
    short: 'failed',
    passes: false,
    commitState: 'failure',
    check: { conclusion: 'failure', title: 'The run broke: the agent could not finish' },
    carriesAgentWork: true,
  },
  error: {
    icon: '❌',
    short: 'error',
    passes: false,
    commitState: 'error',
    check: { conclusion: 'failure', title: "The run broke: a failure on the service's side" },
    carriesAgentWork: true,
  },
  cancelled: {
    icon: '⛔',
    short: 'cancelled',
    passes: false,
    commitState: 'error',
    check: { conclusion: 'cancelled', title: 'The run was cancelled' },
    carriesAgentWork: true,
  },
  timed_out: {
    icon: '⏱️',
    short: 'timed out',
    passes: false,
    commitState: 'failure',
    check: { conclusion: 'timed_out', title: 'The run broke: timed out' },
    carriesAgentWork: true,
  },
  superseded: {
    icon: '⏭️',
    short: 'superseded',
    passes: true,
    commitState: 'success',
    check: { conclusion: 'neutral', title: 'Superseded by a newer run' },
    carriesAgentWork: true,
  },
  blocked: {
    icon: '✋',
    short: 'waiting for a person',
    passes: false,
    commitState: 'failure',
    check: { conclusion: 'action_required', title: 'The run waits for a person' },
    carriesAgentWork: true,
  },
  over_budget: {
    icon: '💸',
    short: 'over budget',
    passes: false,
    commitState: 'failure',
    check: { conclusion: 'failure', title: 'The run broke: over its credit cap' },
    carriesAgentWork: true,
  },
  interrupted: {
    icon: '⛔',
    short: 'cancelled with the workflow',
    passes: false,
    commitState: 'error',
    check: { conclusion: 'cancelled', title: 'The run was cancelled' },
    carriesAgentWork: false,
  },
  started: {
    icon: '🚀',
    short: 'started',
    passes: true,
    commitState: 'pending',
    check: { conclusion: 'neutral', title: 'Started; this step does not wait for it' },
    carriesAgentWork: false,
  },
  invalid_output: {
    icon: '🧩',
    short: 'invalid result',
    passes: false,
    commitState: 'error',
    check: { conclusion: 'failure', title: 'The run broke: its result did not validate' },
    carriesAgentWork: true,
  },
  // Passes, yet blocks a required check: the status stays pending until a run has passed.
  awaiting_approval: {
    icon: '🔐',
    short: 'waiting for approval',
    passes: true,
    commitState: 'pending',
    check: { conclusion: 'action_required', title: "Waiting for a maintainer's approval" },
    carriesAgentWork: false,
  },
}

/**
 * The outcome of a run the step stopped for `cause`, or never started for it: one switch, so a
 * new cause does not compile until it is named here.
 */
export function outcomeOfStop(cause: StopCause): Outcome {
  switch (cause) {
    case 'signal':
    case 'post':
      return 'interrupted'
    case 'timeout':
      return 'timed_out'
    case 'over-budget':
      return 'over_budget'
    case 'error':
      return 'error'
    case 'pass-when':
      return 'cancelled'
  }
}

/**
 * A review's verdict as every surface says it: the headline leads with it, and the commit status
 * and the check run of one name agree on it. Only "changes requested" fails a gate; the step
 * itself passes, since the run succeeded (gate on the check, the status or the `verdict` output).
 */
export const REVIEW_VERDICT_RECORDS: {
  readonly [V in ReviewVerdict]: {
    readonly icon: string
    /** The headline's first words, and the comment's label. */
    readonly title: string
    readonly commitState: CommitState
    readonly check: { readonly conclusion: CheckConclusion; readonly title: string }
    /** What the review asks, in a sentence's words. */
    readonly says: string
  }
} = {
  approve: {
    icon: '✅',
    title: 'Approved',
    commitState: 'success',
    check: { conclusion: 'success', title: 'Approved by the agent' },
    says: 'approves the changes',
  },
  comment: {
    icon: '💬',
    title: 'Commented',
    commitState: 'success',
    check: { conclusion: 'success', title: 'Reviewed, with comments' },
    says: 'comments on the changes',
  },
  request_changes: {
    icon: '❌',
    title: 'Changes requested',
    commitState: 'failure',
    check: { conclusion: 'failure', title: 'Changes requested' },
    says: 'requests changes',
  },
}

/** The outcome a run's own state implies, once it has ended (or waits for a person). */
export function outcomeOfState(state: string): Outcome | undefined {
  switch (state) {
    case 'SUCCEEDED':
      return 'succeeded'
    case 'ERROR':
      return 'error'
    case 'CANCELLED':
      return 'cancelled'
    case 'BLOCKED':
      return 'blocked'
  }
  return meaningOf(state) === 'failed' ? 'failed' : undefined
}
