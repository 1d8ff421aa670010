import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { endMarker, generateReadme, spliceTables, startMarker } from '../scripts/docs/tables.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const README_PATH = join(ROOT, 'README.md')
const README = readFileSync(README_PATH, 'utf8')
const ACTION_YML = readFileSync(join(ROOT, 'action.yml'), 'utf8')

/** action.yml with one more input, as a change to it would add. */
function withInput(name: string, input: Record<string, unknown>): string {
  const document = parseDocument(ACTION_YML)
  document.setIn(['inputs', name], input)
  return document.toString()
}

describe('README tables', () => {
  it('are what `npm run docs` makes from action.yml (run it and commit README.md if not)', async () => {
    expect(await generateReadme(README, ACTION_YML, README_PATH)).toBe(README)
  })

  it('pick up an input added to action.yml, so the check above fails until README is rerun', () => {
    const changed = withInput('example_mode', {
      description: 'What to do when the run is BLOCKED: wait, fail or pass.',
      required: false,
      default: 'wait',
    })
    const generated = spliceTables(README, changed)

    expect(generated).not.toBe(spliceTables(README, ACTION_YML))
    expect(generated).toMatch(
      /^\| `example_mode` +\| `wait` +\| What to do when the run is BLOCKED: wait, fail or pass\. +\|$/m,
    )
  })

  it('keep a description with Markdown syntax inside its cell', () => {
    const changed = withInput('example_patterns', {
      description: 'Patterns, such as a|b, *.log or **/out, matched against <filepath>.',
      required: false,
      default: '',
    })
    const row = spliceTables(README, changed)
      .split('\n')
      .find((line) => /^\| `example_patterns` +\|/.test(line))

    expect(row).toMatch(/a\\\|b, \\\*\.log or \\\*\\\*\/out, matched against &lt;filepath&gt;\./)
    // Four unescaped pipes: three cells.
    expect(row?.match(/(?<!\\)\|/g)).toHaveLength(4)
  })

  it('refuse a README that lost its markers, rather than leave stale tables', () => {
    const withoutMarkers = README.replace(startMarker('outputs'), '')

    expect(() => spliceTables(withoutMarkers, ACTION_YML)).toThrow(
      `needs exactly one "${startMarker('outputs')}" followed by one "${endMarker('outputs')}"`,
    )
  })
})
