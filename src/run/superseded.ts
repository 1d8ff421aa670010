import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import type { RunItem } from '../api/types.ts'

import { SUPERSEDING_LOOKUP } from '../timing.ts'

/** One quick look: it only decides between two words for a run that is already over. */
const LOOKUP = { timeoutMs: SUPERSEDING_LOOKUP.requestMs, maxRetries: 0 } as const

/**
 * The newer run that replaced `run`, when `run` was cancelled and a run with
 * the same name was created after it (`cancel_previous` in a later workflow
 * run). Undefined when there is none, or when the service cannot say.
 */
export async function findSupersedingRun(
  client: Pick<AgentRunsClient, 'listRuns'>,
  run: RunItem,
  deps: { signal?: AbortSignal; sleep: Sleep; now: () => number },
): Promise<RunItem | undefined> {
  const name = run.agent_config?.name
  if (run.state !== 'CANCELLED' || !name || !run.created_at) return undefined
  const until = deps.now() + SUPERSEDING_LOOKUP.forMs
  for (;;) {
    const newer = await lookOnce(client, run, name, deps.signal)
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
  signal: AbortSignal | undefined,
): Promise<RunItem | undefined | null> {
  try {
    const { runs } = await client.listRuns(
      { name, created_after: run.created_at, sort_by: 'created_at', sort_order: 'asc', limit: 20 },
      { ...LOOKUP, signal },
    )
    const createdAt = Date.parse(run.created_at ?? '')
    const newer = runs.find(
      (other) =>
        other.run_id !== run.run_id &&
        other.agent_config?.name === name &&
        Date.parse(other.created_at ?? '') > createdAt,
    )
    return newer ?? null
  } catch {
    return undefined
  }
}
