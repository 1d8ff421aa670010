import type { RunItem } from '../api/types.ts'
import type { Handoff } from '../model/handoff.ts'
import { meaningOf, isTerminal } from '../model/states.ts'

/**
 * The pass's rules, pure: what it does with a run, from the run, its
 * hand-over, and what it found on GitHub. Reading GitHub is the pass's; each
 * rule here asks only for the facts it needs, so nothing is read for a run
 * that is left on its first look.
 */

/** The first look, from the run alone: leave it, or look at what its step left on GitHub. */
export type FirstLook =
  | { kind: 'leave'; why: string }
  /** Ended: finish its comment or status if they still show it going. */
  | { kind: 'finish'; handoff: Handoff }
  /** Still going, though its step waited: was the step's runner lost? */
  | { kind: 'sweep-check'; handoff: Handoff }

export function firstLook(
  run: RunItem,
  handoff: Handoff | undefined,
  options: { repository: string; sweep: boolean },
): FirstLook {
  if (!handoff) {
    return { kind: 'leave', why: 'its metadata has no hand-over (an older version started it)' }
  }
  // The list is filtered by repository, but the fallback filters here, and metadata is only text.
  if (handoff.repository !== options.repository) {
    return { kind: 'leave', why: `it belongs to ${handoff.repository}` }
  }
  if (isTerminal(run.state)) {
    if (!handoff.comment && !handoff.commitStatus) {
      return { kind: 'leave', why: 'its step asked for no comment or commit status' }
    }
    return { kind: 'finish', handoff }
  }
  if (!handoff.waits) return { kind: 'leave', why: 'it is still running; a later pass finishes it' }
  if (meaningOf(run.state) === 'blocked') {
    return { kind: 'leave', why: 'it waits for a person (BLOCKED), and cannot be cancelled' }
  }
  if (!options.sweep) return { kind: 'leave', why: 'its step waits for it (sweep is off)' }
  if (!handoff.workflowRunId) {
    return { kind: 'leave', why: 'its metadata names no workflow run to check' }
  }
  return { kind: 'sweep-check', handoff }
}

/** How a run shows in its step's comment, as far as the pass cares. */
export interface ShownRecord {
  state: string
  outcome?: string
}

/**
 * Whether the comment already shows the run at its end: with a final outcome
 * (any but `started`), or, without one, in a terminal state (as the post step
 * and a sweep leave it). Then a pass writes nothing.
 */
export function commentShowsEnd(shown: ShownRecord): boolean {
  return shown.outcome !== undefined ? shown.outcome !== 'started' : isTerminal(shown.state)
}

/**
 * Whether the commit status is the one the run's step left pending: still
 * pending, and naming the run. Anything else (a final state, or a newer run's
 * pending status in the same context) is not the pass's to touch.
 */
export function statusLeftPending(
  status: { state: string; description: string } | undefined,
  runId: string,
): boolean {
  return status?.state === 'pending' && status.description.includes(`(run ${runId})`)
}
