/** The job summary's campaign plan: what applying a campaign did besides starting runs. */
import { describe, expect, it } from 'vitest'
import { campaignPlan } from '../../src/summary/campaign.ts'

const skip = (i: number, why = `run run_${i} succeeded on this instruction`) => ({
  key: `lint/octo-org/service-${i}`,
  done: 'skip' as const,
  why,
})

describe('campaignPlan', () => {
  it('shows a few repositories open, one row each, with why', () => {
    const plan = campaignPlan(
      'lint',
      [
        skip(1, 'its daily_credit_budget is reached: the runs … used 12 credits'),
        { key: 'lint/octo-org/web', done: 'follow-up', why: 'the instruction changed' },
      ],
      5,
    )
    expect(plan).toContain(
      '#### Campaign lint: 3 of 5 repositories started, 1 followed up, 1 skipped',
    )
    expect(plan).not.toContain('<details>')
    expect(plan).toContain(
      '| octo-org/service-1 | skipped | its daily&#95;credit&#95;budget is reached',
    )
    expect(plan).toContain('| octo-org/web | followed up | the instruction changed |')
  })

  it('folds past 50 rows, lists at most 500, and cuts a reason of hostile length', () => {
    const said = Array.from({ length: 1_000 }, (_, i) =>
      skip(i, i === 0 ? 'x'.repeat(100_000) : undefined),
    )
    const plan = campaignPlan('lint', said, 1_000)
    expect(plan).toContain(
      '#### Campaign lint: 0 of 1000 repositories started, 0 followed up, 1000 skipped',
    )
    expect(plan).toContain(
      '<details>\n<summary>The 1000 repositories skipped or followed up, one row each</summary>',
    )
    expect(plan.split('\n').filter((line) => line.startsWith('| octo-org/'))).toHaveLength(500)
    expect(plan).toContain("500 more, each said in the step's log.")
    expect(plan.length).toBeLessThan(100_000)
  })
})
