import { describe, expect, it } from 'vitest'
import { formatDuration } from '../../src/text/format.ts'

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
