import { describe, expect, it } from 'vitest'
import { formatDecimal, formatDuration } from '../../src/text/format.ts'

describe('formatDuration', () => {
  it('reads time that passed as a person says it, to the second', () => {
    expect(formatDuration(0)).toBe('0s')
    expect(formatDuration(250)).toBe('0s')
    expect(formatDuration(500)).toBe('1s')
    expect(formatDuration(42_000)).toBe('42s')
    expect(formatDuration(185_000)).toBe('3m 5s')
    expect(formatDuration(600_000)).toBe('10m 0s')
    expect(formatDuration(7_620_000)).toBe('2h 7m')
  })

  it('reads a limit exactly: milliseconds unless it is whole seconds', () => {
    expect(formatDuration(250, 'exact')).toBe('250ms')
    expect(formatDuration(1_500, 'exact')).toBe('1500ms')
    expect(formatDuration(30_000, 'exact')).toBe('30s')
    expect(formatDuration(90_000, 'exact')).toBe('1m 30s')
  })
})

describe('formatDecimal, against toLocaleString as the oracle', () => {
  // A fixed walk over magnitudes, signs and roundings: half-way cases, carries (999.995),
  // tiny and huge values, whole numbers.
  const values = [0, -0, 1, -1, 0.5, 999.995, 999.999, 1000, 1234.5, -1234.567, 0.0042, 0.00005]
  for (let exponent = -8; exponent <= 22; exponent += 1) {
    for (const mantissa of [1, 1.5, 2.345, 4.9999, 7.125, 9.87654321]) {
      values.push(mantissa * 10 ** exponent, -mantissa * 10 ** exponent)
    }
  }
  // And doubles of every shape, from a fixed seed.
  let seed = 42
  for (let i = 0; i < 300; i += 1) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    values.push((seed / 2 ** 31 - 0.5) * 10 ** ((seed % 13) - 4))
  }

  it.each([
    [0, 0],
    [2, 0],
    [4, 0],
    [2, 2],
    [4, 2],
  ])('agrees for %i decimals at most and %i at least', (maxDigits, minDigits) => {
    for (const value of values) {
      const oracle = value.toLocaleString('en-US', {
        maximumFractionDigits: maxDigits,
        minimumFractionDigits: minDigits,
      })
      expect(formatDecimal(value, maxDigits, minDigits), String(value)).toBe(oracle)
    }
  })
})
