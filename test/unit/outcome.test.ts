import { describe, expect, it } from 'vitest'
import { blockedQuestion, decideOnBlocked, howToAnswer } from '../../src/model/blocked.ts'
import {
  failureNotes,
  OUTCOMES,
  outcomeOf,
  passes,
  whyItEnded,
  type Ending,
} from '../../src/model/outcome.ts'

const ENDINGS: Array<[Ending, string, boolean]> = [
  [{ kind: 'started' }, 'started', true],
  [{ kind: 'finished', state: 'SUCCEEDED' }, 'succeeded', true],
  [{ kind: 'finished', state: 'FAILED' }, 'failed', false],
  [{ kind: 'finished', state: 'ERROR' }, 'error', false],
  [{ kind: 'finished', state: 'CANCELLED' }, 'cancelled', false],
  [
    { kind: 'timed-out', timeoutMs: 600_000, stateAtTimeout: 'INPROGRESS', cancel: 'cancelled' },
    'timed_out',
    false,
  ],
  [{ kind: 'interrupted' }, 'interrupted', false],
  [{ kind: 'blocked', onBlocked: 'fail' }, 'blocked', false],
  [{ kind: 'blocked', onBlocked: 'pass' }, 'blocked', true],
  [
    { kind: 'over-budget', credits: '12 credits', maxCredits: '10 credits', cancel: 'cancelled' },
    'over_budget',
    false,
  ],
  [{ kind: 'superseded', newerRunId: 'run-2' }, 'superseded', true],
  [
    { kind: 'invalid-output', errors: ['/a must be integer'], corrections: 2 },
    'invalid_output',
    false,
  ],
]

describe('outcome', () => {
  it("gives the contract's one word on every path, and whether the step passes", () => {
    for (const [ending, outcome, passed] of ENDINGS) {
      expect([ending, outcomeOf(ending), passes(outcomeOf(ending), ending)]).toEqual([
        ending,
        outcome,
        passed,
      ])
    }
    expect(new Set(ENDINGS.map(([ending]) => outcomeOf(ending)))).toEqual(new Set(OUTCOMES))
  })

  it('says why the run ended in plain words', () => {
    expect(whyItEnded({ kind: 'finished', state: 'FAILED' }, 'Tests kept failing')).toBe(
      'The agent could not finish its task: Tests kept failing',
    )
    // Whether the cancel landed is the cancel's report to say, once: never claimed here.
    const timedOut = whyItEnded({
      kind: 'timed-out',
      timeoutMs: 600_000,
      stateAtTimeout: 'BLOCKED',
      cancel: 'blocked',
    })
    expect(timedOut).toBe('The run was still BLOCKED when the timeout input (10m 0s) ran out.')
    const overBudget = whyItEnded({
      kind: 'over-budget',
      credits: '1,500 credits',
      maxCredits: '1,000 credits',
      cancel: 'cancelled',
    })
    expect(overBudget).toContain('more than the max_credits cap of 1,000 credits')
    for (const why of [timedOut, overBudget]) expect(why).not.toMatch(/cancelled it/)
    expect(
      whyItEnded({
        kind: 'invalid-output',
        errors: ['/a must be integer', '/b x'],
        corrections: 1,
      }),
    ).toBe(
      "The agent's result did not validate against output_schema after 1 correction: /a must be integer; /b x.",
    )
    for (const [ending] of ENDINGS) expect(whyItEnded(ending).length).toBeGreaterThan(10)
  })

  it("notes a failed run's debug window and a retryable failure", () => {
    const now = Date.parse('2026-01-01T10:00:00Z')
    expect(
      failureNotes(
        { message: 'x', session_debug_until: '2026-01-01T11:00:00Z', retryable: true },
        now,
      ),
    ).toEqual([
      'The session stays open for debugging until 2026-01-01T11:00:00Z.',
      'A platform failure; a re-run may succeed.',
    ])
    expect(failureNotes({ session_debug_until: '2025-01-01T00:00:00Z' }, now)).toEqual([])
    for (const garbage of [null, 'x', { session_debug_until: 5, retryable: 'yes' }]) {
      expect(failureNotes(garbage, now)).toEqual([])
    }
  })
})

describe('on_blocked', () => {
  it('keeps waiting, or hands the run over failing or passing', () => {
    expect(decideOnBlocked('wait')).toEqual({ keepWaiting: true })
    expect(decideOnBlocked('fail')).toEqual({ keepWaiting: false, passes: false })
    expect(decideOnBlocked('pass')).toEqual({ keepWaiting: false, passes: true })
  })

  it("says what the run waits for: the status message, else the agent's last message", () => {
    expect(blockedQuestion({ message: 'Approve the migration?' }, 'last words')).toBe(
      'Approve the migration?',
    )
    expect(blockedQuestion({ message: '  ' }, 'Which branch should I use?')).toBe(
      'Which branch should I use?',
    )
    expect(blockedQuestion(undefined, undefined)).toBeUndefined()
    expect(blockedQuestion('garbage', undefined)).toBeUndefined()
  })

  it('says how to answer', () => {
    expect(howToAnswer({ sessionLink: 'https://app/s/1', continueRun: false })).toBe(
      'To move it on, answer in the session (https://app/s/1).',
    )
    expect(howToAnswer({ sessionLink: 'https://app/s/1', continueRun: true })).toBe(
      'To move it on, answer in the session (https://app/s/1), or reply with a comment on this pull request or issue; continue_run passes it on.',
    )
    expect(howToAnswer({ sessionLink: undefined, continueRun: false })).toBe(
      'To move it on, answer in the session, in the app.',
    )
  })
})
