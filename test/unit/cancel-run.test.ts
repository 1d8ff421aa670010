import { describe, expect, it } from 'vitest'
import type { AgentRunsClient } from '../../src/api/client.ts'
import {
  cancelDeadline,
  cancelRun,
  type CancelClient,
  type CancelWhy,
} from '../../src/run/cancel.ts'
import { searchForCreatedRun, steadyPauses } from '../../src/run/create.ts'
import { CANCEL_AFTER_TIMEOUT, RECANCEL_PAUSE_MS, SIGNAL_CANCEL } from '../../src/timing.ts'

/** A clock that moves only when the code under test sleeps. */
function clock() {
  let now = 0
  return {
    now: () => now,
    sleep: (ms: number) => {
      now += ms
      return Promise.resolve()
    },
  }
}

/** A service whose runs start no children: the list of a run's children is empty. */
function noChildren(client: Pick<AgentRunsClient, 'cancelRun'>): CancelClient {
  return {
    ...client,
    // eslint-disable-next-line require-yield
    iterateRuns: async function* () {
      return { complete: true }
    },
  }
}

describe('cancelDeadline: one budget per reason, from the timing file', () => {
  it('gives a signal what the runner leaves, and a timeout, cap, error or pass_when a few seconds', () => {
    const at = (why: CancelWhy) => cancelDeadline(why, 1_000) - 1_000
    expect(at({ kind: 'signal', signal: 'SIGINT' })).toBe(SIGNAL_CANCEL.afterInterruptMs)
    expect(at({ kind: 'signal', signal: 'SIGTERM' })).toBe(SIGNAL_CANCEL.afterTerminateMs)
    for (const kind of ['timeout', 'over-budget', 'error', 'pass-when'] as const) {
      expect(at({ kind })).toBe(CANCEL_AFTER_TIMEOUT.budgetMs)
    }
    // The runner kills the step 10 s after SIGINT; the cancel and the exit margin fit inside.
    expect(SIGNAL_CANCEL.afterInterruptMs + SIGNAL_CANCEL.exitMarginMs).toBeLessThan(7_500)
  })
})

describe('cancelRun', () => {
  it('sends the cancel again while "already finished" may predate a follow-up, until it lands', async () => {
    const time = clock()
    const answers = ['already-finished', 'already-finished', 'cancelled'] as const
    let sent = 0
    const client = noChildren({
      cancelRun: () => Promise.resolve({ kind: answers[sent++] ?? 'cancelled' }),
    })
    const why = { kind: 'timeout' } as const
    const report = await cancelRun(
      { runId: 'run_1', why, deadline: cancelDeadline(why, 0), mayRestart: () => true },
      { client, ...time },
    )
    expect(report).toEqual({ kind: 'cancelled' })
    expect(sent).toBe(3)
    expect(time.now()).toBe(2 * RECANCEL_PAUSE_MS)
  })

  it('takes "already finished" as it is when no follow-up is pending, and never throws', async () => {
    const time = clock()
    let sent = 0
    const client = noChildren({
      cancelRun: () => {
        sent += 1
        return sent === 1
          ? Promise.resolve({ kind: 'already-finished' })
          : Promise.reject(new Error('down'))
      },
    })
    const why = { kind: 'error' } as const
    const first = await cancelRun({ runId: 'r', why, deadline: 8_000 }, { client, ...time })
    expect(first).toEqual({ kind: 'already-finished' })
    const second = await cancelRun({ runId: 'r', why, deadline: 8_000 }, { client, ...time })
    expect(second).toEqual({ kind: 'failed', message: 'down' })
    expect(sent).toBe(2)
  })
})

describe('searchForCreatedRun: the one search for the run of a create whose answer was lost', () => {
  const tagged = (id: string) => ({
    run_id: id,
    state: 'INPROGRESS',
    metadata: { gh_invocation: 'inv-1' },
  })

  it('looks again after each pause until the lagging list shows the run', async () => {
    const time = clock()
    let looks = 0
    const client = {
      listRuns: () => {
        looks += 1
        return Promise.resolve({ runs: looks >= 3 ? [tagged('run_7')] : [], has_more: false })
      },
    } as unknown as Pick<AgentRunsClient, 'listRuns' | 'iterateRuns'>
    const search = await searchForCreatedRun('inv-1', {
      client,
      ...time,
      log: { info: () => undefined },
      pausesMs: steadyPauses(2_000),
      deadline: 60_000,
    })
    expect(search).toMatchObject({ kind: 'found', run: { run_id: 'run_7' } })
    expect(looks).toBe(3)
    expect(time.now()).toBe(4_000)
  })

  it('stops at the deadline and says what it last saw', async () => {
    const time = clock()
    const client = {
      listRuns: () => Promise.reject(new Error('list down')),
    } as unknown as Pick<AgentRunsClient, 'listRuns' | 'iterateRuns'>
    const search = await searchForCreatedRun('inv-1', {
      client,
      ...time,
      log: { info: () => undefined },
      pausesMs: steadyPauses(2_000),
      deadline: 10_000,
    })
    expect(search.kind).toBe('none')
    expect(search.kind === 'none' && search.lastProblem).toMatch(/list down/)
    expect(time.now()).toBeLessThan(10_000)
  })
})
