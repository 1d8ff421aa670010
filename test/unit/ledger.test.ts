import { describe, expect, it } from 'vitest'
import { rowsCsv } from '../../src/report/files.ts'
import { daysOf, parsePeriod } from '../../src/report/period.ts'
import { renderLedger } from '../../src/report/render.ts'
import type { LedgerRow } from '../../src/report/rows.ts'
import { sumUp } from '../../src/report/sums.ts'

const NOW = Date.UTC(2026, 10, 28, 12, 0)

function periodOf(text: string) {
  const period = parsePeriod(text, NOW)
  if (!period) throw new Error(`no period: ${text}`)
  return period
}

function row(overrides: Partial<LedgerRow>): LedgerRow {
  return {
    runId: 'run_1',
    title: 'Review the change',
    created: '2026-11-27T10:00:00Z',
    ended: '2026-11-27T10:05:00Z',
    forge: 'github',
    project: 'octo-org/app',
    thread: 7,
    workflow: 'Agent review',
    key: 'review',
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

describe('the report period', () => {
  it('reads a duration back from now, or a calendar month in UTC', () => {
    expect(parsePeriod('7d', NOW)).toEqual({
      from: NOW - 7 * 86_400_000,
      to: NOW,
      label: 'the last 7 days',
    })
    expect(parsePeriod('24h', NOW)?.label).toBe('the last 24 hours')
    expect(parsePeriod('2026-02', NOW)).toEqual({
      from: Date.UTC(2026, 1, 1),
      to: Date.UTC(2026, 2, 1),
      label: 'February 2026',
    })
    expect(daysOf(periodOf('2026-02'))).toHaveLength(28)
  })

  it('reads last-month as the calendar month before now, across a year too', () => {
    expect(parsePeriod('last-month', NOW)).toEqual(parsePeriod('2026-10', NOW))
    const january = Date.UTC(2027, 0, 1, 0, 0)
    expect(parsePeriod('last-month', january)?.label).toBe('December 2026')
  })

  it('names no period for text that is not one, a month to come, or more than a year', () => {
    for (const text of ['7 days', '7', 'd7', '0d', '2026-13', '2027-01', '400d', '', '7D']) {
      expect(parsePeriod(text, NOW), text).toBeUndefined()
    }
  })
})

describe('the ledger sums', () => {
  const period = periodOf('7d')
  const budgets = {
    daily: { value: 25, unit: 'credits' },
    pullRequest: { value: 15, unit: 'credits' },
  } as const

  it("counts a tree as one run with its children's spend, each run once, in every sum", () => {
    const tree = [
      row({ credits: 10 }),
      row({ runId: 'run_c1', credits: 3, rootRunId: 'run_1', parentRunId: 'run_1' }),
      row({
        runId: 'run_c2',
        credits: 2,
        rootRunId: 'run_1',
        parentRunId: 'run_c1',
        outcome: 'failed',
      }),
    ]
    const ledger = sumUp(tree, { period, scope: 'project', budgets, complete: true })
    expect(ledger.totals).toMatchObject({ runs: 1, credits: 15, children: 2 })
    expect(ledger.totals.notSucceeded).toEqual({ runs: 0, credits: 2, costUsd: 0 })
    expect(ledger.byThread).toMatchObject([{ thread: 7, runs: 1, credits: 15 }])
    expect(ledger.byKey).toMatchObject([{ key: 'review', runs: 1, credits: 15 }])
    expect(ledger.budgets.pullRequest).toMatchObject({ limit: { value: 15 }, reached: 1 })
    expect(renderLedger(ledger)).toContain('| **Runs** | 1, with 2 runs their agents started |')
  })

  it('adds up by day, thread, key and outcome, costliest first, and measures the budgets', () => {
    const ledger = sumUp(
      [
        row({ credits: 10 }),
        row({ runId: 'run_2', credits: 20, created: '2026-11-27T11:00:00Z' }),
        row({ runId: 'run_3', thread: 8, key: 'fix', outcome: 'failed', credits: 5 }),
        row({ runId: 'run_4', thread: undefined, key: 'nightly', outcome: 'working', credits: 1 }),
      ],
      { period, scope: 'project', project: 'octo-org/app', budgets, complete: true },
    )
    expect(ledger.totals).toEqual({
      runs: 4,
      credits: 36,
      costUsd: 0,
      notSucceeded: { runs: 1, credits: 5, costUsd: 0 },
      running: { runs: 1, credits: 1, costUsd: 0 },
      children: 0,
      withoutUsd: 4,
    })
    expect(ledger.unit).toBe('credits')
    expect(ledger.byDay.find((day) => day.day === '2026-11-27')).toEqual({
      day: '2026-11-27',
      runs: 4,
      credits: 36,
      costUsd: 0,
    })
    expect(ledger.byDay).toHaveLength(8)
    expect(ledger.byThread.map((one) => [one.thread, one.credits])).toEqual([
      [7, 30],
      [8, 5],
    ])
    expect(ledger.byKey.map((one) => one.key)).toEqual(['review', 'fix', 'nightly'])
    expect(ledger.byOutcome.map((one) => one.name)).toEqual(['succeeded', 'failed', 'working'])
    expect(ledger.budgets.daily).toMatchObject({ limit: { value: 25 }, reached: 1 })
    expect(ledger.budgets.pullRequest).toMatchObject({ limit: { value: 15 }, reached: 1 })
  })

  it('shows dollars where every run that spent reports them, and budgets in their own unit', () => {
    const rows = [
      row({ credits: 100, costUsd: 1.25 }),
      row({ runId: 'run_2', thread: 8, credits: 300, costUsd: 3.5 }),
      row({ runId: 'run_3', thread: 9, credits: 0, costUsd: undefined, outcome: 'working' }),
    ]
    const dollars = {
      daily: { value: 4, unit: 'usd' },
      pullRequest: { value: 200, unit: 'credits' },
    } as const
    const options = { period, scope: 'project', budgets: dollars, complete: true } as const
    const ledger = sumUp(rows, options)
    expect(ledger.unit).toBe('usd')
    expect(ledger.totals).toMatchObject({ credits: 400, costUsd: 4.75, withoutUsd: 0 })
    expect(ledger.byThread.map((one) => [one.thread, one.costUsd])).toEqual([
      [8, 3.5],
      [7, 1.25],
      [9, 0],
    ])
    expect(ledger.budgets.daily).toMatchObject({ busiest: { spent: 4.75 }, reached: 1 })
    expect(ledger.budgets.pullRequest).toMatchObject({ costliest: { thread: 8 }, reached: 1 })
    const summary = renderLedger(ledger)
    expect(summary).toContain('### 💳 Agent runs: $4.75 in the last 7 days')
    expect(summary).toContain('| **Spend** | $4.75 (400 credits) |')
    expect(summary).toContain('| Thread | Project | Runs | Cost (USD) |')
    expect(summary).toContain('title "US dollars per day (UTC)"')
    expect(summary).toContain('| `daily_credit_budget` | $4.00 |')
    expect(summary).toContain('| `pr_credit_budget` | 200 credits |')
    // Asked for in credits, it shows credits, whatever the runs report.
    expect(sumUp(rows, { ...options, unit: 'credits' }).unit).toBe('credits')
  })

  it('stays in credits when a run that spent reports no dollars, and says how many', () => {
    const rows = [row({ credits: 100, costUsd: 1 }), row({ runId: 'run_2', credits: 50 })]
    const ledger = sumUp(rows, {
      period,
      scope: 'project',
      budgets: { daily: undefined, pullRequest: undefined },
      complete: true,
    })
    expect(ledger.unit).toBe('credits')
    expect(renderLedger(ledger)).toContain(
      '| **Spend** | 150 credits ($1.00 for the runs that report dollars); 1 run reports no dollar figure, so the report is in credits |',
    )
  })

  it('lists a run that opened a pull request under that pull request, once', () => {
    const opened = { url: 'https://github.com/octo-org/app/pull/12', number: 12 }
    const ledger = sumUp(
      [
        row({ thread: 3, credits: 10, pullRequest: opened }),
        row({ runId: 'run_2', thread: 12, credits: 5 }),
        row({ runId: 'run_3', thread: undefined, credits: 2 }),
      ],
      { period, scope: 'project', budgets, complete: true },
    )
    expect(ledger.byThread.map((one) => [one.thread, one.runs, one.credits])).toEqual([[12, 2, 15]])
    expect(ledger.totals).toMatchObject({ runs: 3, credits: 17 })
  })

  it('renders a summary whose names from tags are inert, with the chart and linked threads', () => {
    const hostile = row({ key: '<img src=x onerror=alert(1)> | @team', project: 'octo-org/app' })
    const ledger = sumUp([hostile, row({ forge: 'gitlab', project: 'group/app', thread: 3 })], {
      period,
      scope: 'all',
      budgets: { daily: undefined, pullRequest: undefined },
      complete: false,
    })
    const summary = renderLedger(ledger, { gitlab: 'https://gitlab.example.test' })
    expect(summary).toContain('xychart-beta')
    expect(summary).not.toContain('<img')
    expect(summary).toContain('&#124;')
    expect(summary).toContain('(https://github.com/octo-org/app/issues/7)')
    expect(summary).toContain('(https://gitlab.example.test/group/app/-/merge_requests/3)')
    expect(summary).toContain('every figure is a lower bound')
  })
})

describe('runs.csv', () => {
  it('is RFC 4180: CRLF, quotes doubled, and a formula made inert', () => {
    const csv = rowsCsv([
      row({ key: 'say "hi", then\nleave', workflow: '=HYPERLINK("x")', credits: 1.5 }),
    ])
    const [header, line] = csv.split('\r\n')
    expect(header).toBe(
      'run_id,created,ended,project,thread,workflow,key,outcome,credits,link,root_run_id,parent_run_id,title,forge,pull_request,cost_usd',
    )
    expect(line).toContain(`"'=HYPERLINK(""x"")"`)
    expect(csv).toContain('"say ""hi"", then\nleave"')
    expect(csv.endsWith('\r\n')).toBe(true)
  })

  it('names each row by its title, forge and the pull request it opened, with its dollars', () => {
    const opened = { url: 'https://github.com/octo-org/app/pull/12', number: 12 }
    const [, line] = rowsCsv([row({ pullRequest: opened, costUsd: 0.42 })]).split('\r\n')
    expect(line).toMatch(
      /,Review the change,github,https:\/\/github\.com\/octo-org\/app\/pull\/12,0\.42$/,
    )
  })

  it('prefixes every cell that starts with =, +, -, @, a tab or a CR, whatever follows', () => {
    for (const cell of ["-1+1+cmd|' /C calc'!A0", '+1', '-2', '@SUM(A1)', '\tx', '=1']) {
      const [, line] = rowsCsv([row({ key: cell })]).split('\r\n')
      expect(line).toContain(`'${cell.replace(/"/g, '""')}`)
    }
  })
})
