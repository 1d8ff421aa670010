import { describe, expect, it } from 'vitest'
import { checksOf, pullAddressOf, pullStateOf, reviewOf } from '../../src/model/pull-status.ts'
import { parsePeriod } from '../../src/report/period.ts'
import { renderLedger } from '../../src/report/render.ts'
import { trackCampaign } from '../../src/report/repositories.ts'
import type { LedgerRow } from '../../src/report/rows.ts'
import { sumUp } from '../../src/report/sums.ts'

const NOW = Date.UTC(2026, 10, 28, 12, 0)

function row(overrides: Partial<LedgerRow>): LedgerRow {
  return {
    runId: 'run_1',
    title: '',
    created: '2026-11-27T10:00:00Z',
    ended: '2026-11-27T10:05:00Z',
    forge: 'github',
    project: 'octo-org/app',
    thread: undefined,
    workflow: 'Campaign',
    key: 'c/octo-org/app',
    outcome: 'succeeded',
    credits: 10,
    costUsd: undefined,
    pullRequest: undefined,
    link: '',
    steered: false,
    rootRunId: overrides.runId ?? 'run_1',
    parentRunId: '',
    ...overrides,
  }
}

describe("a campaign pull request's state, checks and review", () => {
  it('reads the state: merged wins over closed, a draft is open work', () => {
    expect(pullStateOf({ state: 'closed', merged_at: '2026-11-01T00:00:00Z' })).toBe('merged')
    expect(pullStateOf({ state: 'closed', merged_at: null })).toBe('closed')
    expect(pullStateOf({ state: 'open', draft: true })).toBe('draft')
    expect(pullStateOf({ state: 'open', draft: false })).toBe('open')
  })

  it('folds the checks: one failure fails them, one still going holds them, none is none', () => {
    expect(checksOf([])).toBe('none')
    expect(checksOf([{ status: 'completed', conclusion: 'success' }])).toBe('passing')
    expect(
      checksOf([
        { status: 'completed', conclusion: 'skipped' },
        { status: 'in_progress', conclusion: null },
      ]),
    ).toBe('pending')
    expect(
      checksOf([
        { status: 'in_progress', conclusion: null },
        { status: 'completed', conclusion: 'timed_out' },
      ]),
    ).toBe('failing')
  })

  it("folds the reviews: each reviewer's latest counts, a comment changes nothing, a dismissal clears", () => {
    const by = (login: string, state: string) => ({ user: { login }, state })
    expect(reviewOf([])).toBe('none')
    expect(reviewOf([by('a', 'CHANGES_REQUESTED'), by('a', 'APPROVED')])).toBe('approved')
    expect(reviewOf([by('a', 'APPROVED'), by('a', 'COMMENTED')])).toBe('approved')
    expect(reviewOf([by('a', 'APPROVED'), by('b', 'CHANGES_REQUESTED')])).toBe('changes_requested')
    expect(reviewOf([by('b', 'CHANGES_REQUESTED'), by('b', 'DISMISSED')])).toBe('none')
  })

  it("finds a GitHub pull request's address on any host, and nothing else", () => {
    expect(pullAddressOf('https://ghe.example.com/octo-org/app/pull/12/')).toEqual({
      url: 'https://ghe.example.com/octo-org/app/pull/12/',
      owner: 'octo-org',
      repo: 'app',
      number: 12,
    })
    expect(pullAddressOf('https://gitlab.com/group/app/-/merge_requests/3')).toBeUndefined()
    expect(pullAddressOf('not a url')).toBeUndefined()
    expect(pullAddressOf('https://github.com/octo-org/app/pull/0')).toBeUndefined()
  })
})

describe("a campaign's summary", () => {
  const period = (() => {
    const read = parsePeriod('30d', NOW)
    if (!read) throw new Error('no period')
    return read
  })()
  const budgets = { daily: undefined, pullRequest: undefined }

  /** `count` repositories whose names and links are hostile text, each with a pull request. */
  function hostile(count: number): LedgerRow[] {
    return Array.from({ length: count }, (_, index) =>
      row({
        runId: `run_${index}`,
        project: `org/${'|<img src=x onerror=alert(1)>*_`'.repeat(20)}${index}`,
        link: `https://app.example.test/${'a'.repeat(2000)}`,
        pullRequest: {
          url: `https://github.com/org/r${index}/pull/${index + 1}`,
          number: undefined,
        },
      }),
    )
  }

  function summaryOf(rows: LedgerRow[]): string {
    const tracking = trackCampaign(rows, new Map(), period, () => 'no github_token')
    const ledger = {
      ...sumUp(rows, {
        period: period,
        scope: 'all',
        campaign: 'c',
        budgets,
        complete: true,
      }),
      tracking,
    }
    return renderLedger(ledger)
  }

  it('keeps 50 repositories open, and folds 51 away, pointing at runs.csv', () => {
    expect(summaryOf(hostile(50))).not.toContain('<details>')
    const folded = summaryOf(hostile(51))
    expect(folded).toContain('<details>\n<summary>The 51 repositories, one line each (runs.csv')
    expect(folded).not.toContain('<img')
  })

  it("stays far under GitHub's 1 MiB with 1,000 hostile repositories, listing 500", () => {
    const summary = summaryOf(hostile(1000))
    expect(Buffer.byteLength(summary)).toBeLessThan(1024 * 1024)
    expect(summary).toContain('| _and 500 more: runs.csv lists them_ |')
    // A cut name, and a session address too long to link.
    expect(summary).toContain('…')
    expect(summary).not.toContain('aaaaaaaaaa')
  })
})
