import type { AgentRunsClient } from '../api/client.ts'
import type { RunItem } from '../api/types.ts'

/** One quick look: it only decides between two words for a run that is already over. */
const LOOKUP = { timeoutMs: 5_000, maxRetries: 0 } as const

/**
 * The newer run that replaced `run`, when `run` was cancelled and a run with
 * the same name was created after it (`cancel_previous` in a later workflow
 * run). Undefined when there is none, or when the service cannot say.
 */
export async function findSupersedingRun(
  client: Pick<AgentRunsClient, 'listRuns'>,
  run: RunItem,
  signal?: AbortSignal,
): Promise<RunItem | undefined> {
  const name = run.agent_config?.name
  if (run.state !== 'CANCELLED' || !name || !run.created_at) return undefined
  try {
    const { runs } = await client.listRuns(
      { name, created_after: run.created_at, sort_by: 'created_at', sort_order: 'asc', limit: 20 },
      { ...LOOKUP, signal },
    )
    const createdAt = Date.parse(run.created_at)
    return runs.find(
      (other) =>
        other.run_id !== run.run_id &&
        other.agent_config?.name === name &&
        Date.parse(other.created_at ?? '') > createdAt,
    )
  } catch {
    return undefined
  }
}
