import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import type { RunItem } from '../api/types.ts'
import { isChildRun } from '../model/tree.ts'

import { SUPERSEDING_LOOKUP } from '../timing.ts'

/** One quick look: it only decides between two words for a run that is already over. */
const LOOKUP = { timeoutMs: SUPERSEDING_LOOKUP.requestMs, maxRetries: 0 } as const

/**
 * The newer run that replaced `run`, when `run` was cancelled and a run with
 * the same name was created after the cancel, soon enough to have caused it
 * (`cancel_previous` cancels, then creates). A same-name run created before
 * the cancel (another matrix leg) did not cause it: a person or another tool
 * did, and the run was "cancelled elsewhere". Undefined when there is none, or
 * when the service cannot say (no time of the cancel, an error).
 */
export async function findSupersedingRun(
  client: Pick<AgentRunsClient, 'listRuns'>,
  run: RunItem,
  deps: { signal?: AbortSignal; sleep: Sleep; now: () => number },
): Promise<RunItem | undefined> {
  const name = run.agent_config?.name
  // A cancelled run's last update is its cancel, on the service's clock, as the newer run's create is.
  const cancelledAt = Date.parse(run.updated_at ?? '')
  if (run.state !== 'CANCELLED' || !name || Number.isNaN(cancelledAt)) return undefined
  const until = deps.now() + SUPERSEDING_LOOKUP.forMs
  for (;;) {
    const newer = await lookOnce(client, run, name, cancelledAt, deps.signal)
    if (newer !== null) return newer
    if (deps.now() + SUPERSEDING_LOOKUP.pauseMs > until || deps.signal?.aborted) return undefined
    await deps.sleep(SUPERSEDING_LOOKUP.pauseMs, deps.signal).catch(() => undefined)
  }
}

/** The newer run; null when none is listed (yet); undefined when the service cannot say. */
async function lookOnce(
  client: Pick<AgentRunsClient, 'listRuns'>,
  run: RunItem,
  name: string,
  cancelledAt: number,
  signal: AbortSignal | undefined,
): Promise<RunItem | undefined | null> {
  try {
    // A second early: `created_after` may compare at a coarser precision than the times shown.
    const since = new Date(cancelledAt - 1_000).toISOString()
    const { runs } = await client.listRuns(
      { name, created_after: since, sort_by: 'created_at', sort_order: 'asc', limit: 20 },
      { ...LOOKUP, signal },
    )
    const newer = runs.find((other) => {
      const createdAt = Date.parse(other.created_at ?? '')
      return (
        other.run_id !== run.run_id &&
        !isChildRun(other) &&
        other.agent_config?.name === name &&
        createdAt >= cancelledAt &&
        createdAt - cancelledAt <= SUPERSEDING_LOOKUP.causeWindowMs
      )
    })
    return newer ?? null
  } catch {
    return undefined
  }
}
