/**
 * How the command answers for a step: its exit code (the contract's table) and the one JSON
 * object it prints on every exit. Pure.
 */
import { isUnreachableOrRefused } from '../api/errors.ts'
import { InputError } from '../input-error.ts'
import { outputsAsJson } from './outputs.ts'

/** The command's exit codes (the contract's table, v1.4). */
export const EXIT = {
  passed: 0,
  notPassed: 1,
  badInput: 2,
  unreachable: 3,
  timedOut: 124,
  SIGINT: 130,
  SIGTERM: 143,
} as const

/** What the door knows when it answers: the step's end, the port's record, a signal. */
export interface StepAnswer {
  readonly outputs: Readonly<Record<string, string>>
  /** The first line the step failed with; undefined when it did not fail. */
  readonly failure: string | undefined
  /** The error the step ended on before its run had an outcome; undefined otherwise. */
  readonly error?: unknown
  /** Whether the step had created or adopted a run. */
  readonly hadRun: boolean
  /** A set's: every create failed because the service could not be reached or refused the key. */
  readonly unreachable?: boolean
  readonly signal?: 'SIGINT' | 'SIGTERM'
  /** What went wrong after the step (the summary could not be written); undefined otherwise. */
  readonly afterwards?: string
}

/** The exit code for a step's answer. */
export function exitCodeOf(answer: StepAnswer): number {
  if (answer.signal) return EXIT[answer.signal]
  if (answer.error instanceof InputError) return EXIT.badInput
  if (!answer.hadRun && (answer.unreachable || isUnreachableOrRefused(answer.error))) {
    return EXIT.unreachable
  }
  if (answer.outputs.outcome === 'timed_out') return EXIT.timedOut
  if (answer.failure !== undefined || answer.afterwards !== undefined) return EXIT.notPassed
  return EXIT.passed
}

/** The one JSON object of an exit: the outputs known so far, `outcome`, `exit_code` and `error`. */
export function answerJson(answer: StepAnswer, exitCode: number): Record<string, unknown> {
  const error = answer.afterwards ?? answer.failure
  const interrupted = answer.signal && !answer.outputs.outcome ? 'interrupted' : undefined
  return {
    ...outputsAsJson(answer.outputs),
    outcome: answer.outputs.outcome || interrupted || (error ? 'error' : 'succeeded'),
    exit_code: exitCode,
    ...(error ? { error } : {}),
  }
}

/** A refusal before any request (bad flags, bad input): nothing was created. */
export function refusalJson(error: string): Record<string, unknown> {
  return { outcome: 'error', exit_code: EXIT.badInput, error }
}
