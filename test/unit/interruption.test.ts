/**
 * The workflow cancelling the step, in process: the door hands the Interruption its signals
 * and its exit, so a test sends the signal itself.
 */
import { describe, expect, it } from 'vitest'
import type { AgentRunsClient } from '../../src/api/client.ts'
import { Interruption } from '../../src/run/interruption.ts'
import { RunTracker } from '../../src/run/tracker.ts'
import type { StateStore } from '../../src/state.ts'

const nowhere: StateStore = {
  saveCommentId: () => undefined,
  saveStatusSha: () => undefined,
  saveInvocation: () => undefined,
  saveRunId: () => undefined,
  saveAwaitingNewPass: () => undefined,
  markSettled: () => undefined,
}

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
  const cancels: string[] = []
  const client = {
    cancelRun: async (runId: string) => {
      cancels.push(runId)
      return { kind: 'cancelled' as const }
    },
    getRun: async (runId: string) => ({ run_id: runId, state: 'CANCELLED' }),
  } as unknown as AgentRunsClient
  const tracker = new RunTracker(nowhere)
  const interruption = new Interruption(tracker, {
    log,
    onSignal: (handler) => {
      sent.handler = handler
      return () => void (sent.unsubscribed = true)
    },
    // The exit is for a step still alive past the cancel's budget: never within this test.
    exit: () => undefined,
  })
  return { lines, sent, cancels, client, tracker, interruption }
}

describe('Interruption', () => {
  it('aborts the wait and cancels the run at the first signal; a second one only says so', async () => {
    const { lines, sent, cancels, client, tracker, interruption } = harness()
    tracker.track('run-1')
    interruption.listen(client)
    expect(await interruption.outcome(undefined)).toBeUndefined()

    sent.handler?.('SIGTERM')
    sent.handler?.('SIGINT')
    expect([interruption.signal.aborted, interruption.cancelling]).toEqual([true, true])
    const outcome = await interruption.outcome({ run_id: 'run-1', state: 'INPROGRESS' })

    expect(outcome).toEqual({
      kind: 'interrupted',
      signal: 'SIGTERM',
      cancel: { kind: 'cancelled' },
      run: { run_id: 'run-1', state: 'CANCELLED' },
    })
    expect(cancels).toEqual(['run-1'])
    expect(tracker.needsCancel).toBe(false)
    expect(lines).toEqual([
      'Received SIGTERM: the workflow is cancelling this step.',
      'Received SIGINT again; still cancelling.',
    ])
    interruption.stopListening()
    expect(sent.unsubscribed).toBe(true)
  })

  it('sends no cancel when the step knows of no run, and reports the step interrupted', async () => {
    const { sent, cancels, client, interruption } = harness()
    interruption.listen(client)
    sent.handler?.('SIGINT')
    expect(await interruption.outcome(undefined)).toEqual({
      kind: 'interrupted',
      signal: 'SIGINT',
      cancel: undefined,
      run: undefined,
    })
    expect(cancels).toEqual([])
  })
})
