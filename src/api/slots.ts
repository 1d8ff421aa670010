/**
 * How many requests one client has in flight at once. A set of a thousand runs that end
 * together would otherwise read a thousand answers at the same moment: a thousand sockets,
 * parsers and bodies held at once (the step's peak memory), and a burst no service welcomes.
 * A request past the limit waits its turn, in order, and gives up when its caller does.
 */
export class RequestSlots {
  readonly #limit: number
  #taken = 0
  /** The requests waiting for a slot, oldest first: each is handed one when it frees. */
  readonly #waiting = new Set<() => void>()

  constructor(limit: number) {
    this.#limit = limit
  }

  /** A slot's release at once when one is free (no waiting, nothing allocated), else none. */
  tryTake(): (() => void) | undefined {
    if (this.#taken >= this.#limit) return undefined
    this.#taken += 1
    return this.#release()
  }

  /**
   * Resolves with the slot's release once one is free, in the order asked; rejects with
   * `stop`'s error if it settles first (the caller's signal or deadline), holding nothing then.
   */
  async take(stop: Promise<never> | undefined): Promise<() => void> {
    const free = this.tryTake()
    if (free) return free
    let handed = false
    let onTurn = () => {}
    const turn = new Promise<void>((resolve) => (onTurn = resolve))
    const entry = () => {
      handed = true
      onTurn()
    }
    this.#waiting.add(entry)
    try {
      await (stop === undefined ? turn : Promise.race([turn, stop]))
    } catch (error) {
      // Handed a slot in the moment the caller gave up: it goes on to the next in line.
      if (handed) this.#release()()
      else this.#waiting.delete(entry)
      throw error
    }
    return this.#release()
  }

  /** A release that frees the slot once, handing it to the oldest waiting request. */
  #release(): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.#waiting.values().next()
      if (next.done === true) {
        this.#taken -= 1
        return
      }
      this.#waiting.delete(next.value)
      next.value()
    }
  }
}

/** How a request waits for its slot: until its signal aborts or its deadline passes. */
export interface SlotWait {
  readonly signal?: AbortSignal | undefined
  /** Epoch ms on `now`'s clock. */
  readonly deadline?: number | undefined
  readonly now: () => number
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>
  /** The error of a wait its signal ended, and of one its deadline ended. */
  readonly aborted: () => Error
  readonly timedOut: () => Error
}

/**
 * A slot of `slots`: at once when one is free (nothing allocated), else in turn, given up with
 * `wait`'s error when its signal aborts or its deadline passes first.
 */
export async function takeSlot(slots: RequestSlots, wait: SlotWait): Promise<() => void> {
  const free = slots.tryTake()
  if (free) return free
  const { signal, deadline } = wait
  const done = new AbortController()
  const stops: Promise<never>[] = []
  if (signal !== undefined) {
    stops.push(
      new Promise<never>((_, reject) => {
        const stop = () => reject(wait.aborted())
        if (signal.aborted) stop()
        else signal.addEventListener('abort', stop, { once: true, signal: done.signal })
      }),
    )
  }
  if (deadline !== undefined) {
    const slept = wait.sleep(Math.max(0, deadline - wait.now()), done.signal)
    stops.push(
      slept.then(
        () => {
          throw wait.timedOut()
        },
        // Slept no more: the slot came first.
        () => new Promise<never>(() => {}),
      ),
    )
  }
  const stop = stops.length === 0 ? undefined : Promise.race(stops)
  stop?.catch(() => {})
  try {
    return await slots.take(stop)
  } finally {
    done.abort()
  }
}
