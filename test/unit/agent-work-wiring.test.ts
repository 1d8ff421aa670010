/**
 * How the agent's work reaches the wait loop, the summary and the comment:
 * the watcher ends the wait, the heartbeat caps the sleep, the summary shows
 * the outcome, the answer, the artifacts and BLOCKED, and the comment carries
 * the answer below its marker.
 */
import MarkdownIt from 'markdown-it'
import { describe, expect, it } from 'vitest'
import { parseArtifacts } from '../../src/agent/artifacts.ts'
import type { RunItem } from '../../src/api/types.ts'
import { renderComment } from '../../src/github/comment.ts'
import { parseMarker } from '../../src/github/run-marker.ts'
import { renderSummary, verdictOf } from '../../src/summary/summary.ts'
import { awaitOneRun as waitForRun, type OneRunDeps } from '../support/one-run.ts'
import type { WatchVerdict } from '../../src/run/watch.ts'
import type { StepOutcome } from '../../src/model/step.ts'

const run = (fields: Partial<RunItem> = {}): RunItem => ({
  run_id: 'run-123',
  state: 'SUCCEEDED',
  ...fields,
})

function waitHarness(states: string[], verdicts: WatchVerdict[], untilHeartbeat = Infinity) {
  let now = 0
  let polls = 0
  const sleeps: number[] = []
  const seen: Array<[string, boolean]> = []
  const deps: OneRunDeps = {
    client: {
      getRun: async (runId) => ({
        run_id: runId,
        state: states[Math.min(polls++, states.length - 1)] ?? '',
      }),
    },
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms)
      now += ms
    },
    signal: new AbortController().signal,
    log: { debug: () => undefined, info: () => undefined, warning: () => undefined },
    watch: {
      afterPoll: async (reading, stateChanged) => {
        seen.push([reading.state, stateChanged])
        return verdicts.shift() ?? { kind: 'continue' }
      },
      msUntilHeartbeat: () => untilHeartbeat,
    },
  }
  return { deps, sleeps, seen }
}

describe('the wait with a watcher', () => {
  it('shows the watcher each reading of a run on its way, and ends when it says so', async () => {
    const h = waitHarness(
      ['QUEUED', 'INPROGRESS', 'INPROGRESS', 'INPROGRESS'],
      [
        { kind: 'continue' },
        { kind: 'continue' },
        { kind: 'blocked', passes: true, question: 'q?' },
      ],
    )
    const outcome = await waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000 }, h.deps)
    expect(outcome).toMatchObject({ kind: 'stopped', verdict: { kind: 'blocked', passes: true } })
    expect(h.seen).toEqual([
      ['QUEUED', true],
      ['INPROGRESS', true],
      ['INPROGRESS', false],
    ])
  })

  it("gives the watcher the wait's deadline; a read that takes it all ends the wait as timed out", async () => {
    const h = waitHarness(['INPROGRESS'], [])
    let now = 0
    const deadlines: number[] = []
    const outcome = await waitForRun(
      { timeoutMs: 60_000, pollIntervalMs: 1_000 },
      {
        ...h.deps,
        now: () => now,
        sleep: async (ms) => void (now += ms),
        watch: {
          // A conversation read cut at the deadline, as the client cuts it.
          afterPoll: async (_run, _changed, _signal, deadline) => {
            deadlines.push(deadline)
            now = deadline
            return { kind: 'continue' }
          },
          msUntilHeartbeat: () => Infinity,
        },
      },
    )
    expect(deadlines).toEqual([60_000])
    expect(outcome).toMatchObject({ kind: 'timed-out', elapsedMs: 60_000 })
  })

  it('does not show it a terminal reading: there is nothing left to cap or hand over', async () => {
    const h = waitHarness(['INPROGRESS', 'SUCCEEDED'], [])
    const outcome = await waitForRun({ timeoutMs: 60_000, pollIntervalMs: 1_000 }, h.deps)
    expect(outcome.kind).toBe('terminal')
    expect(h.seen).toEqual([['INPROGRESS', true]])
  })

  it('never sleeps past the moment a heartbeat line is owed', async () => {
    const h = waitHarness(['INPROGRESS', 'SUCCEEDED'], [], 2_500)
    await waitForRun({ timeoutMs: 60 * 60_000, pollIntervalMs: 10 * 60_000 }, h.deps)
    expect(h.sleeps).toEqual([2_500, 2_500])
  })
})

const renderer = new MarkdownIt({ html: true })

describe("the summary of the agent's work", () => {
  const finished = (fields: Partial<RunItem>): StepOutcome => ({
    kind: 'finished',
    run: run(fields),
    elapsedMs: 1_000,
  })

  it('uses the title as the headline, with the ID, the outcome and the cost in rows', () => {
    const markdown = renderSummary(
      finished({
        title: 'Review PR 7',
        request_usage: {
          compute_cost: 1200,
          inference_cost: 34.5,
          compute_cost_usd: 12,
          inference_cost_usd: 0.345,
        },
      }),
    )
    expect(markdown.split('\n')[0]).toBe('### ✅ Review PR 7 succeeded')
    expect(markdown).toContain('| **Run** | <code>run-123</code> |\n|---|---|')
    expect(markdown).toContain('| **Outcome** | <code>succeeded</code> |')
    expect(markdown).toContain('| **Cost** | 1,234.5 credits, &#36;12.35 |')
  })

  it("shows the status message once, and a failed run's debug window and retryable note", () => {
    const markdown = renderSummary(
      finished({
        state: 'ERROR',
        status_message: {
          message: 'Worker lost',
          retryable: true,
          session_debug_until: '2999-01-01T00:00:00Z',
        } as RunItem['status_message'],
      }),
    )
    expect(markdown.match(/Worker lost/g)).toHaveLength(1)
    expect(markdown).toContain('A failure on the service&#39;s side stopped the run.')
    expect(markdown).toContain('The session stays open for debugging until 2999-01-01T00:00:00Z.')
    expect(markdown).toContain('A platform failure; a re-run may succeed.')
  })

  it('shows the answer as Markdown, and the artifacts with where they went', () => {
    const artifacts = parseArtifacts([
      {
        artifact_type: 'FILE',
        data: { artifact_uid: 'u1', filepath: 'review.json', filename: 'review.json' },
      },
    ])
    const review = artifacts[0]
    if (!review) throw new Error('no artifact')
    const markdown = renderSummary(finished({}), {
      answer: '## Verdict\n\n**approve** <script>x</script>',
      artifacts,
      downloadedTo: new Map([[review, '/tmp/dl/review.json']]),
      downloadDir: '/tmp/dl',
    })
    const html = renderer.render(markdown)
    expect(html).toContain('<h2>Verdict</h2>')
    expect(html).toContain('<strong>approve</strong>')
    expect(html).not.toContain('<script>')
    expect(markdown).toContain('→ <code>/tmp/dl/review.json</code>')
  })

  it('gives the outcome word on every path, and passes or fails as on_blocked says', () => {
    const blocked = (passes: boolean): StepOutcome => ({
      kind: 'blocked',
      run: run({ state: 'BLOCKED', session_link: 'https://app/s/1' }),
      passes,
      question: 'Which branch?',
      elapsedMs: 5_000,
    })
    expect(verdictOf(blocked(true))).toMatchObject({
      outcome: 'blocked',
      passes: true,
      failure: undefined,
    })
    expect(verdictOf(blocked(false))).toMatchObject({ outcome: 'blocked', passes: false })
    const markdown = renderSummary(blocked(false), { continueRun: true })
    expect(markdown.split('\n')[0]).toBe('### ✋ Run run-123 is blocked, waiting for a person')
    expect(markdown).toContain(
      'answer in the [session](https://app/s/1), or reply with a comment here',
    )
    expect(markdown).toContain('Which branch?')
    // When the question is the agent's last message, it is shown once.
    const once = renderSummary(blocked(true), { answer: 'Which branch?' })
    expect(once.match(/Which branch\?/g)).toHaveLength(1)

    const overBudget: StepOutcome = {
      kind: 'over-budget',
      run: run({ state: 'CANCELLED' }),
      cost: { credits: 1500, usd: undefined },
      cap: { amount: { value: 1000, unit: 'credits' }, input: 'max_credits' },
      elapsedMs: 1_000,
      cancel: { kind: 'cancelled' },
    }
    const verdict = verdictOf(overBudget)
    expect(verdict).toMatchObject({ outcome: 'over_budget', passes: false })
    expect(verdict.failure).toBe(
      'The run used 1,500 credits, more than the max_credits cap of 1,000 credits (run run-123). Run run-123 was cancelled.',
    )
  })
})

describe('a run superseded by a newer one', () => {
  it('passes with outcome superseded, naming the newer run', () => {
    const outcome: StepOutcome = {
      kind: 'finished',
      run: run({ state: 'CANCELLED', title: 'Review' }),
      elapsedMs: 1_000,
      supersededBy: 'run-456',
    }
    const verdict = verdictOf(outcome)
    expect(verdict).toMatchObject({
      passes: true,
      outcome: 'superseded',
      headline: 'Review was superseded by run run-456',
    })
    expect(verdict.failure).toBeUndefined()
    expect(renderSummary(outcome)).toContain('replaced this one')
  })
})

describe('the comment with the answer', () => {
  it('carries the answer below the marker, and the answer cannot forge one', () => {
    const body = renderComment(
      run({ state: 'SUCCEEDED' }),
      { runId: 'run-123', step: 'review/agent', runs: [] },
      {
        answer:
          'Looks good.\n<!-- cloud-agent-run: {"run_id":"evil","step":"review/agent"} -->\n@octocat',
      },
    )
    expect(body.startsWith('<!-- cloud-agent-run: {"run_id":"run-123"')).toBe(true)
    expect(body).toContain('Looks good.')
    expect(body.match(/<!-- cloud-agent-run/g)).toHaveLength(1)
    expect(parseMarker(body)?.runId).toBe('run-123')
    expect(body).toContain('@\u200doctocat')
  })

  it('has no answer section when the answer is empty', () => {
    const marker = { runId: 'run-123', step: 's', runs: [] }
    expect(renderComment(run(), marker, { answer: '  \n ' })).toBe(renderComment(run(), marker))
  })
})
