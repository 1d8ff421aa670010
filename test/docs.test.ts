import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { endMarker, generateReadme, spliceTables, startMarker } from '../scripts/docs/tables.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The page that holds the generated tables (its variables keep their old names: README). */
const README_PATH = join(ROOT, 'docs', 'inputs.md')
const README = readFileSync(README_PATH, 'utf8')
const ACTION_YML = readFileSync(join(ROOT, 'action.yml'), 'utf8')

/** action.yml with one more input, as a change to it would add. */
function withInput(name: string, input: Record<string, unknown>): string {
  const document = parseDocument(ACTION_YML)
  document.setIn(['inputs', name], input)
  return document.toString()
}

describe('the inputs and outputs tables of docs/inputs.md', () => {
  it('are what `npm run docs` makes from action.yml (run it and commit docs/inputs.md if not)', async () => {
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

/** The pages a workflow author reads: the README and docs/. */
const USER_DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

/** Lines of prose: not in a code block, a table or HTML. */
function proseLines(markdown: string): Array<[number, string]> {
  let fenced = false
  return markdown.split('\n').flatMap((line, index): Array<[number, string]> => {
    if (line.startsWith('```')) fenced = !fenced
    if (
      fenced ||
      line.startsWith('```') ||
      line.startsWith('|') ||
      line.trimStart().startsWith('<')
    )
      return []
    return [[index + 1, line]]
  })
}

describe('the user docs', () => {
  it('README.md is read in five minutes: at most 15 KB', () => {
    expect(Buffer.byteLength(readFileSync(join(ROOT, 'README.md')))).toBeLessThanOrEqual(15_000)
  })

  it("README.md's first screen has the step, the pictures and the quick start", () => {
    const firstScreen = readFileSync(join(ROOT, 'README.md'), 'utf8')
      .split('\n')
      .slice(0, 40)
      .join('\n')
    expect(firstScreen).toMatch(/- uses: [\w.-]+\/[\w.-]+@v\d+\n {2}with:\n/)
    expect(firstScreen).toContain('api_key: ${{ secrets.WARP_API_KEY }}')
    expect(firstScreen.match(/<img src="docs\/images\/[\w-]+\.png"/g)).toHaveLength(2)
    expect(firstScreen).toContain('## Quick start')
  })

  it.each(USER_DOCS)('%s has no line of prose over 120 characters', (path) => {
    const long = proseLines(readFileSync(join(ROOT, path), 'utf8')).filter(
      ([, line]) => line.length > 120,
    )
    expect(long.map(([number, line]) => `${path}:${number}: ${line.slice(0, 60)}…`)).toEqual([])
  })

  it.each(USER_DOCS)('%s names no test file', (path) => {
    expect(readFileSync(join(ROOT, path), 'utf8')).not.toMatch(/\.test\.ts|\btest\/[\w-]+\//)
  })

  it.each(USER_DOCS)('%s links only to files that exist', (path) => {
    const text = readFileSync(join(ROOT, path), 'utf8')
    const targets = [...text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)].map((m) => m[1])
    for (const target of targets) {
      expect(existsSync(join(ROOT, dirname(path), target ?? '')), `${path} → ${target}`).toBe(true)
    }
  })

  it('finds a long prose line, and skips code, tables and HTML', () => {
    const long = 'x'.repeat(121)
    const text = ['# T', long, '```', long, '```', `| ${long} |`, `<img alt="${long}">`].join('\n')
    expect(proseLines(text).map(([number]) => number)).toEqual([1, 2])
  })
})
