import { describe, expect, it } from 'vitest'
import { abortAfter } from '../../src/api/transport.ts'

/** Resolves with the signal's reason once it aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) =>
    signal.addEventListener('abort', () => resolve(signal.reason), { once: true }),
  )

describe('abortAfter', () => {
  it('aborts once its time has passed, even with nothing else holding the signal', async () => {
    const reason = await aborted(abortAfter(new AbortController().signal, 5))
    expect(reason).toBeInstanceOf(DOMException)
    expect((reason as DOMException).name).toBe('TimeoutError')
  })

  it('aborts with the parent, at once, and when the parent was already aborted', async () => {
    const parent = new AbortController()
    const bounded = abortAfter(parent.signal, 60_000)
    const reason = aborted(bounded)
    parent.abort('stop')
    expect(await reason).toBe('stop')
    expect(abortAfter(parent.signal, 60_000).aborted).toBe(true)
  })
})
