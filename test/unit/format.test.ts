import { describe, expect, it } from 'vitest'
import { formatDuration } from '../../src/text/format.ts'

describe('formatDuration', () => {
  it('reads as a person says it, from milliseconds to hours', () => {
    expect(formatDuration(0)).toBe('0s')
    expect(formatDuration(250)).toBe('250ms')
    expect(formatDuration(500)).toBe('1s')
    expect(formatDuration(42_000)).toBe('42s')
    expect(formatDuration(185_000)).toBe('3m 5s')
    expect(formatDuration(600_000)).toBe('10m 0s')
    expect(formatDuration(7_620_000)).toBe('2h 7m')
  })
})
