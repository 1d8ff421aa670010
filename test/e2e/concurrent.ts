/**
 * `describe` and `it` for an end-to-end file, whose tests run at once: each waits mostly on its
 * step's timers and its fakes, and starts its own fakes (servers.ts), so that no test shares a
 * server or a step with another. The unit files, in the same vitest project, run theirs in turn.
 */
import { describe as describeInTurn, it as itInTurn } from 'vitest'

export const describe = describeInTurn.concurrent
export const it = itInTurn.concurrent
