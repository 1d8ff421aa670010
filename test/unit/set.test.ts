import { describe, expect, it } from 'vitest'
import { passWhenStanding, taskOutcome } from '../../src/model/set.ts'
import { runsOutput } from '../../src/report/set.ts'

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

describe('taskOutcome and the runs output', () => {
  it('says why each task ended, and keeps only what is known', () => {
    const base = {
      started: true,
      createFailed: false,
      state: undefined,
      stoppedBy: undefined,
      handedOff: false,
      invalidOutput: false,
    }
    expect(taskOutcome({ ...base, state: 'SUCCEEDED' })).toBe('succeeded')
    expect(taskOutcome({ ...base, state: 'ERROR' })).toBe('error')
    expect(taskOutcome({ ...base, state: 'CANCELLED', stoppedBy: 'pass-when' })).toBe('cancelled')
    expect(taskOutcome({ ...base, state: 'INPROGRESS', stoppedBy: 'timeout' })).toBe('timed_out')
    expect(taskOutcome({ ...base, state: 'CANCELLED', stoppedBy: 'signal' })).toBe('interrupted')
    expect(taskOutcome({ ...base, started: false })).toBe('not_started')
    expect(taskOutcome({ ...base, createFailed: true })).toBe('error')
    // wait: false: created and handed over, never "interrupted".
    expect(taskOutcome({ ...base, state: 'QUEUED', detached: true })).toBe('started')
    expect(taskOutcome({ ...base, createFailed: true, detached: false })).toBe('error')
    // BLOCKED and handed to a person (on_blocked fail or pass): never "interrupted".
    expect(taskOutcome({ ...base, state: 'BLOCKED', handedOff: true })).toBe('blocked')
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
