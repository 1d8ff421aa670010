/** previous_run: steer's pure parts: the key's metadata, the steering follow-up, the fallback line. */
import { describe, expect, it } from 'vitest'
import {
  fallbackLine,
  keyMetadataOf,
  needsInterrupt,
  steeringMessage,
} from '../../src/run/steer.ts'

const OLD = 'a'.repeat(40)
const NEW = 'c'.repeat(40)

describe('steering', () => {
  it("finds the key's runs by repository, key and thread, and steers by nothing less", () => {
    const metadata = { gh_repository: 'o/r', gh_key: 'pr-7', gh_thread: '7', gh_invocation: 'x' }
    expect(keyMetadataOf(metadata)).toEqual({
      gh_repository: 'o/r',
      gh_key: 'pr-7',
      gh_thread: '7',
    })
    expect(keyMetadataOf({ gh_repository: 'o/r' })).toBeUndefined()
  })

  it('interrupts only a run at work: one not started takes the follow-up into its prompt', () => {
    for (const state of ['QUEUED', 'PENDING', 'CLAIMED']) {
      expect(needsInterrupt({ run_id: 'r', state })).toBe(false)
    }
    expect(needsInterrupt({ run_id: 'r', state: 'INPROGRESS' })).toBe(true)
  })

  it('says what changed: the heads and the commits between, oldest first, and what to do', () => {
    const commits = [
      { sha: 'b'.repeat(40), title: 'Fix the parser' },
      { sha: NEW, title: 'x'.repeat(500) },
    ]
    const message = steeringMessage('Review', { old: OLD, now: NEW }, { kind: 'ahead', commits })
    const lines = message.split('\n')
    expect(lines[0]).toBe('Review')
    expect(message).toContain(`- The new head: ${NEW}`)
    expect(message).toContain(`- The head you were working on: ${OLD}`)
    expect(message).toContain(`  - bbbbbbbbbbbb Fix the parser`)
    // A commit title is cut to a line.
    expect(lines.every((line) => line.length <= 200)).toBe(true)
    expect(message).toMatch(/Review or rework only what changed/)
  })

  it('lists at most 50 commits, and says how many more came before', () => {
    const commits = Array.from({ length: 60 }, (_, i) => ({
      sha: String(i).padStart(40, '0'),
      title: `commit ${i}`,
    }))
    const message = steeringMessage('Review', { old: OLD, now: NEW }, { kind: 'ahead', commits })
    expect(message).not.toContain('commit 9\n')
    expect(message).toContain('commit 59')
    expect(message).toContain('and 10 earlier ones')
  })

  it('without a commit list (GitHub could not say), names the heads alone', () => {
    const message = steeringMessage('Review', { old: OLD, now: NEW }, { kind: 'unknown', why: 'x' })
    expect(message).not.toContain('The commits since')
    expect(message).toContain(OLD)
  })

  it('says a fallback in one line, with the run text made inert', () => {
    const line = fallbackLine('run_1\n::error::x', 'a force push')
    expect(line.split('\n')).toHaveLength(1)
    expect(line).toContain(
      'cannot be steered (a force push); cancelling it and creating a new run.',
    )
  })
})
