/** RequestSlots: at most so many at once, the rest in order, and a caller may give up waiting. */
import { describe, expect, it } from 'vitest'
import { RequestSlots } from '../../src/api/slots.ts'

/** A stop a test rejects when it likes: a caller's signal or deadline. */
function stopper() {
  let giveUp: (error: Error) => void = () => {}
  const stop = new Promise<never>((_, reject) => (giveUp = reject))
  stop.catch(() => {})
  return { stop, giveUp }
}

describe('RequestSlots', () => {
  it('hands out as many slots as its limit at once, then one per release, oldest first', async () => {
    const slots = new RequestSlots(2)
    const first = await slots.take(undefined)
    const second = await slots.take(undefined)
    expect(slots.tryTake()).toBeUndefined()
    const order: number[] = []
    const waiting = [3, 4, 5].map((n) =>
      slots.take(undefined).then((release) => {
        order.push(n)
        return release
      }),
    )
    await Promise.resolve()
    expect(order).toEqual([])
    first()
    const third = await waiting[0]
    expect(order).toEqual([3])
    second()
    third?.()
    await Promise.all(waiting.slice(1))
    expect(order).toEqual([3, 4, 5])
  })

  it('frees a slot once however often its release is called', async () => {
    const slots = new RequestSlots(1)
    const release = await slots.take(undefined)
    release()
    release()
    const again = slots.tryTake()
    expect(again).toBeDefined()
    expect(slots.tryTake()).toBeUndefined()
  })

  it('lets a waiting caller give up: it holds nothing, and the next in line gets the slot', async () => {
    const slots = new RequestSlots(1)
    const held = await slots.take(undefined)
    const { stop, giveUp } = stopper()
    const givingUp = slots.take(stop)
    const next = slots.take(undefined)
    giveUp(new Error('aborted'))
    await expect(givingUp).rejects.toThrow('aborted')
    held()
    const release = await next
    expect(slots.tryTake()).toBeUndefined()
    release()
    expect(slots.tryTake()).toBeDefined()
  })

  it('passes on a slot handed over in the same moment its caller gave up', async () => {
    const slots = new RequestSlots(1)
    const held = await slots.take(undefined)
    const { stop, giveUp } = stopper()
    const givingUp = slots.take(stop)
    // The caller gives up, and before it has seen its stop the release hands it the slot.
    giveUp(new Error('aborted'))
    held()
    await expect(givingUp).rejects.toThrow('aborted')
    // Nobody holds it now: it is free again, not lost.
    expect(slots.tryTake()).toBeDefined()
  })
})
