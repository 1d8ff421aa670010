import type { AgentRunsClient } from '../api/client.ts'
import { abortableSleep } from '../api/transport.ts'
import type { RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import { logCancel, type CancelReport } from '../model/cancel.ts'
import type { StepOutcome } from '../model/step.ts'
import { SIGNAL_CANCEL } from '../timing.ts'
import { cancelDeadline, cancelOwnRun, rereadAfterCancel } from './cancel.ts'
import type { RunTracker } from './tracker.ts'

/** What the interruption needs of its door: the signals, and a way to end the process. */
export interface InterruptionDeps {
  log: Log
  /** Listens for the termination signals; returns the unsubscribe. */
  onSignal: (handler: (signal: NodeJS.Signals) => void) => () => void
  /** Ends the process: past the cancel's budget, before the runner's kill. */
  exit: (code: number) => void
}

type SignalCancel = { signal: NodeJS.Signals; cancel: CancelReport | undefined }

/**
 * The workflow cancelling the step: SIGINT or SIGTERM. The first signal aborts
 * the wait and sends the cancel at once, within what the runner leaves before
 * it kills the step; the step then reports itself interrupted.
 */
export class Interruption {
  readonly #controller = new AbortController()
  readonly #tracker: RunTracker
  readonly #deps: InterruptionDeps
  #client: AgentRunsClient | undefined
  #cancelling: Promise<SignalCancel> | undefined
  #stopListening = (): void => undefined

  constructor(tracker: RunTracker, deps: InterruptionDeps) {
    this.#tracker = tracker
    this.#deps = deps
  }

  /** Aborts when the workflow cancels the step. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  get cancelling(): boolean {
    return this.#cancelling !== undefined
  }

  listen(client: AgentRunsClient): void {
    this.#client = client
    this.#stopListening = this.#deps.onSignal((signal) => {
      if (this.#cancelling) {
        this.#deps.log.info(`Received ${signal} again; still cancelling.`)
        return
      }
      this.#controller.abort()
      this.#cancelling = this.#cancelOnSignal(signal, client)
    })
  }

  stopListening(): void {
    this.#stopListening()
  }

  /** The step's outcome once the signal's cancel is answered; undefined without a signal. */
  async outcome(lastSeen: RunItem | undefined): Promise<StepOutcome | undefined> {
    if (!this.#cancelling || !this.#client) return undefined
    const { signal, cancel } = await this.#cancelling
    const run = await rereadAfterCancel(this.#client, cancel, lastSeen)
    return { kind: 'interrupted', run, signal, cancel }
  }

  /** Sends the cancel request at once, within what the runner leaves before it kills the step. */
  async #cancelOnSignal(signal: NodeJS.Signals, client: AgentRunsClient): Promise<SignalCancel> {
    const { log } = this.#deps
    const tracker = this.#tracker
    const why = { kind: 'signal', signal } as const
    const deadline = cancelDeadline(why, Date.now())
    // Should anything keep the process alive past the budget, end it before the runner's kill.
    const exitIn = deadline - Date.now() + SIGNAL_CANCEL.exitMarginMs
    setTimeout(() => this.#deps.exit(1), exitIn).unref()
    log.info(`Received ${signal}: the workflow is cancelling this step.`)
    // A create (or its lookup) or a follow-up in flight may yet start or restart a run: let it
    // answer, keeping time for the cancel.
    const runId = await tracker.whenDecided((deadline - Date.now()) * SIGNAL_CANCEL.decideShare)
    if (!runId || !tracker.needsCancel) {
      if (tracker.mayHaveUnseenRun) {
        log.info('The create request has not been answered; the post step will look for its run.')
      }
      return { signal, cancel: undefined }
    }
    const deps = { client, now: Date.now, sleep: abortableSleep, log }
    const cancel = await cancelOwnRun(tracker, runId, why, deps, deadline)
    if (cancel.kind === 'blocked') logCancel(log, runId, cancel)
    return { signal, cancel }
  }
}
