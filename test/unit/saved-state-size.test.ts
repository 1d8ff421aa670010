import { describe, expect, it } from 'vitest'
import { TrackedRuns } from '../../src/run/tracker.ts'
import { readSavedRun, savedState } from '../../src/state.ts'

/** The runner's state as its file holds it: every save appended, the last value of each key read. */
function runnerState() {
  const values = new Map<string, string>()
  let bytes = 0
  return {
    io: {
      saveState: (name: string, value: string) => {
        values.set(name, value)
        bytes += name.length + value.length + 40
      },
      getState: (name: string) => values.get(name) ?? '',
    },
    bytes: () => bytes,
  }
}

describe("a set's saved runs", () => {
  it('grow the state file by each change, not by the whole list at every change', () => {
    const state = runnerState()
    const runs = new TrackedRuns(savedState(state.io))
    const count = 1000
    const trackers = Array.from({ length: count }, () => runs.track())
    for (const [index, tracker] of trackers.entries()) tracker.creating(`inv-${index}`)
    for (const [index, tracker] of trackers.entries()) tracker.track(`run_${index}`)
    for (const tracker of trackers.slice(0, 600)) tracker.settle()
    // Three saves a run, each of one record: about 150 kB; the whole list at each save was 179 MB.
    expect(state.bytes()).toBeLessThan(count * 3 * 200)
    const saved = readSavedRun(state.io)
    expect(saved.runs).toHaveLength(count)
    expect(saved.runs[0]).toEqual({ invocation: 'inv-0', runId: 'run_0', settled: true })
    expect(saved.runs.filter((record) => !record.settled)).toHaveLength(400)
  })
})
