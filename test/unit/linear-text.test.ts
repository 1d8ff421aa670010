/**
 * Every transform of service or agent text is linear. Each group (in
 * linear-text.worker.ts) feeds its functions 300 KB shaped to make a
 * backtracking expression, or a loop that rescans, go quadratic: about 10^11
 * steps, minutes, where linear takes well under a second. The group runs in a
 * worker thread, because a synchronous function cannot be interrupted: past
 * the deadline the worker is ended and the group fails, whatever the load.
 */
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { GROUPS } from './linear-text.worker.ts'

/**
 * Far above linear (under a second for a group on a quiet machine), far below quadratic
 * (minutes). 20 s was missed by a linear group (service text in Markdown) on the 2-core
 * machine with three other suites and a landing beside it.
 */
const DEADLINE_MS = 40_000

function runGroup(group: string): Promise<string[] | 'not linear'> {
  const worker = new Worker(new URL('./linear-text.worker.ts', import.meta.url), {
    workerData: group,
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate()
      resolve('not linear')
    }, DEADLINE_MS)
    worker.once('message', (failed: string[]) => {
      clearTimeout(timer)
      void worker.terminate()
      resolve(failed)
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
      expect(await runGroup(group)).toEqual([])
    },
    DEADLINE_MS + 10_000,
  )
})
