/** eachAtMost: every item's work, in order, never more than so many under way at once. */
import { describe, expect, it } from 'vitest'
import { eachAtMost } from '../../src/at-most.ts'

describe('eachAtMost', () => {
  it('starts each item in order and keeps at most atOnce under way', async () => {
    const started: number[] = []
    let running = 0
    let most = 0
    const finishers: (() => void)[] = []
    const done = eachAtMost(3, [10, 11, 12, 13, 14, 15, 16], async (item, index) => {
      expect(item).toBe(index + 10)
      started.push(index)
      running += 1
      most = Math.max(most, running)
      await new Promise<void>((resolve) => finishers.push(resolve))
      running -= 1
    })
    // Each finished item lets exactly one more start, until all seven have.
    while (started.length < 7 || running > 0) {
      await new Promise((resolve) => setImmediate(resolve))
      finishers.shift()?.()
    }
    await done
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(most).toBe(3)
  })

  it('does nothing for no items and rejects with the first failure', async () => {
    await eachAtMost(4, [], () => Promise.reject(new Error('never called')))
    await expect(
      eachAtMost(2, [1, 2, 3], (item) =>
        item === 2 ? Promise.reject(new Error('item 2')) : Promise.resolve(),
      ),
    ).rejects.toThrow('item 2')
  })
})
