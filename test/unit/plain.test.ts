import { describe, expect, it } from 'vitest'
import { asSentence, clip, cut } from '../../src/text/plain.ts'
import { oneLine, statusContext } from '../../src/github/status.ts'
import { safeForLog } from '../../src/text/log.ts'
import { clipAnswer } from '../../src/text/markdown.ts'
import { renderSummary } from '../../src/summary/summary.ts'
import { annotationsOf } from '../../src/github/check-run.ts'

/** A lone half of a surrogate pair: what a cut by UTF-16 unit leaves of an emoji. */
const HALF = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

describe('cutting text by whole characters', () => {
  it.each<[string, string, number, string]>([
    ['shorter than the cut', 'abc', 5, 'abc'],
    ['a plain cut', 'abcdef', 3, 'abc'],
    ['a cut inside a surrogate pair drops its first half', 'ab😀c', 3, 'ab'],
    ['a cut right after a pair keeps it', 'ab😀c', 4, 'ab😀'],
    ['a cut at nothing', '😀', 0, ''],
    ['a cut inside the only pair', '😀', 1, ''],
    ['a cut between two pairs', '😀😀', 2, '😀'],
  ])('%s', (_name, text, max, expected) => {
    expect(cut(text, max)).toBe(expected)
  })

  it('clip adds the ellipsis only when it cut', () => {
    expect(clip('ab😀', 3)).toBe('ab…')
    expect(clip('ab😀', 4)).toBe('ab😀')
    expect(clip('ab', 3)).toBe('ab')
  })

  it('a status description (140) ends before an emoji at its boundary, never inside it', () => {
    const description = oneLine(`${'a'.repeat(138)}😀😀`)
    expect(description).toBe(`${'a'.repeat(138)}…`)
    expect(description).not.toMatch(HALF)
  })

  it('a summary title (200) ends before an emoji at its boundary, never inside it', () => {
    const markdown = renderSummary({
      kind: 'finished',
      run: { run_id: 'run_1', state: 'SUCCEEDED', title: `${'a'.repeat(199)}😀 and more` },
      elapsedMs: 1_000,
    })
    expect(markdown).toContain(`${'a'.repeat(199)}…`)
    expect(markdown).not.toMatch(HALF)
  })

  it('the log, a status context and a clipped answer keep whole characters', () => {
    expect(safeForLog(`${'a'.repeat(9)}😀`, 10)).toBe(`${'a'.repeat(9)}…`)
    expect(statusContext(`${'k'.repeat(87)}😀`)).toBe(`cloud-agent/${'k'.repeat(87)}`)
    expect(clipAnswer(`${'a'.repeat(9)}😀`, 10)).not.toMatch(HALF)
  })

  it("a check run's annotation (4,000) ends before an emoji at its boundary", () => {
    const [annotation] = annotationsOf(
      [{ path: 'src/a.ts', line: 3, body: `${'a'.repeat(3_998)}😀😀` }],
      'comment',
    )
    expect(annotation?.message).toBe(`${'a'.repeat(3_998)}…`)
  })
})

describe('asSentence', () => {
  it('ends text as a sentence: no dangling colon, semicolon or comma, one full stop', () => {
    expect(asSentence('at line 1, column 3:')).toBe('at line 1, column 3.')
    expect(asSentence('check the firewall.')).toBe('check the firewall.')
    expect(asSentence('got "x"')).toBe('got "x".')
    expect(asSentence('one of (a, b)')).toBe('one of (a, b).')
    expect(asSentence('a list;  \n')).toBe('a list.')
    expect(asSentence('')).toBe('')
    expect(asSentence(':'.repeat(100_000))).toBe('')
  })
})
