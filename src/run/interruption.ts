import type { DoorWords, Interrupted } from '../door-words.ts'
import type { Log } from '../log.ts'
import { SIGNAL_CANCEL } from '../timing.ts'
import { safeForLog } from '../text/log.ts'
import { errorMessage } from '../text/plain.ts'
import { cancelDeadline, type CancelWhy } from './cancel.ts'

/** What the interruption needs of its door: the signals, and a way to end the process. */
export interface InterruptionDeps {
  log: Log
  /** Listens for the termination signals; returns the unsubscribe. */
  onSignal: (handler: (signal: NodeJS.Signals) => void) => () => void
  /** Ends the process: past the cancel's budget, before the runner's kill. */
  exit: (code: number) => void
  /** The door's words for a signal: why it came, what it means for the outcome. */
  words: Pick<DoorWords, 'signalled' | 'interrupted'>
}

/** What a signal's cancel goes through: the schedule of runs now going (see RunScheduler). */
export interface Stoppable {
  cancelInFlight(why: CancelWhy, deadline: number): Promise<void>
  /** Leaves every run in flight to a newer step: nothing is owed on them, nothing is cancelled. */
  handOver(): void
}

/**
 * What shows that a newer step for the thread has started and steers the run (previous_run:
 * steer): why, or undefined when nothing does. Asked once, on the first signal.
 */
export type NewerStep = (deadline: number) => Promise<string | undefined>

/**
 * The workflow cancelling the step: SIGINT or SIGTERM. The first signal aborts the wait and
 * cancels what the schedule has in flight at once, within what the runner leaves before it
 * kills the step, for one run as for a set; the step then reports itself interrupted.
 */
export class Interruption {
  readonly #controller = new AbortController()
  readonly #deps: InterruptionDeps
  #guarded: Stoppable | undefined
  #newerStep: NewerStep | undefined
  #handedOver: string | undefined
  #cancelling: Promise<NodeJS.Signals> | undefined
  #stopListening = (): void => undefined

  constructor(deps: InterruptionDeps) {
    this.#deps = deps
  }

  /** Aborts when the workflow cancels the step. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** What a signal means for the step's outcome, in the door's words. */
  get interrupted(): Interrupted {
    return this.#deps.words.interrupted
  }

  get cancelling(): boolean {
    return this.#cancelling !== undefined
  }

  listen(): void {
    this.#stopListening = this.#deps.onSignal((signal) => {
      if (this.#cancelling) {
        this.#deps.log.info(`Received ${signal} again; still cancelling.`)
        return
      }
      this.#controller.abort()
      this.#cancelling = this.#cancelOnSignal(signal)
    })
  }

  /**
   * previous_run: steer: on a signal, first asks whether a newer step for the thread has
   * started; then the run is that step's, and is handed over rather than cancelled.
   */
  handsOverWhen(newerStep: NewerStep): void {
    this.#newerStep = newerStep
  }

  /** Why the run was handed to a newer step instead of cancelled; undefined when it was not. */
  get handedOver(): string | undefined {
    return this.#handedOver
  }

  /** The schedule now going: a signal's cancel goes to it. */
  guard(stoppable: Stoppable): void {
    this.#guarded = stoppable
  }

  stopListening(): void {
    this.#stopListening()
  }

  /** The signal, once its cancel has been answered; undefined without a signal. */
  async settled(): Promise<NodeJS.Signals | undefined> {
    return this.#cancelling
  }

  /** Cancels what is in flight at once, within what the runner leaves before it kills the step. */
  async #cancelOnSignal(signal: NodeJS.Signals): Promise<NodeJS.Signals> {
    const why = { kind: 'signal', signal } as const
    const deadline = cancelDeadline(why, Date.now())
    // Should anything keep the process alive past the budget, end it before the runner's kill.
    const exitIn = deadline - Date.now() + SIGNAL_CANCEL.exitMarginMs
    setTimeout(() => this.#deps.exit(1), exitIn).unref()
    this.#deps.log.info(`Received ${signal}: ${this.#deps.words.signalled}.`)
    const decideBy = Date.now() + (deadline - Date.now()) * SIGNAL_CANCEL.decideShare
    const newer = await this.#newerStep?.(decideBy).catch((error: unknown) => {
      this.#deps.log.warning(
        `Could not tell whether a newer step for this thread has started (${safeForLog(errorMessage(error))}); cancelling the run, as for any cancelled step.`,
      )
      return undefined
    })
    if (newer) {
      this.#handedOver = newer
      this.#deps.log.info(
        `A newer step for this thread steers the run now (${newer}); handing it over, not cancelling it.`,
      )
      this.#guarded?.handOver()
      return signal
    }
    await this.#guarded?.cancelInFlight(why, deadline)
    return signal
  }
}
