/**
 * Writes to GitHub that show the newest of a changing value (a comment, a
 * commit status). They go out one at a time, in order; a burst of values
 * becomes one write of the newest, never a backlog; and waiting for them is
 * bounded, so GitHub can never hold the step.
 */
export class NewestWrites<T> {
  readonly #write: (value: T) => Promise<void>
  #queue: Promise<void> = Promise.resolve()
  #pending: { value: T } | undefined
  #stopped = false

  constructor(write: (value: T) => Promise<void>) {
    this.#write = write
  }

  /** Queues `value`; a write already waiting will take it instead of its own. */
  push(value: T): void {
    if (this.#stopped) return
    const waiting = this.#pending !== undefined
    this.#pending = { value }
    if (!waiting) this.#queue = this.#queue.then(() => this.#writePending())
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
