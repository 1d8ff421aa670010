import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { isFinalCancel } from '../../src/run/cancel.ts'
import { INVOCATION_KEY, isProvablyOurs, isSameRequest } from '../../src/run/create.ts'
import { watchForNewPass } from '../../src/run/followup.ts'
import { TrackedRuns } from '../../src/run/tracker.ts'
import type { SavedRunRecord } from '../../src/state.ts'

const run = (patch: Partial<RunItem>): RunItem => ({ run_id: 'run_1', state: 'QUEUED', ...patch })
const NOW = Date.parse('2026-01-01T12:00:00Z')

describe('isProvablyOurs', () => {
  const request = { prompt: 'Fix it', title: 'Fix', config: { model_id: 'm1', name: 'n' } }

  it('a run carrying the tag is ours, whatever its time or request', () => {
    const tagged = run({
      metadata: { [INVOCATION_KEY]: 'tag-1' },
      created_at: '2001-01-01T00:00:00Z',
    })
    expect(isProvablyOurs(tagged, 'tag-1', {}, undefined)).toBe(true)
  })

  it('a run carrying another tag is not, even with the same request', () => {
    const other = run({
      metadata: { [INVOCATION_KEY]: 'tag-2' },
      prompt: 'Fix it',
      title: 'Fix',
      agent_config: request.config,
      created_at: new Date(NOW).toISOString(),
    })
    expect(isProvablyOurs(other, 'tag-1', { request, maxAgeMs: 60_000 }, NOW)).toBe(false)
  })

  it('a run shown without metadata counts by its whole request, inside the service-clock window', () => {
    const same = run({ prompt: 'Fix it', title: 'Fix', agent_config: { ...request.config } })
    const at = (ms: number) => ({ ...same, created_at: new Date(ms).toISOString() })
    const options = { request, maxAgeMs: 60_000 }
    expect(isProvablyOurs(at(NOW - 10_000), 'tag-1', options, NOW)).toBe(true)
    expect(isProvablyOurs(at(NOW - 120_000), 'tag-1', options, NOW)).toBe(false)
    // Without the service's own "now", no window can be drawn, so nothing is proven.
    expect(isProvablyOurs(at(NOW - 10_000), 'tag-1', options, undefined)).toBe(false)
    // Without the request, only the tag proves anything.
    expect(isProvablyOurs(at(NOW - 10_000), 'tag-1', {}, NOW)).toBe(false)
  })
})

describe('isSameRequest', () => {
  const request = {
    prompt: 'Fix it',
    title: 'Fix',
    config: { model_id: 'm1', mcp_servers: { a: { url: 'https://x.test' } } },
  }
  const same = run({
    prompt: 'Fix it',
    title: 'Fix',
    agent_config: structuredClone(request.config),
  })

  it('matches the whole request, config included', () => {
    expect(isSameRequest(same, request)).toBe(true)
  })

  it('tolerates config members the service resolved and added', () => {
    expect(
      isSameRequest({ ...same, agent_config: { ...same.agent_config, base_prompt: 'x' } }, request),
    ).toBe(true)
  })

  it.each([
    ['prompt', { prompt: 'Fix that' }],
    ['title', { title: 'Other' }],
    ['model', { agent_config: { ...request.config, model_id: 'm2' } }],
    [
      'a nested config member',
      { agent_config: { ...request.config, mcp_servers: { a: { url: 'https://y.test' } } } },
    ],
    ['a missing config', { agent_config: undefined }],
  ])('a different %s is another run', (_what, patch) => {
    expect(isSameRequest({ ...same, ...patch }, request)).toBe(false)
  })
})

describe('watchForNewPass', () => {
  const before = run({ state: 'SUCCEEDED', updated_at: '2026-01-01T00:00:00Z' })

  function watch(graceMs = 30_000) {
    let now = 0
    const settled: string[] = []
    const isStale = watchForNewPass({
      before,
      now: () => now,
      graceMs,
      onSettled: (how) => settled.push(how),
    })
    return { isStale, settled, advance: (ms: number) => (now += ms) }
  }

  it('the old state is stale, even with a newer updated_at', () => {
    const { isStale } = watch()
    expect(isStale({ ...before, updated_at: '2026-01-01T00:05:00Z' })).toBe(true)
  })

  it('the new pass begins when the state leaves its old value, and stays begun', () => {
    const { isStale, settled } = watch()
    expect(isStale({ ...before, state: 'QUEUED' })).toBe(false)
    expect(isStale(before)).toBe(false)
    expect(settled).toEqual(['new-pass'])
  })

  it('without updated_at, a pass never seen ends the staleness after the grace', () => {
    const { isStale, settled, advance } = watch(5_000)
    const bare = { ...before, updated_at: undefined }
    expect(isStale(bare)).toBe(true)
    advance(4_999)
    expect(isStale(bare)).toBe(true)
    advance(1)
    expect(isStale(bare)).toBe(false)
    expect(settled).toEqual(['grace-over'])
  })
})

/** The runs as the post step would read them: each run's last record, up to the count saved. */
const memoryState = () => {
  const state = { saved: [] as SavedRunRecord[], saves: 0, count: 0 }
  return Object.assign(state, {
    saveRunCount: (count: number) => {
      state.count = count
    },
    saveRun: (index: number, record: SavedRunRecord) => {
      if (index >= state.count) throw new Error(`run ${index} saved before its count`)
      state.saved[index] = record
      state.saves += 1
    },
  })
}

/** One run's tracker in a list of its own, as one run's step keeps it. */
const trackerOf = (state: ReturnType<typeof memoryState>) => new TrackedRuns(state).track()

describe('RunTracker', () => {
  it('a create out may have an unseen run until it is tracked or ruled out', async () => {
    const state = memoryState()
    const tracker = trackerOf(state)
    expect(await tracker.whenDecided(10_000)).toBeUndefined()
    tracker.creating('tag-1')
    expect(tracker.mayHaveUnseenRun).toBe(true)
    const decided = tracker.whenDecided(10_000)
    tracker.track('run_1')
    expect(await decided).toBe('run_1')
    expect(tracker.mayHaveUnseenRun).toBe(false)
    expect(state.saved).toEqual([{ invocation: 'tag-1', runId: 'run_1' }])
  })

  it('a refused create rules the run out at once', async () => {
    const tracker = trackerOf(memoryState())
    tracker.creating('tag-1')
    const decided = tracker.whenDecided(10_000)
    tracker.noRunMade()
    expect(await decided).toBeUndefined()
    expect(tracker.mayHaveUnseenRun).toBe(false)
  })

  it('a follow-up out delays the decision; a refused one settles without a cancel owed', async () => {
    const state = memoryState()
    const tracker = trackerOf(state)
    tracker.followingUp('run_1')
    expect(tracker.deciding).toBe(true)
    expect(state.saved[0]?.runId).toBe('run_1')
    const decided = tracker.whenDecided(10_000)
    tracker.followupRefused()
    expect(await decided).toBe('run_1')
    expect(tracker.needsCancel).toBe(false)
    expect(state.saved[0]?.settled).toBe(true)
  })

  it('whenDecided gives up after its time with what is known', async () => {
    const tracker = trackerOf(memoryState())
    tracker.followingUp('run_1')
    expect(await tracker.whenDecided(5)).toBe('run_1')
    expect(tracker.deciding).toBe(true)
  })
})

describe('isFinalCancel', () => {
  const quiet = { deciding: false, awaitingNewPass: false }

  it('a cancel that landed, or found the run finished, settles', () => {
    expect(isFinalCancel({ kind: 'cancelled' }, quiet)).toBe(true)
    expect(isFinalCancel({ kind: 'already-finished' }, quiet)).toBe(true)
  })

  it('a failed cancel, or one while a follow-up is out, does not', () => {
    expect(isFinalCancel({ kind: 'failed', message: 'x' }, quiet)).toBe(false)
    expect(isFinalCancel({ kind: 'cancelled' }, { ...quiet, deciding: true })).toBe(false)
  })

  it('"already finished" before the follow-up\'s new pass was seen proves nothing', () => {
    expect(isFinalCancel({ kind: 'already-finished' }, { ...quiet, awaitingNewPass: true })).toBe(
      false,
    )
    expect(isFinalCancel({ kind: 'cancelled' }, { ...quiet, awaitingNewPass: true })).toBe(true)
  })
})
