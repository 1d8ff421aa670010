import { describe, expect, it } from 'vitest'
import { logCancel, type CancelReport } from '../../src/model/cancel.ts'

function logged(report: CancelReport, label?: string) {
  const lines: string[] = []
  logCancel(
    { info: (m) => lines.push(`info: ${m}`), warning: (m) => lines.push(`warning: ${m}`) },
    'run_1',
    report,
    label,
  )
  return lines
}

describe('logCancel', () => {
  it('tells a cancel that ended the run as info, one that leaves it going as a warning', () => {
    expect(logged({ kind: 'cancelled' })).toEqual(['info: Run run_1 was cancelled.'])
    expect(logged({ kind: 'already-finished' })[0]).toMatch(/^info: /)
    for (const report of [
      { kind: 'blocked' },
      { kind: 'refused' },
      { kind: 'not-cancellable', message: 'no' },
      { kind: 'failed', message: 'down' },
    ] as const) {
      expect(logged(report)[0]).toMatch(/^warning: /)
    }
  })

  it('names the feature that cancelled, at the same level', () => {
    expect(logged({ kind: 'failed', message: 'down' }, 'cancel_previous')[0]).toMatch(
      /^warning: cancel_previous: Could not cancel run run_1/,
    )
  })
})
