import { describe, expect, it } from 'vitest'
import { MAX_LOG_TEXT, redactSecret, safeForLog } from '../../src/text/log.ts'

describe('safeForLog', () => {
  it.each([
    ['INPROGRESS\n::stop-commands::x', 'INPROGRESS : :stop-commands::x'],
    ['a\r\n::error::forged', 'a : :error::forged'],
    ['::warning::at the start', ': :warning::at the start'],
    ['  \t::warning::after blanks', '  \t: :warning::after blanks'],
    // Inside a word `::` cannot start a line, and an address shows as written.
    ['connect ECONNREFUSED [::1]:9', 'connect ECONNREFUSED [::1]:9'],
    ['line\u2028sep\u2029par\u0085nel\u000bvt\u000cff', 'line sep par nel vt ff'],
    ['\u001b[31mred\u001b[0m', '[31mred[0m'],
    ['plain text: fine', 'plain text: fine'],
  ])('makes %j one inert line', (input, expected) => {
    const shown = safeForLog(input)
    expect(shown).toBe(expected)
    expect(shown).not.toMatch(/[\n\r]/)
    // Wherever the text lands on a line, no command can start: `::` never follows a blank.
    expect(shown).not.toMatch(/(^|\s)::/)
  })

  it.each([
    [42, '42'],
    [null, 'null'],
    [undefined, 'undefined'],
    [{ a: '\n::x' }, '{"a":"\\n::x"}'],
    [[' ::a'], '[" : :a"]'],
  ])('shows %j, which is not a string, as JSON', (input, expected) => {
    expect(safeForLog(input)).toBe(expected)
  })

  it('survives values JSON cannot show', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(safeForLog(cyclic)).toBe('[object Object]')
    expect(safeForLog(10n)).toBe('10')
  })

  it('cuts long text', () => {
    expect(safeForLog('x'.repeat(MAX_LOG_TEXT + 10))).toHaveLength(MAX_LOG_TEXT + 1)
    expect(safeForLog('abcdef', 3)).toBe('abc…')
  })
})

describe('redactSecret', () => {
  it('replaces every occurrence of the key', () => {
    expect(redactSecret('Bearer sk-1 and sk-1 again', 'sk-1')).toBe('Bearer *** and *** again')
  })

  it('leaves text without the key, and an empty key, alone', () => {
    expect(redactSecret('nothing here', 'sk-1')).toBe('nothing here')
    expect(redactSecret('nothing here', '')).toBe('nothing here')
  })
})
