import { KNOWN_RUN_STATES, type KnownRunState, type RunState } from '../api/types.ts'

/**
 * What a state means for a step that waits on the run.
 * - `succeeded`, `failed`: terminal; the step passes or fails.
 * - `active`: the service is working on it; keep waiting.
 * - `blocked`: it waits for a person; keep waiting, but say so loudly.
 * - `unknown`: a state newer than this action; keep waiting.
 */
export type StateMeaning = 'succeeded' | 'failed' | 'active' | 'blocked' | 'unknown'

export function isKnownState(state: RunState): state is KnownRunState {
  return (KNOWN_RUN_STATES as readonly string[]).includes(state)
}

export function meaningOf(state: RunState): StateMeaning {
  if (!isKnownState(state)) return 'unknown'
  switch (state) {
    case 'SUCCEEDED':
      return 'succeeded'
    case 'FAILED':
    case 'ERROR':
    case 'CANCELLED':
      return 'failed'
    case 'QUEUED':
    case 'PENDING':
    case 'CLAIMED':
    case 'INPROGRESS':
      return 'active'
    case 'BLOCKED':
      return 'blocked'
    default:
      return unreachable(state)
  }
}

export function isTerminal(state: RunState): boolean {
  const meaning = meaningOf(state)
  return meaning === 'succeeded' || meaning === 'failed'
}

function unreachable(state: never): never {
  throw new Error(`Unhandled run state ${String(state)}`)
}
