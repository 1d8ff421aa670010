/** scripts/build/ascii.ts: dist/'s chunks in ASCII, their source maps' columns moved to match. */
import { describe, expect, it } from 'vitest'
import { asciiChunk } from '../../scripts/build/ascii.ts'

describe('asciiChunk', () => {
  it('escapes each UTF-16 unit past ASCII, which means the same in a string', () => {
    const { code } = asciiChunk("const a = '… 🚀'\nconst b = /[¹²]/\n", undefined)
    expect(code).toBe("const a = '\\u2026 \\ud83d\\ude80'\nconst b = /[\\u00b9\\u00b2]/\n")
    expect(/[\u0080-\uffff]/.test(code)).toBe(false)
    expect(new Function(`${code}; return [a, b.test('²')]`)()).toEqual(['… 🚀', true])
  })

  it('moves the generated columns after an escape, and keeps the rest of each segment', () => {
    // Line 1: segments at columns 0 and 13 (the "]" after the "…" at column 11); line 2 at 0.
    const map = JSON.stringify({
      version: 3,
      sources: ['x.ts'],
      names: [],
      mappings: 'AAAA,aAAC;AACA',
    })
    const { code, map: moved } = asciiChunk("a = ['x', '…'], b\nc\n", map)
    expect(code).toBe("a = ['x', '\\u2026'], b\nc\n")
    // Column 13 is now 18 (13 + 5): its delta from column 0 is 18, 'kB' in base64 VLQ.
    expect(JSON.parse(moved ?? '{}')).toEqual({ ...JSON.parse(map), mappings: 'AAAA,kBAAC;AACA' })
  })
})
