import { describe, expect, it } from 'vitest'
import {
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from '../../src/api/errors.ts'
import type { RunItem } from '../../src/api/types.ts'
import { LostContactError } from '../../src/run/scheduler.ts'
import { REREAD_AFTER_CANCEL_MS } from '../../src/timing.ts'
import { awaitOneRun as waitForRun, type OneRunDeps } from '../support/one-run.ts'

/** One poll's answer: a state, or an error to throw. */
type Reading = string | Error

/** A fake clock, sleep and client: each poll returns the next reading; time only moves in sleep. */
function harness(readings: Reading[], controller = new AbortController()) {
  let now = 0
  const sleeps: number[] = []
  const info: string[] = []
  const warnings: string[] = []
  let polls = 0
  const deps: OneRunDeps = {
    client: {
      getRun: async (runId) => {
        const reading = readings[Math.min(polls, readings.length - 1)]
        polls += 1
        if (reading instanceof Error) throw reading
        return { run_id: runId, state: reading ?? 'INPROGRESS', updated_at: String(polls) }
      },
    },
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw new Error('aborted')
      sleeps.push(ms)
      now += ms
    },
    signal: controller.signal,
    log: { debug: () => undefined, info: (m) => info.push(m), warning: (m) => warnings.push(m) },
  }
  return { deps, sleeps, info, warnings, polls: () => polls, controller }
}

const serverError = () =>
  new InternalServerError({ method: 'GET', path: '/agent/runs/r1' }, 503, {}, undefined, 'down')

describe('the scheduler, awaiting one run', () => {
  it('polls until a terminal state and logs each change once, with the time waited', async () => {
    const h = harness(['QUEUED', 'INPROGRESS', 'INPROGRESS', 'INPROGRESS', 'SUCCEEDED'])
    const outcome = await waitForRun({ timeoutMs: 60_000, pollIntervalMs: 5_000 }, h.deps)

    expect(outcome.kind).toBe('terminal')
    expect(outcome.run?.state).toBe('SUCCEEDED')
    expect(h.polls()).toBe(5)
    expect(h.info).toEqual([
      'Run r1 is QUEUED (after 5s).',
      'Run r1 is INPROGRESS (after 10s).',
      'Run r1 is SUCCEEDED (after 25s).',
    ])
  })

  it('does not log the state it was given as already seen', async () => {
    const h = harness(['QUEUED', 'SUCCEEDED'])
    const lastSeen: RunItem = { run_id: 'r1', state: 'QUEUED' }
    await waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000, lastSeen }, h.deps)

    expect(h.info).toEqual(['Run r1 is SUCCEEDED (after 2s).'])
  })

  it('returns at once for a run already terminal', async () => {
    const h = harness([])
    const lastSeen: RunItem = { run_id: 'r1', state: 'FAILED' }
    const outcome = await waitForRun({ timeoutMs: 1_000, pollIntervalMs: 100, lastSeen }, h.deps)

    expect(outcome.kind).toBe('terminal')
    expect(h.polls()).toBe(0)
  })

  it('waits through states it does not know', async () => {
    const h = harness(['WARMING_UP', 'WARMING_UP', 'SUCCEEDED'])
    const outcome = await waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000 }, h.deps)

    expect(outcome.kind).toBe('terminal')
    expect(h.info[0]).toContain('WARMING_UP')
    expect(h.info[0]).toContain('does not know')
  })

  it('warns loudly, once, that a BLOCKED run waits for a person', async () => {
    const h = harness(['BLOCKED', 'BLOCKED', 'BLOCKED', 'INPROGRESS', 'SUCCEEDED'])
    await waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000 }, h.deps)

    expect(h.warnings).toHaveLength(1)
    expect(h.warnings[0]).toMatch(/BLOCKED.*waits for a person/)
  })

  it('times out without sleeping past the deadline', async () => {
    const h = harness(['INPROGRESS'])
    const outcome = await waitForRun({ timeoutMs: 12_000, pollIntervalMs: 5_000 }, h.deps)

    expect(outcome.kind).toBe('timed-out')
    expect(outcome.run?.state).toBe('INPROGRESS')
    expect(h.sleeps).toEqual([5_000, 5_000, 2_000])
  })

  it('reads the run it cancelled at the timeout back once, briefly, so that its end shows where it ended', async () => {
    const h = harness(['INPROGRESS'])
    const getRun = h.deps.client.getRun
    const readsBack: Array<{ timeoutMs?: number; maxRetries?: number }> = []
    h.deps.client.getRun = async (runId, options) => {
      // The polls pass the step's deadline; the read after the cancel is one short try.
      if (options?.maxRetries !== 0) return getRun(runId, options)
      readsBack.push({ timeoutMs: options.timeoutMs, maxRetries: options.maxRetries })
      return { run_id: runId, state: 'CANCELLED' }
    }
    const outcome = await waitForRun({ timeoutMs: 12_000, pollIntervalMs: 5_000 }, h.deps)

    expect(outcome.kind).toBe('timed-out')
    expect(readsBack).toEqual([{ timeoutMs: REREAD_AFTER_CANCEL_MS, maxRetries: 0 }])
    expect(outcome.run?.state).toBe('CANCELLED')
  })

  it('keeps the state the run was cancelled from when the read back fails', async () => {
    const h = harness(['INPROGRESS'])
    const getRun = h.deps.client.getRun
    h.deps.client.getRun = async (runId, options) => {
      if (options?.maxRetries !== 0) return getRun(runId, options)
      throw new Error('The operation was aborted due to timeout')
    }
    const outcome = await waitForRun({ timeoutMs: 12_000, pollIntervalMs: 5_000 }, h.deps)

    expect(outcome.kind).toBe('timed-out')
    expect(outcome.run?.state).toBe('INPROGRESS')
  })

  it('rides out failed polls below the budget, warning for each', async () => {
    const failures = [serverError(), serverError(), serverError(), serverError()]
    const h = harness([...failures, 'INPROGRESS', serverError(), 'SUCCEEDED'])
    const outcome = await waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000 }, h.deps)

    expect(outcome.kind).toBe('terminal')
    expect(h.warnings).toHaveLength(5)
    expect(h.warnings[3]).toContain('Poll 4 of 5')
  })

  it('gives up with a clear error after the budget of failed polls in a row', async () => {
    const h = harness([serverError()])
    const wait = waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000 }, h.deps)

    await expect(wait).rejects.toBeInstanceOf(LostContactError)
    await expect(wait).rejects.toThrow(/5 polls in a row failed.*503/)
    expect(h.polls()).toBe(5)
  })

  it('stops at once on an error that retrying cannot fix', async () => {
    const denied = new PermissionDeniedError(
      { method: 'GET', path: '/agent/runs/r1' },
      403,
      {},
      undefined,
      '',
    )
    const h = harness([denied])
    await expect(waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000 }, h.deps)).rejects.toBe(
      denied,
    )
    expect(h.polls()).toBe(1)
  })

  it('returns interrupted when the signal aborts', async () => {
    const controller = new AbortController()
    const h = harness(['INPROGRESS'], controller)
    const getRun = h.deps.client.getRun
    let polls = 0
    h.deps.client.getRun = async (runId, options) => {
      polls += 1
      if (polls === 3) controller.abort()
      return getRun(runId, options)
    }
    const outcome = await waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000 }, h.deps)

    expect(outcome.kind).toBe('interrupted')
    expect(polls).toBe(3)
  })

  it('keeps waiting while the terminal state is stale (from before a follow-up)', async () => {
    // The first reading is the adoption's, before the follow-up: SUCCEEDED is its old state.
    const h = harness(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED', 'INPROGRESS', 'SUCCEEDED'])
    const outcome = await waitForRun(
      { timeoutMs: 60_000, pollIntervalMs: 1_000, followUp: true },
      h.deps,
    )

    expect(outcome.kind).toBe('terminal')
    expect(h.polls()).toBe(5)
    expect(h.info).toEqual([
      'Run r1 is SUCCEEDED.',
      'Run r1 is INPROGRESS (after 3s).',
      'Run r1 is SUCCEEDED (after 4s).',
    ])
  })
})

describe('the scheduler, awaiting one run: answers not to believe, and the deadline (issue 8)', () => {
  const notFound = () =>
    new NotFoundError({ method: 'GET', path: '/agent/runs/r1' }, 404, {}, undefined, 'no run')
  const refused = (seconds: number) =>
    new RateLimitError(
      { method: 'GET', path: '/agent/runs/r1' },
      429,
      { 'retry-after': String(seconds) },
      undefined,
      'slow down',
    )

  it("polls through a new run's 404s within the grace, as read-after-write lag", async () => {
    const h = harness([notFound(), notFound(), notFound(), 'SUCCEEDED'])
    const outcome = await waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000 }, h.deps)
    expect(outcome.kind).toBe('terminal')
    expect(h.info.filter((line) => line.includes('not visible yet'))).toHaveLength(1)
    expect(h.warnings).toEqual([])
  })

  it('gives up on a 404 once the grace has passed', async () => {
    const h = harness([notFound()])
    await expect(
      waitForRun({ timeoutMs: 600_000, pollIntervalMs: 5_000 }, h.deps),
    ).rejects.toBeInstanceOf(NotFoundError)
    expect(h.polls()).toBeGreaterThan(3)
    expect(h.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(30_000)
  })

  it('waits as a refusal asks, without counting it as lost contact, up to the timeout', async () => {
    const h = harness([refused(20)])
    const outcome = await waitForRun({ timeoutMs: 50_000, pollIntervalMs: 1_000 }, h.deps)
    expect(outcome.kind).toBe('timed-out')
    expect(h.sleeps).toEqual([1_000, 20_000, 20_000, 9_000])
  })

  it('gives the client the deadline, so no poll or retry outlasts the timeout', async () => {
    const deadlines: Array<number | undefined> = []
    const h = harness(['SUCCEEDED'])
    const getRun = h.deps.client.getRun
    h.deps.client.getRun = (runId, options) => {
      deadlines.push(options?.deadline)
      return getRun(runId, options)
    }
    await waitForRun({ timeoutMs: 7_000, pollIntervalMs: 1_000 }, h.deps)
    expect(deadlines).toEqual([7_000])
  })

  it('a poll that fails at the deadline is the timeout, not a failure', async () => {
    const h = harness([serverError()])
    // The poll goes out before the deadline and fails once it has passed.
    const getRun = h.deps.client.getRun
    h.deps.client.getRun = async (runId, options) => {
      await h.deps.sleep(600)
      return getRun(runId, options)
    }
    const outcome = await waitForRun({ timeoutMs: 1_500, pollIntervalMs: 1_000 }, h.deps)
    expect(outcome.kind).toBe('timed-out')
    expect(h.warnings).toEqual([])
  })

  it('a wait that runs to the deadline ends in the timeout: no poll then, however early its timer', async () => {
    // A refusal asks for 5 s, past the 3 s timeout; the timer of the wait to the deadline fires a
    // millisecond before the clock reaches it (a poll then went out with a millisecond to answer).
    const h = harness([refused(5), 'INPROGRESS'])
    const sleep = h.deps.sleep
    h.deps.sleep = async (ms, signal) => sleep(ms > 1 ? ms - 1 : ms, signal)
    const outcome = await waitForRun({ timeoutMs: 3_000, pollIntervalMs: 100 }, h.deps)
    expect(outcome.kind).toBe('timed-out')
    // The refused poll, then the read after the cancel: none at the deadline.
    expect(h.polls()).toBe(2)
  })
})
