import type { SavedRunRecord } from '../../src/state.ts'

/** The runs a main step saved for its post step (STATE_runs): one list, one run's or a set's. */
export function savedRuns(state: Readonly<Record<string, string>>): SavedRunRecord[] {
  return state.runs ? (JSON.parse(state.runs) as SavedRunRecord[]) : []
}

/** The one run a main step without `tasks` saved, if any. */
export function savedRun(state: Readonly<Record<string, string>>): SavedRunRecord | undefined {
  return savedRuns(state)[0]
}
