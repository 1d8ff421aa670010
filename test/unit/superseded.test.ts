import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { findSupersedingRun } from '../../src/run/superseded.ts'
import { SUPERSEDING_LOOKUP } from '../../src/timing.ts'

const older: RunItem = {
  run_id: 'run_old',
  state: 'CANCELLED',
  created_at: '2026-11-23T12:00:00Z',
  /** When it was cancelled. */
  updated_at: '2026-11-23T12:00:03Z',
  agent_config: { name: 'pr-7' },
}
const newer: RunItem = {
  run_id: 'run_new',
  state: 'QUEUED',
  created_at: '2026-11-23T12:00:05Z',
  agent_config: { name: 'pr-7' },
}

/** A clock that moves only when the lookup sleeps, and a list that shows `runs` from look `from` on. */
function fakes(from: number, runs: RunItem[] = [newer]) {
  let now = 0
  let looks = 0
  return {
    client: {
      listRuns: () => {
        looks += 1
        return Promise.resolve({ runs: looks >= from ? runs : [], has_more: false })
      },
    } as unknown as Parameters<typeof findSupersedingRun>[0],
    deps: {
      now: () => now,
      sleep: (ms: number) => {
        now += ms
        return Promise.resolve()
      },
    },
    looks: () => looks,
  }
}

describe('findSupersedingRun', () => {
  it('finds the newer run even when it is created a moment after the cancel is seen', async () => {
    const { client, deps, looks } = fakes(3)
    expect((await findSupersedingRun(client, older, deps))?.run_id).toBe('run_new')
    expect(looks()).toBe(3)
  })

  it('gives up after a bounded time when no newer run appears', async () => {
    const { client, deps, looks } = fakes(Infinity)
    expect(await findSupersedingRun(client, older, deps)).toBeUndefined()
    // One look at once, then one a pause apart until the time is up.
    expect(looks()).toBe(SUPERSEDING_LOOKUP.forMs / SUPERSEDING_LOOKUP.pauseMs + 1)
  })

  it.each<[string, string]>([
    ['created before the cancel (another matrix leg)', '2026-11-23T12:00:02.999Z'],
    ['created long after the cancel', '2026-11-23T12:01:03.001Z'],
  ])('a same-name run %s did not cause it: not superseded', async (_name, createdAt) => {
    const { client, deps } = fakes(1, [{ ...newer, created_at: createdAt }])
    expect(await findSupersedingRun(client, older, deps)).toBeUndefined()
  })

  it('a run created at the very moment of the cancel did cause it', async () => {
    const { client, deps } = fakes(1, [{ ...newer, created_at: older.updated_at }])
    expect((await findSupersedingRun(client, older, deps))?.run_id).toBe('run_new')
  })

  it('looks only for a cancelled run with a name and a time of its cancel', async () => {
    const { client, deps, looks } = fakes(1)
    expect(
      await findSupersedingRun(client, { ...older, updated_at: undefined }, deps),
    ).toBeUndefined()
    expect(looks()).toBe(0)
  })

  it('looks only for a cancelled run with a name', async () => {
    const { client, deps, looks } = fakes(1)
    expect(await findSupersedingRun(client, { ...older, state: 'FAILED' }, deps)).toBeUndefined()
    expect(
      await findSupersedingRun(client, { ...older, agent_config: undefined }, deps),
    ).toBeUndefined()
    expect(looks()).toBe(0)
  })
})
