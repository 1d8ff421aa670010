import type { SavedRunRecord } from '../../src/state.ts'

/**
 * The runs a main step saved for its post step (STATE_runs_count, then STATE_runs_<index>):
 * one run's or a set's, in order.
 */
export function savedRuns(state: Readonly<Record<string, string>>): SavedRunRecord[] {
  const count = Number(state.runs_count ?? 0)
  return Array.from({ length: count }, (_, index) => state[`runs_${index}`]).flatMap((saved) =>
    saved ? [JSON.parse(saved) as SavedRunRecord] : [],
  )
}

/** The one run a main step without `tasks` saved, if any. */
export function savedRun(state: Readonly<Record<string, string>>): SavedRunRecord | undefined {
  return savedRuns(state)[0]
}
