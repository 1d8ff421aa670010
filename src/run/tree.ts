import type { AgentRunsClient } from '../api/client.ts'
import type { RequestOptions } from '../api/transport.ts'
import type { RunItem } from '../api/types.ts'
import { childrenOf } from '../model/tree.ts'

/** Pages of a run's children one read takes: far more than an agent starts. */
const CHILD_PAGES = 5

/**
 * The child runs the agent of `rootId` started (every level under it), oldest first, as the
 * service lists them now: one list request a page (`ancestor_run_id`), never one a run.
 */
export async function readChildren(
  client: Pick<AgentRunsClient, 'iterateRuns'>,
  rootId: string,
  query: { state?: string[] },
  options: RequestOptions,
): Promise<RunItem[]> {
  const listed: RunItem[] = []
  const pages = client.iterateRuns(
    { ancestor_run_id: rootId, ...query, limit: 100, sort_by: 'created_at', sort_order: 'asc' },
    { ...options, maxPages: CHILD_PAGES },
  )
  for await (const run of pages) listed.push(run)
  // Checked here too: a service that ignored the filter must not make another run a child.
  return childrenOf(listed, rootId)
}
