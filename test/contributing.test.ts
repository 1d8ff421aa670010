/**
 * CONTRIBUTING.md true to the tree: every path its layout names exists, and every path of the
 * repository named anywhere on the page (`src/…`, `test/…`, `scripts/…`) exists. Where each file
 * of src/ lives is the layers' block, held by test/layers.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')
const PAGE = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8')

/** The layout's code block: a line per path, its first column the path or paths it describes. */
const LAYOUT = PAGE.slice(PAGE.indexOf('## Layout'))
  .split('```')[1]
  ?.split('\n')
  .filter((line) => /^\S/.test(line))

/**
 * The paths a layout line opens with: "src/step/main.ts, post.ts" names src/step/main.ts and src/step/post.ts,
 * each after the first in the first one's folder.
 */
function pathsOf(line: string): string[] {
  const head = /^[\w./-]+(?:, [\w./-]+)*/.exec(line)?.[0] ?? ''
  const [first = '', ...rest] = head.split(', ')
  const dir = first.endsWith('/') ? first : posix.dirname(first)
  return [first, ...rest.map((name) => posix.join(dir, name))].map((path) => path.trim())
}

describe('CONTRIBUTING.md', () => {
  it('has a layout', () => {
    expect(LAYOUT?.length).toBeGreaterThan(20)
  })

  it('names only paths that exist in its layout', () => {
    const missing = (LAYOUT ?? []).flatMap(pathsOf).filter((path) => !existsSync(join(ROOT, path)))
    expect(missing).toEqual([])
  })

  it('names only files of the repository that exist, anywhere on the page', () => {
    const mentioned = PAGE.match(/\b(?:src|test|scripts)\/[\w./-]+\.(?:ts|mjs|json)\b/g) ?? []
    expect([...new Set(mentioned)].filter((path) => !existsSync(join(ROOT, path)))).toEqual([])
  })
})
