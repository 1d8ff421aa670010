import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import type { SetOutcome, TaskRun } from '../../src/model/set.ts'
import { renderSetSummary } from '../../src/summary/set-table.ts'

const T0 = Date.parse('2026-11-24T10:00:00Z')

/** A task that ended FAILED, with a long title and a long reason: the worst row a set can have. */
function failed(index: number): TaskRun {
  const title = `Bump lodash in ${'|*_<b>`'.repeat(40)} ${index}`
  return {
    index,
    request: { prompt: title, title },
    invocation: `inv${index}`,
    runId: `run_${index}`,
    startedAt: T0,
    endedAt: T0 + 60_000,
    settled: true,
    run: {
      run_id: `run_${index}`,
      state: 'FAILED',
      title,
      session_link: `https://app.example.test/session/${index}`,
      status_message: { message: `The build broke: ${'x'.repeat(2_000)}` },
    } as RunItem,
  }
}

function outcomeOf(count: number): SetOutcome {
  return {
    word: 'failed',
    tasks: Array.from({ length: count }, (_, index) => failed(index)),
    reason: 'no run succeeded',
    elapsedMs: 60_000,
    listFallback: false,
  }
}

describe("a set's job summary at a campaign's size", () => {
  it('keeps 50 tasks open and folds 51 away', () => {
    expect(renderSetSummary(outcomeOf(50))).not.toContain('<details>')
    expect(renderSetSummary(outcomeOf(51))).toContain(
      '<details>\n<summary>The 51 tasks, one row each (the runs output has them as data)</summary>',
    )
  })

  it("stays under GitHub's 1 MiB with 1,000 tasks of hostile titles and long reasons", () => {
    const summary = renderSetSummary(outcomeOf(1000))
    expect(Buffer.byteLength(summary)).toBeLessThan(1024 * 1024)
    expect(summary).not.toContain('<b>')
  })

  it('cuts the rows that do not fit, and says where they all are', () => {
    const summary = renderSetSummary(outcomeOf(3000))
    expect(Buffer.byteLength(summary)).toBeLessThan(1024 * 1024)
    expect(summary).toMatch(/_…and \d+ more tasks: the runs output lists every one\._/)
  })
})
