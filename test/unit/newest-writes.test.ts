import { describe, expect, it } from 'vitest'
import { NewestWrites } from '../../src/github/writes.ts'

/** A write that waits until the test lets it land, so the order of events is the test's. */
function gatedWrites() {
  const landed: string[] = []
  const gates: Array<() => void> = []
  let started: (() => void) | undefined
  const writes = new NewestWrites<string>(
    (value) =>
      new Promise<void>((resolve) => {
        gates.push(() => {
          landed.push(value)
          resolve()
        })
        started?.()
      }),
  )
  /** Lets the oldest write under way land, once it has started. */
  const land = async () => {
    if (gates.length === 0) await new Promise<void>((resolve) => (started = resolve))
    gates.shift()?.()
  }
  return { writes, landed, land }
}

describe('NewestWrites: one write at a time, the newest, and the end last', () => {
  it('a burst becomes one write of the newest', async () => {
    const { writes, landed, land } = gatedWrites()
    writes.push('queued')
    writes.push('in progress 1')
    writes.push('in progress 2')
    await land()
    expect(await writes.settled(60_000)).toBe('done')
    expect(landed).toEqual(['in progress 2'])
  })

  it('a progress value pushed after the end is dropped: the end is the last write', async () => {
    const { writes, landed, land } = gatedWrites()
    writes.push('in progress')
    const first = land()
    await first
    // The end is queued; a poll's late answer follows it, while the end's write is under way.
    writes.push('timed out', true)
    writes.push('in progress, late')
    const settled = writes.settled(60_000)
    await land()
    expect(await settled).toBe('done')
    expect(landed).toEqual(['in progress', 'timed out'])
  })

  it('a later final value (the end with its answer) still replaces the end', async () => {
    const { writes, landed, land } = gatedWrites()
    writes.push('timed out', true)
    await land()
    writes.push('in progress, late')
    writes.push('timed out, with the answer', true)
    await land()
    expect(await writes.settled(60_000)).toBe('done')
    expect(landed).toEqual(['timed out', 'timed out, with the answer'])
  })
})
