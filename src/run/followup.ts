import type { RunItem } from '../api/types.ts'

export interface NewPassWatch {
  /** The run as it was before the follow-up. */
  before: RunItem
  now: () => number
  /** How long readings in the old state count as stale. */
  graceMs: number
  /** Called once, when the readings stop being stale: a new pass, or the grace ran out. */
  onSettled?: (how: 'new-pass' | 'grace-over') => void
}

/**
 * Pure logic: whether a reading of a run after a follow-up predates the
 * follow-up's effect. The new pass is recognised by the state leaving its old
 * value, never by `updated_at` (a service may touch it on receiving the
 * message, or omit it). Should the run never be seen leaving its old state
 * (a pass faster than the polls), the readings count after a bounded grace,
 * so the step does not wait out its timeout.
 */
export function watchForNewPass(watch: NewPassWatch): (seen: RunItem) => boolean {
  const since = watch.now()
  let settled = false
  return (seen) => {
    if (settled) return false
    if (seen.state !== watch.before.state) {
      settled = true
      watch.onSettled?.('new-pass')
      return false
    }
    if (watch.now() - since >= watch.graceMs) {
      settled = true
      watch.onSettled?.('grace-over')
      return false
    }
    return true
  }
}
