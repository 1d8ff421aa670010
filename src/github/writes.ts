import type { Log } from '../log.ts'

/**
 * Writes to GitHub that show the newest of a changing value (a comment, a
 * commit status). They go out one at a time, in order; a burst of values
 * becomes one write of the newest, never a backlog; once a final value (the
 * end) is queued, a progress value that comes later is dropped, so a late
 * progress write can never cover the end; and waiting for them is bounded, so
 * GitHub can never hold the step.
 */
export class NewestWrites<T> {
  readonly #write: (value: T) => Promise<void>
  #queue: Promise<void> = Promise.resolve()
  #pending: { value: T } | undefined
  #stopped = false
  #final = false
  #lastPushed: string | undefined

  constructor(write: (value: T) => Promise<void>) {
    this.#write = write
  }

  /**
   * Queues `value`; a write already waiting will take it instead of its own. `final`: the value
   * is the end; after it only final values are written.
   */
  push(value: T, final = false): void {
    if (this.#stopped || (this.#final && !final)) return
    if (final) this.#final = true
    const waiting = this.#pending !== undefined
    this.#pending = { value }
    if (!waiting) this.#queue = this.#queue.then(() => this.#writePending())
  }

  /** Queues `value` unless it is the value queued last: an unchanged value is never written twice. */
  pushChanged(value: T, final = false): void {
    const key = JSON.stringify(value)
    if (key === this.#lastPushed) return
    this.#lastPushed = key
    this.push(value, final)
  }

  /** `settled`, with a warning that names `what` when GitHub did not answer in time. */
  async settle(maxMs: number, log: Pick<Log, 'warning'>, what: string): Promise<void> {
    if ((await this.settled(maxMs)) === 'gave-up') {
      log.warning(
        `GitHub: ${what} was not brought up to date within ${maxMs / 1000}s; GitHub is not answering. The run is not affected.`,
      )
    }
  }

  /**
   * Waits for the writes still on their way, for at most `maxMs`. After that
   * nothing more is written, and it answers `gave-up`.
   */
  async settled(maxMs: number): Promise<'done' | 'gave-up'> {
    let timer: NodeJS.Timeout | undefined
    const gaveUp = new Promise<'gave-up'>((resolve) => {
      timer = setTimeout(() => resolve('gave-up'), maxMs)
    })
    try {
      const result = await Promise.race([this.#queue.then(() => 'done' as const), gaveUp])
      if (result === 'gave-up') {
        this.#stopped = true
        this.#pending = undefined
      }
      return result
    } finally {
      clearTimeout(timer)
    }
  }

  /** Whether a newer value waits for the write under way: that write need not look further. */
  get waiting(): boolean {
    return this.#pending !== undefined
  }

  /** Whether `settled` gave up: a write still under way should not start another. */
  get stopped(): boolean {
    return this.#stopped
  }

  async #writePending(): Promise<void> {
    const next = this.#pending
    this.#pending = undefined
    if (next && !this.#stopped) await this.#write(next.value)
  }
}
