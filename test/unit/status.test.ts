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
      description: 'Queued (run run_1)',
      targetUrl: WORKFLOW_RUN,
    })
    expect(
      pendingStatus(run({ state: 'INPROGRESS', session_link: 'https://app.example.test/s/1' })),
    ).toMatchObject({ targetUrl: 'https://app.example.test/s/1' })
    expect(
      pendingStatus(run({ state: 'INPROGRESS', session_link: 'javascript:alert(1)' }), WORKFLOW_RUN)
        .targetUrl,
    ).toBe(WORKFLOW_RUN)
    expect(pendingStatus(run({ state: 'INPROGRESS' })).description).toBe('In progress (run run_1)')
    expect(pendingStatus(run({ state: 'BLOCKED' })).description).toBe(
      'Blocked: waiting for a person (run run_1)',
    )
  })

  it("ends as success, failure or error, in the comment's plain words", () => {
    expect(finalStatus(finished({ state: 'SUCCEEDED' }))).toEqual({
      state: 'success',
      description: 'Succeeded',
    })
    expect(
      finalStatus(finished({ state: 'FAILED', status_message: { message: 'Tests fail' } })),
    ).toMatchObject({ state: 'failure', description: 'Failed: Tests fail' })
    expect(finalStatus(finished({ state: 'ERROR' }))).toMatchObject({
      state: 'error',
      description: "Error on the service's side",
    })
    expect(finalStatus(finished({ state: 'CANCELLED' }))).toMatchObject({
      state: 'error',
      description: 'Cancelled elsewhere',
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
      description: 'Timed out after 10m 0s',
    })
    expect(finalStatus({ kind: 'interrupted', run: undefined })).toMatchObject({
      state: 'error',
      description: 'Interrupted: the workflow was cancelled',
    })
    expect(
      finalStatus({
        kind: 'over-budget',
        run: run({ state: 'CANCELLED' }),
        cost: { credits: 120, usd: undefined },
        cap: { amount: { value: 100, unit: 'credits' }, input: 'max_credits' },
        elapsedMs: 1000,
        cancel: { kind: 'cancelled' },
      }),
    ).toMatchObject({
      state: 'failure',
      description: 'Over budget: 120 credits, over the cap of 100 credits',
    })
    expect(
      finalStatus({
        kind: 'blocked',
        run: run({ state: 'BLOCKED' }),
        passes: true,
        question: 'Which database?',
        elapsedMs: 1000,
      }),
    ).toMatchObject({
      state: 'success',
      description: 'Blocked: waiting for a person: Which database?',
    })
    expect(finalStatus({ kind: 'started', run: run({ state: 'QUEUED' }) })).toMatchObject({
      state: 'pending',
    })
  })

  // A superseded review must not block a merge: the newer run gives the verdict.
  it('ends a superseded run as success, naming the newer run', () => {
    const superseded: StepOutcome = {
      kind: 'finished',
      run: run({ state: 'CANCELLED', status_message: { message: 'Cancelled by user' } }),
      elapsedMs: 1000,
      supersededBy: 'run_newer',
    }
    expect(finalStatus(superseded)).toMatchObject({
      state: 'success',
      description: 'Superseded by run run_newer',
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
