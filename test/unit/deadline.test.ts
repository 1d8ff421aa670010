/** A GitHub call's deadline, from any share of the time left. */
import { describe, expect, it } from 'vitest'
import { withDeadline } from '../../src/github/octokit.ts'

describe('withDeadline', () => {
  it('takes a fraction or a past deadline (AbortSignal.timeout takes neither)', () => {
    // A share of a signal's grace is fractional: it made the older step cancel a steered run.
    expect(() => withDeadline(3899.39990234375)).not.toThrow()
    expect(withDeadline(3899.4).request.signal.aborted).toBe(false)
    expect(() => withDeadline(-5)).not.toThrow()
  })
})
