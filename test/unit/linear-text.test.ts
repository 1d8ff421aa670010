/**
 * Every transform of service or agent text is linear. Each group (in
 * linear-text.worker.ts) feeds its functions 300 KB shaped to make a
 * backtracking expression, or a loop that rescans, go quadratic: about 10^11
 * steps, minutes, where linear takes well under a second. The group runs in a
 * worker thread, because a synchronous function cannot be interrupted, and is
 * judged by its thread's CPU time, which load does not stretch; a far deadline
 * on the clock ends a group gone quadratic.
 */
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { GROUPS } from './linear-text.worker.ts'

/**
 * The CPU time a group may take: far above linear (well under a second, whatever the load: it
 * is the worker thread's own time, not the clock's), far below quadratic (minutes).
 */
const CPU_BOUND_MS = 10_000

/** The hang guard: a group gone quadratic is ended here, when the clock has run this long. */
const DEADLINE_MS = 120_000

function runGroup(group: string): Promise<{ failed: string[]; cpuMs: number } | 'not linear'> {
  const worker = new Worker(new URL('./linear-text.worker.ts', import.meta.url), {
    workerData: group,
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate()
      resolve('not linear')
    }, DEADLINE_MS)
    worker.once('message', (answer: { failed: string[]; cpuMs: number }) => {
      clearTimeout(timer)
      void worker.terminate()
      resolve(answer)
    })
    worker.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
  })
}

describe('linear on hostile text', () => {
  it.each(Object.keys(GROUPS))(
    '%s',
    async (group) => {
      const answer = await runGroup(group)
      expect(answer).not.toBe('not linear')
      if (answer === 'not linear') return
      expect(answer.failed).toEqual([])
      expect(answer.cpuMs).toBeLessThan(CPU_BOUND_MS)
    },
    DEADLINE_MS + 10_000,
  )
})
