import { WORKFLOW_WORDS } from '../../src/door-words.ts'
/**
 * The workflow cancelling the step, in process: the door hands the Interruption its signals
 * and its exit, so a test sends the signal itself; the cancel goes through the schedule now
 * going, for one run as for a set.
 */
import { describe, expect, it } from 'vitest'
import type { CancelWhy } from '../../src/run/cancel.ts'
import { Interruption, type Stoppable } from '../../src/run/interruption.ts'
import { SIGNAL_CANCEL } from '../../src/timing.ts'

function harness() {
  const lines: string[] = []
  const log = {
    debug: () => undefined,
    info: (line: string) => void lines.push(line),
    warning: (line: string) => void lines.push(line),
  }
  const sent: { handler?: (signal: NodeJS.Signals) => void; unsubscribed: boolean } = {
    unsubscribed: false,
  }
  const cancels: Array<{ why: CancelWhy; within: number }> = []
  const handedOver: number[] = []
  const schedule: Stoppable = {
    cancelInFlight: async (why, deadline) =>
      void cancels.push({ why, within: deadline - Date.now() }),
    handOver: () => void handedOver.push(Date.now()),
  }
  const interruption = new Interruption({
    log,
    words: WORKFLOW_WORDS,
    onSignal: (handler) => {
      sent.handler = handler
      return () => void (sent.unsubscribed = true)
    },
    // The exit is for a step still alive past the cancel's budget: never within this test.
    exit: () => undefined,
  })
  return { lines, sent, cancels, handedOver, schedule, interruption }
}

describe('Interruption', () => {
  it('aborts the wait and cancels what is in flight at the first signal; a second one only says so', async () => {
    const { lines, sent, cancels, schedule, interruption } = harness()
    interruption.listen()
    interruption.guard(schedule)
    expect(await interruption.settled()).toBeUndefined()

    sent.handler?.('SIGTERM')
    sent.handler?.('SIGINT')
    expect([interruption.signal.aborted, interruption.cancelling]).toEqual([true, true])
    expect(await interruption.settled()).toBe('SIGTERM')

    expect(cancels).toHaveLength(1)
    expect(cancels[0]?.why).toEqual({ kind: 'signal', signal: 'SIGTERM' })
    // Within what the runner leaves after SIGTERM before it kills the step.
    expect(cancels[0]?.within).toBeLessThanOrEqual(SIGNAL_CANCEL.afterTerminateMs)
    expect(cancels[0]?.within).toBeGreaterThan(SIGNAL_CANCEL.afterTerminateMs - 1_000)
    expect(lines).toEqual([
      'Received SIGTERM: the workflow is cancelling this step.',
      'Received SIGINT again; still cancelling.',
    ])
    interruption.stopListening()
    expect(sent.unsubscribed).toBe(true)
  })

  it('sends no cancel before any schedule began, and still says the step was interrupted', async () => {
    const { sent, cancels, interruption } = harness()
    interruption.listen()
    sent.handler?.('SIGINT')
    expect(await interruption.settled()).toBe('SIGINT')
    expect(cancels).toEqual([])
  })

  it('previous_run: steer: hands the run to a newer step instead of cancelling it', async () => {
    const { lines, sent, cancels, handedOver, schedule, interruption } = harness()
    interruption.listen()
    interruption.guard(schedule)
    const asked: number[] = []
    interruption.handsOverWhen(async (deadline) => {
      asked.push(deadline - Date.now())
      return "the pull request's head moved on to cccccccccccc"
    })
    sent.handler?.('SIGINT')
    expect(await interruption.settled()).toBe('SIGINT')
    expect(cancels).toEqual([])
    expect(handedOver).toHaveLength(1)
    expect(interruption.handedOver).toBe("the pull request's head moved on to cccccccccccc")
    // Asked within a share of the runner's grace, leaving time for the cancel were it needed.
    expect(asked[0]).toBeLessThan(SIGNAL_CANCEL.afterInterruptMs)
    expect(lines[1]).toBe(
      "A newer step for this thread steers the run now (the pull request's head moved on to cccccccccccc); handing it over, not cancelling it.",
    )
  })

  it('a cancel by a person (no newer step shows) still cancels the run', async () => {
    const { sent, cancels, handedOver, schedule, interruption } = harness()
    interruption.listen()
    interruption.guard(schedule)
    interruption.handsOverWhen(async () => undefined)
    sent.handler?.('SIGINT')
    await interruption.settled()
    expect(cancels).toHaveLength(1)
    expect(handedOver).toEqual([])
    expect(interruption.handedOver).toBeUndefined()
  })
})
