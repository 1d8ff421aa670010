import { describe, expect, it } from 'vitest'
import { costOf, describeCost } from '../../src/agent/cost.ts'
import { formatCredits, formatNumberOutput, formatUsd } from '../../src/text/format.ts'

describe('costOf', () => {
  it('adds compute, inference and platform, in credits and in dollars', () => {
    expect(
      costOf({
        compute_cost: 1200.5,
        inference_cost: 30,
        platform_cost: 0.25,
        compute_cost_usd: 12.005,
        inference_cost_usd: 0.3,
        platform_cost_usd: 0.0025,
        total_tokens: 99_999,
      }),
    ).toEqual({ credits: 1230.75, usd: 12.3075 })
  })

  it('uses the parts that are there, and says nothing when none is', () => {
    expect(costOf({ inference_cost: 0.1, compute_cost: 0.2 })).toEqual({
      credits: 0.3,
      usd: undefined,
    })
    expect(costOf({ total_tokens: 5 })).toEqual({ credits: undefined, usd: undefined })
    expect(costOf(undefined)).toEqual({ credits: undefined, usd: undefined })
  })

  it('ignores figures of the wrong type or impossible value', () => {
    expect(
      costOf({
        compute_cost: '100',
        inference_cost: -5,
        platform_cost: Number.NaN,
        compute_cost_usd: null,
      }),
    ).toEqual({ credits: undefined, usd: undefined })
    for (const garbage of [null, 'x', 42, [], true]) {
      expect(costOf(garbage)).toEqual({ credits: undefined, usd: undefined })
    }
  })
})

describe('formatting', () => {
  it('writes credits with thousands separators', () => {
    expect(formatCredits(1234567.891)).toBe('1,234,567.89 credits')
    // Two decimals on every surface; an amount too small for them never reads as zero.
    expect(formatCredits(0.1825)).toBe('0.18 credits')
    expect(formatCredits(0.0042)).toBe('less than 0.01 credits')
    // One credit, in the singular: a set's table showed "1 credits".
    expect(formatCredits(1)).toBe('1 credit')
    expect(formatCredits(1.004)).toBe('1 credit')
    expect(formatCredits(1.01)).toBe('1.01 credits')
    expect(formatCredits(0)).toBe('0 credits')
  })

  it('writes dollars with a currency sign, to the cent: what the service billed', () => {
    expect(formatUsd(1234.567)).toBe('$1,234.57')
    expect(formatUsd(0.0042)).toBe('less than $0.01')
    expect(formatUsd(0.019)).toBe('$0.02')
    expect(formatUsd(3)).toBe('$3.00')
  })

  it('gives outputs as plain numbers a later step can compare', () => {
    expect(formatNumberOutput(1234.5)).toBe('1234.5')
    expect(formatNumberOutput(0.1 + 0.2)).toBe('0.3')
    expect(formatNumberOutput(undefined)).toBe('')
  })

  it('describes the cost row', () => {
    expect(describeCost({ credits: 1500, usd: 15 })).toBe('1,500 credits, $15.00')
    expect(describeCost({ credits: 2, usd: undefined })).toBe('2 credits')
    expect(describeCost({ credits: undefined, usd: undefined })).toBeUndefined()
  })
})
