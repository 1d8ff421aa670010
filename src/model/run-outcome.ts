import type { SpendCap } from './spend-cap.ts'
import { costSince, type RunCost } from '../agent/cost.ts'
import { costIn, isUnpriced } from './money.ts'
import { outcomeWordOf } from './ending.ts'
import type { Outcome } from './outcome.ts'
import type { RunRecord } from './record.ts'
import { isTerminal } from './states.ts'
import { treeCostOf } from './tree.ts'
import type { StepOutcome } from './step.ts'

/** What a run's outcome is read with besides its record: the step's clock and caps. */
export interface RunOutcomeContext {
  /** How long the run took, as the step tells it. */
  readonly elapsedMs: number
  readonly timeoutMs: number
  /** The caps the step's runs stopped at, one per unit. */
  readonly caps: readonly SpendCap[]
}

/** A run the step never started: its create failed, or the step stopped before it was sent. */
export interface NotStarted {
  readonly kind: 'not-started'
  readonly createError: string | undefined
}

/**
 * Pure: how one run of the step ended, from its record. The one reading for a step's one run
 * and for each task of a set: its own end, else the cause the step stopped it for, one switch
 * over the causes, so that a new one does not compile until it is named.
 */
export function outcomeOfRun(
  record: RunRecord,
  context: RunOutcomeContext,
): StepOutcome | NotStarted {
  const { run, end } = record
  if (!run) {
    // A create that went out and was neither answered nor refused was cut short with the step.
    if (record.createError === undefined && record.invocation !== undefined) {
      return { kind: 'interrupted', run: undefined }
    }
    return { kind: 'not-started', createError: record.createError }
  }
  const { elapsedMs } = context
  // A run the step never waited for (a reconcile pass's) ended on its own once it is terminal;
  // one still going when the step ended went with it (the workflow's signal).
  if (!end) {
    const ended = isTerminal(run.state)
    return ended ? { kind: 'finished', run, elapsedMs } : { kind: 'interrupted', run }
  }
  switch (end.kind) {
    case 'not-started':
      return { kind: 'interrupted', run }
    case 'started':
      return { kind: 'started', run }
    case 'terminal':
      return { kind: 'finished', run, elapsedMs, invalidOutput: record.invalidOutput }
    case 'handed-off':
      return { kind: 'blocked', run, passes: end.passes, question: end.question, elapsedMs }
    case 'cancelled': {
      const { cancel } = end
      switch (end.cause) {
        case 'timeout':
          return {
            kind: 'timed-out',
            run,
            stateAtTimeout: end.stateBefore ?? run.state,
            elapsedMs,
            timeoutMs: context.timeoutMs,
            cancel,
          }
        case 'over-budget': {
          const cost = costSince(treeCostOf(run, record.children), record.usedBefore)
          return {
            kind: 'over-budget',
            run,
            cost,
            cap: crossedCap(cost, context.caps),
            elapsedMs,
            cancel,
          }
        }
        case 'signal':
        case 'post':
          return { kind: 'interrupted', run, cancel }
        case 'error':
        case 'pass-when':
          return { kind: 'stopped', run, cause: end.cause, elapsedMs, cancel }
      }
    }
  }
}

/** Only the word is read: the clock and the caps do not change it. */
const WORD_ONLY: RunOutcomeContext = { elapsedMs: 0, timeoutMs: 0, caps: [] }

/** The cap a run stopped over budget went past: the one its spend (or its missing figure) broke. */
function crossedCap(cost: RunCost, caps: readonly SpendCap[]): SpendCap {
  const crossed = caps.find((cap) => {
    const spent = costIn(cost, cap.amount.unit)
    return isUnpriced(cost, cap.amount.unit) || (spent !== undefined && spent > cap.amount.value)
  })
  return crossed ?? caps[0] ?? { amount: { value: 0, unit: 'credits' }, input: 'max_credits' }
}

/**
 * Pure: one run's `outcome` word (a task's in the `runs` output): its outcome's, `error` for a
 * create that failed, `not_started` for a task the step never started.
 */
export function outcomeWordOfRun(record: RunRecord): Outcome | 'not_started' {
  const outcome = outcomeOfRun(record, WORD_ONLY)
  if (outcome.kind !== 'not-started') return outcomeWordOf(outcome)
  return outcome.createError === undefined ? 'not_started' : 'error'
}
