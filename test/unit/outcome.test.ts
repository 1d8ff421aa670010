import { describe, expect, it } from 'vitest'
import { blockedQuestion, decideOnBlocked, howToAnswer } from '../../src/model/blocked.ts'
import type { RunItem } from '../../src/api/types.ts'
import { OUTCOME_RECORDS, OUTCOMES, outcomeOfStop, STOP_CAUSES } from '../../src/model/outcome.ts'
import { describeEnding, failureNotes, outcomeWordOf, type Ending } from '../../src/model/ending.ts'
import { outcomeWordOfRun } from '../../src/model/run-outcome.ts'
import type { StepOutcome } from '../../src/model/step.ts'
import { gatherAgentWork } from '../../src/run/gather.ts'

const run = { runId: 'run-1', name: 'Review PR #7' }
const cancelled = { kind: 'cancelled' } as const

const ENDINGS: Array<[Ending, string, boolean]> = [
  [{ kind: 'started', run, state: 'QUEUED' }, 'started', true],
  [{ kind: 'finished', run, state: 'SUCCEEDED' }, 'succeeded', true],
  [{ kind: 'finished', run, state: 'FAILED' }, 'failed', false],
  [{ kind: 'finished', run, state: 'ERROR' }, 'error', false],
  [{ kind: 'finished', run, state: 'CANCELLED' }, 'cancelled', false],
  [
    { kind: 'timed-out', run, timeoutMs: 600_000, stateAtTimeout: 'INPROGRESS', cancel: cancelled },
    'timed_out',
    false,
  ],
  [{ kind: 'interrupted', run, signal: 'SIGINT', cancel: cancelled }, 'interrupted', false],
  [{ kind: 'blocked', run, onBlocked: 'fail' }, 'blocked', false],
  [{ kind: 'blocked', run, onBlocked: 'pass' }, 'blocked', true],
  [
    {
      kind: 'over-budget',
      run,
      used: '12 credits',
      cap: 'the max_credits cap of 10 credits',
      capLabel: 'the cap of 10 credits',
      cancel: cancelled,
    },
    'over_budget',
    false,
  ],
  [{ kind: 'superseded', run, newerRunId: 'run-2' }, 'superseded', true],
  [{ kind: 'stopped', run, cause: 'pass-when', cancel: cancelled }, 'cancelled', false],
  [{ kind: 'stopped', run, cause: 'error', cancel: cancelled }, 'error', false],
  [
    {
      kind: 'invalid-output',
      run,
      errors: ['/a must be integer'],
      corrections: 2,
      input: 'output_schema',
    },
    'invalid_output',
    false,
  ],
  [
    {
      kind: 'awaiting-approval',
      pin: { kind: 'commit', sha: 'a'.repeat(40) },
      why: 'this pull request comes from a fork (`approval: forks`)',
      approverPermission: 'write',
    },
    'awaiting_approval',
    true,
  ],
]

describe('outcome', () => {
  it("gives the contract's one word on every path, and whether the step passes", () => {
    for (const [ending, outcome, passed] of ENDINGS) {
      const words = describeEnding(ending)
      expect([ending, words.outcome, words.passes]).toEqual([ending, outcome, passed])
      // A step fails with an error line, and only then.
      expect(words.failure === undefined, ending.kind).toBe(passed)
    }
    expect(new Set(ENDINGS.map(([ending]) => describeEnding(ending).outcome))).toEqual(
      new Set(OUTCOMES),
    )
  })

  it('holds one record per outcome, read by every surface', () => {
    expect(Object.keys(OUTCOME_RECORDS).sort()).toEqual([...OUTCOMES].sort())
    for (const [ending] of ENDINGS) {
      const words = describeEnding(ending)
      const record = OUTCOME_RECORDS[words.outcome]
      expect(words.icon).toBe(record.icon)
      expect(words.check).toEqual(record.check)
    }
    // Only the agent's verdict on the work is a failure on the commit; a broken run is an error.
    expect(OUTCOME_RECORDS.failed.commitState).toBe('failure')
    expect(OUTCOME_RECORDS.error.commitState).toBe('error')
    expect(OUTCOME_RECORDS.invalid_output.commitState).toBe('error')
    // A blocked run handed over with on_blocked: pass passes everywhere.
    const passing = describeEnding({ kind: 'blocked', run, onBlocked: 'pass' })
    expect([passing.passes, passing.commitState]).toEqual([true, 'success'])
  })

  it("says in every outcome's record whether it carries the agent's work", () => {
    const carrying = OUTCOMES.filter((outcome) => {
      const record: Record<string, unknown> = { ...OUTCOME_RECORDS[outcome] }
      expect(typeof record.carriesAgentWork, outcome).toBe('boolean')
      return record.carriesAgentWork
    })
    // A run the step never waited for, or that the workflow cut short, has no work to bring back.
    expect(OUTCOMES.filter((outcome) => !carrying.includes(outcome))).toEqual([
      'interrupted',
      'started',
      'awaiting_approval',
    ])
    for (const [ending] of ENDINGS) {
      const words = describeEnding(ending)
      expect(words.carriesAgentWork).toBe(OUTCOME_RECORDS[words.outcome].carriesAgentWork)
    }
  })

  it("gathers the agent's work on the outcomes whose record says so, and on no other", async () => {
    const item: RunItem = { run_id: 'run-1', state: 'SUCCEEDED' }
    const cancel = { kind: 'cancelled' } as const
    const outcomes: StepOutcome[] = [
      { kind: 'started', run: { ...item, state: 'QUEUED' } },
      { kind: 'finished', run: item, elapsedMs: 1 },
      { kind: 'finished', run: { ...item, state: 'FAILED' }, elapsedMs: 1 },
      { kind: 'finished', run: { ...item, state: 'ERROR' }, elapsedMs: 1 },
      { kind: 'finished', run: { ...item, state: 'CANCELLED' }, elapsedMs: 1 },
      { kind: 'finished', run: item, elapsedMs: 1, supersededBy: 'run-2' },
      {
        kind: 'finished',
        run: item,
        elapsedMs: 1,
        invalidOutput: { errors: ['x'], corrections: 0, input: 'output_schema' },
      },
      {
        kind: 'timed-out',
        run: item,
        stateAtTimeout: 'INPROGRESS',
        elapsedMs: 1,
        timeoutMs: 1,
        cancel,
      },
      {
        kind: 'over-budget',
        run: item,
        cost: { credits: 2, usd: undefined },
        cap: { amount: { value: 1, unit: 'credits' }, input: 'max_credits' },
        elapsedMs: 1,
        cancel,
      },
      { kind: 'blocked', run: item, passes: false, question: undefined, elapsedMs: 1 },
      { kind: 'interrupted', run: item, signal: 'SIGTERM', cancel },
    ]
    // A step waiting for an approval never has a run to gather from (ENDINGS reaches it).
    const withRun = OUTCOMES.filter((word) => word !== 'awaiting_approval')
    expect(new Set(outcomes.map(outcomeWordOf))).toEqual(new Set(withRun))
    const quiet = { debug: () => undefined, info: () => undefined, warning: () => undefined }
    for (const outcome of outcomes) {
      const read: string[] = []
      const work = await gatherAgentWork(outcome, {
        settings: {
          onBlocked: 'wait',
          maxCredits: undefined,
          downloadPatterns: [],
          artifactsDir: '',
          showProgress: false,
        },
        world: { workspace: '/nowhere', runnerTemp: '/nowhere' },
        sources: {
          getConversation: async (runId) => {
            read.push(runId)
            return { messages: [{ role: 'agent', content: 'done' }] }
          },
          fetchFile: async () => new Uint8Array(),
        },
        conversation: undefined,
        signal: new AbortController().signal,
        endBy: Date.now() + 60_000,
        log: quiet,
      })
      const word = outcomeWordOf(outcome)
      expect([word, read.length > 0]).toEqual([word, OUTCOME_RECORDS[word].carriesAgentWork])
      expect([word, 'artifacts' in work]).toEqual([word, OUTCOME_RECORDS[word].carriesAgentWork])
    }
  })

  it("names the outcome of each way the step stops a run, for one run and a set's task alike", () => {
    for (const cause of STOP_CAUSES) {
      const end = {
        kind: 'cancelled',
        cause,
        stateBefore: 'INPROGRESS',
        cancel: cancelled,
      } as const
      const record = { invocation: 'inv', runId: 'r', run: { run_id: 'r', state: 'CANCELLED' } }
      expect([cause, outcomeWordOfRun({ ...record, stoppedBy: cause, end })]).toEqual([
        cause,
        outcomeOfStop(cause),
      ])
    }
    expect(STOP_CAUSES.map(outcomeOfStop)).toEqual([
      'interrupted',
      'timed_out',
      'over_budget',
      'error',
      'interrupted',
      'cancelled',
    ])
  })

  it('says why the run ended in plain words', () => {
    const failed = describeEnding({
      kind: 'finished',
      run: { ...run, statusMessage: 'Tests kept failing' },
      state: 'FAILED',
    })
    expect(failed.why).toBe('The agent could not finish its task.')
    expect(failed.failure).toBe('Run run-1 ended FAILED: Tests kept failing')
    expect(failed.headline).toBe('Review PR #7 failed')
    expect(describeEnding({ kind: 'finished', run, state: 'FAILED' }).why).toBe(
      'The agent could not finish its task; the service gave no status message.',
    )
    const timedOut = describeEnding({
      kind: 'timed-out',
      run,
      timeoutMs: 600_000,
      stateAtTimeout: 'BLOCKED',
      cancel: { kind: 'blocked' },
    })
    // The cancel is said once, as it went: a refused cancel is never claimed.
    expect(timedOut.why).toMatch(
      /^The run was still BLOCKED when the timeout input \(10m 0s\) ran out\. Run run-1 cannot be cancelled/,
    )
    expect(timedOut.detail).not.toMatch(/action cancelled it/)
    const overBudget = describeEnding({
      kind: 'over-budget',
      run,
      used: '1,500 credits',
      cap: 'the max_credits cap of 1,000 credits',
      capLabel: 'the cap of 1,000 credits',
      cancel: cancelled,
    })
    expect(overBudget.why).toContain('more than the max_credits cap of 1,000 credits')
    expect(
      describeEnding({
        kind: 'invalid-output',
        run,
        errors: ['/a must be integer', '/b x'],
        corrections: 1,
        input: 'output_schema',
      }).why,
    ).toBe(
      "The agent's result did not validate against output_schema after 1 correction: /a must be integer; /b x.",
    )
    // A review's document: the error names the input the user set, never output_schema.
    const review = describeEnding({
      kind: 'invalid-output',
      run,
      errors: ['/verdict must be equal to one of the allowed values'],
      corrections: 2,
      input: 'pull_request_review',
    })
    expect(review.why).toBe(
      "The agent's result did not validate against the review's schema (pull_request_review) after 2 corrections: /verdict must be equal to one of the allowed values.",
    )
    expect(review.detail).not.toContain('output_schema')
    for (const [ending] of ENDINGS) expect(describeEnding(ending).why.length).toBeGreaterThan(10)
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
