import type { RunsStore, SavedRunRecord } from '../state.ts'

/** A request whose answer decides which run, if any, the step answers for. */
type Pending = 'create' | 'followup'

/**
 * The run this step is responsible for. It persists the run ID the moment it
 * is known, so that a hard kill still leaves the post step able to cancel it,
 * and remembers whether the run still needs cancelling.
 */
export class RunTracker {
  /** Saves the step's whole list of runs, this one's record in it. */
  readonly #save: () => void
  readonly #onKnown: (runId: string) => void
  #invocation: string | undefined
  #runId: string | undefined
  #settled = false
  #pending: Pending | undefined
  #awaitingNewPass = false
  #decided: Promise<void> = Promise.resolve()
  #decide: () => void = () => undefined

  constructor(save: () => void, onKnown: (runId: string) => void = () => undefined) {
    this.#save = save
    this.#onKnown = onKnown
  }

  /** What the post step needs of this run; undefined while no request that may make one went out. */
  get saved(): SavedRunRecord | undefined {
    if (this.#invocation === undefined && this.#runId === undefined) return undefined
    return {
      ...(this.#invocation !== undefined ? { invocation: this.#invocation } : {}),
      ...(this.#runId !== undefined ? { runId: this.#runId } : {}),
      ...(this.#settled ? { settled: true } : {}),
      ...(this.#awaitingNewPass ? { awaitingNewPass: true } : {}),
    }
  }

  get runId(): string | undefined {
    return this.#runId
  }

  /** Whether a cancel request is owed: a run exists and has not ended or been handed off. */
  get needsCancel(): boolean {
    return this.#runId !== undefined && !this.#settled
  }

  /** A create request went out and its run has been neither seen nor ruled out. */
  get mayHaveUnseenRun(): boolean {
    return this.#pending === 'create'
  }

  /**
   * A follow-up was accepted (or may have been) and the run has not yet been
   * seen leaving the state it had before: a cancel answering "already finished"
   * may come before the run restarts, so it proves nothing.
   */
  get awaitingNewPass(): boolean {
    return this.#awaitingNewPass
  }

  /** A create request tagged `invocation` is about to go out; its run may exist before its answer. */
  creating(invocation: string): void {
    // A new run: whatever was owed on an earlier one (a steer that fell back) is settled.
    this.#settled = false
    this.#awaitingNewPass = false
    this.#invocation = invocation
    this.#save()
    this.#expect('create')
  }

  /** The create request was refused: the service made no run. */
  noRunMade(): void {
    this.#resolvePending()
  }

  /**
   * A follow-up to `runId` is about to go out; until it is answered, the run
   * may yet restart, and until it is seen leaving its old state, a cancel's
   * "already finished" may be stale. Saved first, for a post step after a kill.
   */
  followingUp(runId: string): void {
    this.#awaitingNewPass = true
    this.#remember(runId)
    this.#save()
    this.#expect('followup')
  }

  /** The follow-up was refused: the run is another workflow's work, and nothing is owed on it. */
  followupRefused(): void {
    this.settle()
    this.#resolvePending()
  }

  newPassSeen(): void {
    if (!this.#awaitingNewPass) return
    this.#awaitingNewPass = false
    this.#save()
  }

  track(runId: string): void {
    this.#remember(runId)
    this.#resolvePending()
  }

  /**
   * Back to the run this step created, after another of its key could not be steered in its
   * stead (previous_run: steer): it is owed again, and no follow-up is awaited on it.
   */
  keepOwn(runId: string): void {
    this.#settled = false
    this.#awaitingNewPass = false
    this.#remember(runId)
    this.#save()
  }

  /** The run ended, was cancelled, or was handed off on purpose, or none was made: nothing is owed. */
  settle(): void {
    if (this.#settled) return
    this.#settled = true
    this.#save()
  }

  /**
   * The run ID once no request in flight can change it (a create's or a
   * follow-up's answer), or after `ms` at most, whatever is known then.
   */
  async whenDecided(ms: number): Promise<string | undefined> {
    if (this.#pending === undefined) return this.#runId
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
    try {
      await Promise.race([this.#decided, timeout])
    } finally {
      clearTimeout(timer)
    }
    return this.#runId
  }

  /** Whether a create or follow-up request is still out. */
  get deciding(): boolean {
    return this.#pending !== undefined
  }

  #remember(runId: string): void {
    if (this.#runId === runId) return
    this.#runId = runId
    this.#save()
    this.#onKnown(runId)
  }

  #expect(pending: Pending): void {
    this.#pending = pending
    this.#decided = new Promise((resolve) => (this.#decide = resolve))
  }

  #resolvePending(): void {
    this.#pending = undefined
    this.#decide()
  }
}

/**
 * The step's runs, one run's or a set's, for the post step: each run's tracker saves its own
 * record at every change to it (the count of runs first), so a hard kill leaves the latest.
 */
export class TrackedRuns {
  readonly #store: Pick<RunsStore, 'saveRun' | 'saveRunCount'>
  readonly #trackers: RunTracker[] = []
  #savedCount = 0

  constructor(store: Pick<RunsStore, 'saveRun' | 'saveRunCount'>) {
    this.#store = store
  }

  /** A tracker for one more run, in the list. */
  track(onKnown?: (runId: string) => void): RunTracker {
    const index = this.#trackers.length
    const tracker = new RunTracker(() => this.#save(index, tracker), onKnown)
    this.#trackers.push(tracker)
    return tracker
  }

  #save(index: number, tracker: RunTracker): void {
    const record = tracker.saved
    if (!record) return
    // The count before the record: a post step reads the records the count names.
    if (index >= this.#savedCount) {
      this.#savedCount = this.#trackers.length
      this.#store.saveRunCount(this.#savedCount)
    }
    this.#store.saveRun(index, record)
  }
}
