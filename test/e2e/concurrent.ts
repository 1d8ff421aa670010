/**
 * `describe` and `it` for an end-to-end file, whose tests run at once: each waits mostly on its
 * step's timers and its fakes, and starts its own fakes (servers.ts), so that no test shares a
 * server or a step with another. The unit files, in the same vitest project, run theirs in turn.
 */
import { describe as describeInTurn, it as itInTurn } from 'vitest'

export const describe = describeInTurn.concurrent
export const it = itInTurn.concurrent

/**
 * `it` for an end-to-end file whose tests compute more than they wait (approval.test.ts: GitHub's
 * fake answering 20 steps' reads and writes at once): its tests start at once, but at most
 * `limit` of them do their work at a time, the rest waiting their turn before they start their
 * fakes. All at once, a loaded machine's share of one core spent the file's whole burst before
 * one step's GitHub call could finish, past the 8 s deadline the product gives each call; a
 * smaller burst holds a call for a smaller share of it. The turn is taken inside the test, so
 * vitest's own limit and order stay as they are.
 */
export function itAtMost(limit: number): (name: string, body: () => Promise<void>) => void {
  let working = 0
  const waiting: Array<() => void> = []
  const turn = async (): Promise<void> => {
    if (working < limit) {
      working += 1
      return
    }
    await new Promise<void>((resolve) => waiting.push(resolve))
  }
  const done = (): void => {
    const next = waiting.shift()
    if (next) next()
    else working -= 1
  }
  return (name, body) =>
    itInTurn.concurrent(name, async () => {
      await turn()
      try {
        await body()
      } finally {
        done()
      }
    })
}
