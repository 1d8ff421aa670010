import { formatCredits, formatDuration } from '../text/format.ts'
import type { CancelReport } from './cancel.ts'
import type { StepOutcome } from './step.ts'

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
] as const

export type Outcome = (typeof OUTCOMES)[number]

/** How the step came to stop, with the facts each way needs to be explained. */
export type Ending =
  | { readonly kind: 'started' }
  | { readonly kind: 'finished'; readonly state: string }
  | {
      readonly kind: 'timed-out'
      readonly timeoutMs: number
      readonly stateAtTimeout: string
      /** How the cancel that followed went: only a cancel that landed may be claimed. */
      readonly cancel: CancelReport['kind']
    }
  | { readonly kind: 'interrupted' }
  | { readonly kind: 'blocked'; readonly onBlocked: 'fail' | 'pass' }
  | {
      readonly kind: 'over-budget'
      readonly credits: string
      readonly maxCredits: string
      readonly cancel: CancelReport['kind']
    }
  | { readonly kind: 'superseded'; readonly newerRunId: string | undefined }
  | {
      readonly kind: 'invalid-output'
      readonly errors: readonly string[]
      readonly corrections: number
    }

/** The step's outcome as the pure outcome rules see it. */
export function endingOf(outcome: StepOutcome): Ending {
  switch (outcome.kind) {
    case 'started':
      return { kind: 'started' }
    case 'finished':
      if (outcome.supersededBy) return { kind: 'superseded', newerRunId: outcome.supersededBy }
      if (outcome.invalidOutput) return { kind: 'invalid-output', ...outcome.invalidOutput }
      return { kind: 'finished', state: outcome.run.state }
    case 'timed-out':
      return {
        kind: 'timed-out',
        timeoutMs: outcome.timeoutMs,
        // A run seen BLOCKED only by the cancel's refusal was BLOCKED when time ran out.
        stateAtTimeout: outcome.cancel.kind === 'blocked' ? 'BLOCKED' : outcome.stateAtTimeout,
        cancel: outcome.cancel.kind,
      }
    case 'interrupted':
      return { kind: 'interrupted' }
    case 'over-budget':
      return {
        kind: 'over-budget',
        credits: formatCredits(outcome.cost.credits ?? 0),
        maxCredits: formatCredits(outcome.maxCredits),
        cancel: outcome.cancel.kind,
      }
    case 'blocked':
      return { kind: 'blocked', onBlocked: outcome.passes ? 'pass' : 'fail' }
  }
}

export function outcomeOf(ending: Ending): Outcome {
  switch (ending.kind) {
    case 'started':
      return 'started'
    case 'finished':
      return finishedOutcome(ending.state)
    case 'timed-out':
      return 'timed_out'
    case 'interrupted':
      return 'interrupted'
    case 'blocked':
      return 'blocked'
    case 'over-budget':
      return 'over_budget'
    case 'superseded':
      return 'superseded'
    case 'invalid-output':
      return 'invalid_output'
  }
}

function finishedOutcome(state: string): Outcome {
  switch (state) {
    case 'SUCCEEDED':
      return 'succeeded'
    case 'ERROR':
      return 'error'
    case 'CANCELLED':
      return 'cancelled'
    default:
      return 'failed'
  }
}

/** Whether the step passes with this outcome. */
export function passes(outcome: Outcome, ending: Ending): boolean {
  switch (outcome) {
    case 'succeeded':
    case 'started':
    case 'superseded':
      return true
    case 'blocked':
      return ending.kind === 'blocked' && ending.onBlocked === 'pass'
    case 'failed':
    case 'error':
    case 'cancelled':
    case 'timed_out':
    case 'over_budget':
    case 'interrupted':
    case 'invalid_output':
      return false
  }
}

/**
 * Why the run ended, in plain words, for the summary's headline area and the log. It never
 * says whether a cancel landed: the cancel's own report (describeCancel) follows, once.
 */
export function whyItEnded(ending: Ending, statusMessage?: string): string {
  const because = statusMessage ? `: ${statusMessage}` : '.'
  switch (ending.kind) {
    case 'started':
      return 'The step did not wait for the run (wait: false); it goes on without this step.'
    case 'finished':
      switch (ending.state) {
        case 'SUCCEEDED':
          return 'The agent finished its task.'
        case 'FAILED':
          return `The agent could not finish its task${because}`
        case 'ERROR':
          return `A failure on the service's side stopped the run${because}`
        case 'CANCELLED':
          return `The run was cancelled outside this step (in the app, or through the API)${because}`
        default:
          return `The run ended ${ending.state}${because}`
      }
    case 'timed-out':
      return `The run was still ${ending.stateAtTimeout} when the timeout input (${formatDuration(ending.timeoutMs)}) ran out.`
    case 'interrupted':
      return 'The workflow was cancelled, which interrupted this step.'
    case 'blocked':
      return ending.onBlocked === 'pass'
        ? 'The run waits for a person (BLOCKED); with on_blocked: pass the step hands it over and passes.'
        : 'The run waits for a person (BLOCKED); with on_blocked: fail the step hands it over and fails.'
    case 'over-budget':
      return `The run used ${ending.credits}, more than the max_credits cap of ${ending.maxCredits}.`
    case 'superseded':
      return `A newer run with the same name replaced this one (cancel_previous)${ending.newerRunId ? `: ${ending.newerRunId}` : ''}.`
    case 'invalid-output':
      return `The agent's result ${describeInvalidOutput(ending)}`
  }
}

/**
 * A failed run's extra facts: how long its session stays open to look
 * inside, and whether the service calls the failure a platform one.
 */
export function failureNotes(statusMessage: unknown, now: number): string[] {
  if (typeof statusMessage !== 'object' || statusMessage === null) return []
  const { session_debug_until: until, retryable } = statusMessage as Record<string, unknown>
  const notes: string[] = []
  const untilMs = typeof until === 'string' ? Date.parse(until) : NaN
  if (Number.isFinite(untilMs) && untilMs > now) {
    notes.push(
      `The session stays open for debugging until ${new Date(untilMs).toISOString().replace('.000Z', 'Z')}.`,
    )
  }
  if (retryable === true) notes.push('A platform failure; a re-run may succeed.')
  return notes
}

/** What was wrong with a result that never validated, after how many corrections. */
export function describeInvalidOutput(ending: {
  errors: readonly string[]
  corrections: number
}): string {
  const after =
    ending.corrections === 0
      ? ''
      : ` after ${ending.corrections} correction${ending.corrections === 1 ? '' : 's'}`
  return `did not validate against output_schema${after}: ${ending.errors.slice(0, 3).join('; ')}.`
}
