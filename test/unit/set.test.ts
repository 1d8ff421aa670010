import { describe, expect, it } from 'vitest'
import type { StopCause } from '../../src/model/outcome.ts'
import { outcomeWordOfRun } from '../../src/model/run-outcome.ts'
import { passWhenStanding } from '../../src/model/set.ts'
import { runsOutput } from '../../src/summary/set.ts'

describe('passWhenStanding', () => {
  const counts = (succeeded: number, notSucceeded: number) => ({
    tasks: 5,
    succeeded,
    notSucceeded,
  })

  it('all: cannot be met after the first run that did not succeed', () => {
    expect(passWhenStanding({ kind: 'all' }, counts(4, 0))).toBe('open')
    expect(passWhenStanding({ kind: 'all' }, counts(0, 1))).toBe('cannot-be-met')
    expect(passWhenStanding({ kind: 'all' }, counts(5, 0))).toBe('met')
  })

  it('any: met at the first success, lost only when every run failed', () => {
    expect(passWhenStanding({ kind: 'any' }, counts(0, 4))).toBe('open')
    expect(passWhenStanding({ kind: 'any' }, counts(0, 5))).toBe('cannot-be-met')
    expect(passWhenStanding({ kind: 'any' }, counts(1, 4))).toBe('met')
  })

  it('at least N: lost as soon as the runs left cannot make up the number', () => {
    const three = { kind: 'at-least', count: 3 } as const
    expect(passWhenStanding(three, counts(1, 2))).toBe('open')
    expect(passWhenStanding(three, counts(1, 3))).toBe('cannot-be-met')
    expect(passWhenStanding(three, counts(3, 2))).toBe('met')
  })
})

describe("a task's outcome and the runs output", () => {
  it('says why each task ended, and keeps only what is known', () => {
    const run = (state: string) => ({ run_id: 'r', state })
    const base = { invocation: 'inv', runId: 'r' }
    const cancel = { kind: 'cancelled' } as const
    const stopped = (cause: StopCause, state = 'CANCELLED') => ({
      ...base,
      run: run(state),
      stoppedBy: cause,
      end: { kind: 'cancelled' as const, cause, stateBefore: undefined, cancel },
    })
    const terminal = { kind: 'terminal' } as const
    expect(outcomeWordOfRun({ ...base, run: run('SUCCEEDED'), end: terminal })).toBe('succeeded')
    expect(outcomeWordOfRun({ ...base, run: run('ERROR'), end: terminal })).toBe('error')
    expect(outcomeWordOfRun(stopped('pass-when'))).toBe('cancelled')
    expect(outcomeWordOfRun(stopped('timeout', 'INPROGRESS'))).toBe('timed_out')
    expect(outcomeWordOfRun(stopped('signal'))).toBe('interrupted')
    expect(outcomeWordOfRun({})).toBe('not_started')
    expect(outcomeWordOfRun({ ...base, createError: 'refused' })).toBe('error')
    // A create that went out and never answered was cut short with the step.
    expect(outcomeWordOfRun({ invocation: 'inv' })).toBe('interrupted')
    // wait: false: created and handed over, never "interrupted".
    expect(outcomeWordOfRun({ ...base, run: run('QUEUED'), end: { kind: 'started' } })).toBe(
      'started',
    )
    // BLOCKED and handed to a person (on_blocked fail or pass): never "interrupted".
    const handedOff = { kind: 'handed-off', passes: false, question: undefined } as const
    expect(outcomeWordOfRun({ ...base, run: run('BLOCKED'), end: handedOff })).toBe('blocked')
    // A run the step never waited for (a reconcile pass's): by its state once it ended.
    expect(outcomeWordOfRun({ ...base, run: run('FAILED') })).toBe('failed')
  })

  it('shares the result output between the answers, so the whole stays within its cap', () => {
    const tasks = [0, 1].map((index) => ({
      index,
      request: { prompt: `p${index}` },
      invocation: `inv${index}`,
      runId: `run_${index}`,
      run: { run_id: `run_${index}`, state: 'SUCCEEDED' },
    }))
    const answers = new Map([
      [0, { answer: 'x'.repeat(200 * 1024), artifacts: [] }],
      [1, { answer: 'short', artifacts: [] }],
    ])
    const runs = JSON.parse(runsOutput(tasks, answers).json ?? '') as { result?: string }[]
    expect(runs[1]).toEqual({
      task: 1,
      run_id: 'run_1',
      state: 'SUCCEEDED',
      outcome: 'succeeded',
      result: 'short',
    })
    expect(Buffer.byteLength(runs[0]?.result ?? '')).toBeLessThanOrEqual(128 * 1024)
    expect(runs[0]?.result).toMatch(/Truncated/)
  })
})
