import type { StateStore } from '../state.ts'

/**
 * The run this step is responsible for. It persists the run ID the moment it
 * is known, so that a hard kill still leaves the post step able to cancel it,
 * and remembers whether the run still needs cancelling.
 */
export class RunTracker {
  readonly #state: StateStore
  readonly #onKnown: (runId: string) => void
  #runId: string | undefined
  #settled = false
  readonly #known: Promise<string>
  #resolveKnown: (runId: string) => void = () => undefined

  constructor(state: StateStore, onKnown: (runId: string) => void = () => undefined) {
    this.#state = state
    this.#onKnown = onKnown
    this.#known = new Promise((resolve) => (this.#resolveKnown = resolve))
  }

  get runId(): string | undefined {
    return this.#runId
  }

  /** Whether a cancel request is owed: a run exists and has not ended or been handed off. */
  get needsCancel(): boolean {
    return this.#runId !== undefined && !this.#settled
  }

  /** A create request tagged `invocation` is about to go out; its run may exist before its answer. */
  creating(invocation: string): void {
    this.#state.saveInvocation(invocation)
  }

  track(runId: string): void {
    this.#runId = runId
    this.#state.saveRunId(runId)
    this.#onKnown(runId)
    this.#resolveKnown(runId)
  }

  /** The run ended, was cancelled, or was handed off on purpose, or none was made: nothing is owed. */
  settle(): void {
    if (this.#settled) return
    this.#settled = true
    this.#state.markSettled()
  }

  /** Resolves with the run ID once known, or with undefined after `ms`. */
  async whenKnown(ms: number): Promise<string | undefined> {
    if (this.#runId !== undefined) return this.#runId
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<undefined>(
      (resolve) => (timer = setTimeout(() => resolve(undefined), ms)),
    )
    try {
      return await Promise.race([this.#known, timeout])
    } finally {
      clearTimeout(timer)
    }
  }
}
