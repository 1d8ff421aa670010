/**
 * The steps' entries read as outlines (CONTRIBUTING.md, "Layout"): main.ts and post.ts
 * wire the layers below together, and every piece with a job of its own (the signal, the
 * watcher, the result's check, the agent's work, the surfaces, the post step's cleanup) lives
 * in the module that does that job. Their length together is the sign that one grew back.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')

/** The goal for the two entries together (issue 26, "Entries as outlines"). */
const MAX_LINES = 250

function linesOf(path: string): number {
  return readFileSync(join(ROOT, path), 'utf8').trimEnd().split('\n').length
}

describe('the entries', () => {
  it(`keep main.ts and post.ts within ${MAX_LINES} lines together`, () => {
    const lines = { main: linesOf('src/step/main.ts'), post: linesOf('src/step/post.ts') }
    expect(lines.main + lines.post, JSON.stringify(lines)).toBeLessThanOrEqual(MAX_LINES)
  })
})
