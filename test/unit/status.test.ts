import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { finalStatus, oneLine, pendingStatus, statusContext } from '../../src/github/status.ts'
import type { StepOutcome } from '../../src/model/step.ts'

const run = (patch: Partial<RunItem> = {}): RunItem => ({
  run_id: 'run_1',
  state: 'SUCCEEDED',
  ...patch,
})
const WORKFLOW_RUN = 'https://github.com/o/r/actions/runs/1/attempts/1'
const finished = (patch: Partial<RunItem>): StepOutcome => ({
  kind: 'finished',
  run: run(patch),
  elapsedMs: 1000,
})

describe('commit status reports', () => {
  it('is pending while the run works, linking the session once there is one', () => {
    expect(pendingStatus(run({ state: 'QUEUED' }), WORKFLOW_RUN)).toEqual({
      state: 'pending',
      description: 'The agent is working (run run_1, QUEUED)',
      targetUrl: WORKFLOW_RUN,
    })
    expect(
      pendingStatus(run({ state: 'INPROGRESS', session_link: 'https://app.example.test/s/1' })),
    ).toMatchObject({ targetUrl: 'https://app.example.test/s/1' })
    expect(
      pendingStatus(run({ state: 'INPROGRESS', session_link: 'javascript:alert(1)' }), WORKFLOW_RUN)
        .targetUrl,
    ).toBe(WORKFLOW_RUN)
    expect(pendingStatus(run({ state: 'BLOCKED' })).description).toContain('waits for a person')
  })

  it('ends as success, failure or error, with a reason', () => {
    expect(finalStatus(finished({ state: 'SUCCEEDED' }))).toMatchObject({ state: 'success' })
    expect(
      finalStatus(finished({ state: 'FAILED', status_message: { message: 'Tests fail' } })),
    ).toMatchObject({ state: 'failure', description: 'The agent failed: Tests fail' })
    expect(finalStatus(finished({ state: 'ERROR' }))).toMatchObject({ state: 'error' })
    expect(finalStatus(finished({ state: 'CANCELLED' }))).toMatchObject({
      state: 'error',
      description: 'The run was cancelled',
    })
    const timedOut: StepOutcome = {
      kind: 'timed-out',
      run: run({ state: 'CANCELLED' }),
      stateAtTimeout: 'INPROGRESS',
      elapsedMs: 600_000,
      timeoutMs: 600_000,
      cancel: { kind: 'cancelled' },
    }
    expect(finalStatus(timedOut)).toMatchObject({
      state: 'failure',
      description: 'Timed out after 10m 0s; run cancelled',
    })
    expect(finalStatus({ kind: 'interrupted', run: undefined })).toMatchObject({ state: 'error' })
    expect(finalStatus({ kind: 'started', run: run({ state: 'QUEUED' }) })).toMatchObject({
      state: 'pending',
    })
  })

  it('keeps the description to one line of at most 140 characters', () => {
    const long = finalStatus(
      finished({
        state: 'FAILED',
        status_message: { message: `line one\nline two ${'x'.repeat(300)}` },
      }),
    )
    expect(long.description.length).toBeLessThanOrEqual(140)
    expect(long.description).not.toMatch(/[\n\r]/)
    expect(long.description.endsWith('…')).toBe(true)
    expect(oneLine('a\u0000b\t c')).toBe('a b c')
  })

  it('names the context after the key', () => {
    expect(statusContext('pr-review-7')).toBe('cloud-agent/pr-review-7')
    expect(statusContext('x'.repeat(300)).length).toBe(100)
  })
})
