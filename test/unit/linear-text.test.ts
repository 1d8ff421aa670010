/**
 * Every transform of service or agent text is linear. Each group (in
 * linear-text.worker.ts) feeds its functions 150 KB shaped to make a
 * backtracking expression, or a loop that rescans, go quadratic: about 10^10
 * steps, tens of seconds, where linear takes well under a second. The groups run in turn
 * in a worker thread, because a synchronous function cannot be interrupted, and each
 * is judged by the thread's CPU time, which load does not stretch; a far deadline on
 * the clock ends a group gone quadratic, and a new thread runs the groups after it.
 */
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { GROUPS, type GroupMessage } from './linear-text.worker.ts'

/**
 * The CPU time a group may take: far above linear (about a second at most, whatever the load: it
 * is the worker thread's own time, not the clock's), far below quadratic (16 s and more).
 */
const CPU_BOUND_MS = 5_000

/** The hang guard: a group gone quadratic is ended here, when the clock has run this long. */
const DEADLINE_MS = 120_000

type Answer = { failed: string[]; cpuMs: number } | 'not linear'

/**
 * Runs `groups` in turn in one worker thread, and answers for each. A group still running
 * DEADLINE_MS after it began is not linear: its thread is ended, and a new one runs the rest.
 */
function runGroups(groups: readonly string[]): Map<string, Promise<Answer>> {
  const settle = new Map<string, (answer: Answer) => void>()
  const answers = new Map(
    groups.map((group) => [group, new Promise<Answer>((resolve) => settle.set(group, resolve))]),
  )
  const start = (rest: readonly string[]) => {
    if (rest.length === 0) return
    const worker = new Worker(new URL('./linear-text.worker.ts', import.meta.url), {
      workerData: rest,
    })
    let timer: ReturnType<typeof setTimeout> | undefined
    let ended = 0
    worker.on('message', (message: GroupMessage) => {
      clearTimeout(timer)
      if ('started' in message) {
        timer = setTimeout(() => {
          void worker.terminate()
          settle.get(message.group)?.('not linear')
          start(rest.slice(ended + 1))
        }, DEADLINE_MS)
        return
      }
      ended += 1
      settle.get(message.group)?.({ failed: message.failed, cpuMs: message.cpuMs })
      if (ended === rest.length) void worker.terminate()
    })
    worker.once('error', (error) => {
      clearTimeout(timer)
      for (const group of rest.slice(ended))
        settle.get(group)?.({ failed: [String(error)], cpuMs: 0 })
    })
  }
  start(groups)
  return answers
}

describe('linear on hostile text', () => {
  const groups = Object.keys(GROUPS)
  let answers: Map<string, Promise<Answer>> | undefined

  it.each(groups)(
    '%s',
    async (group) => {
      // Started by the first test, so that a run filtered by name (-t) starts none.
      answers ??= runGroups(groups)
      const answer = await answers.get(group)
      expect(answer).not.toBe('not linear')
      if (answer === 'not linear') return
      expect(answer?.failed).toEqual([])
      expect(answer?.cpuMs).toBeLessThan(CPU_BOUND_MS)
    },
    // Every group before it may take up to the deadline.
    DEADLINE_MS * groups.length + 10_000,
  )
})
