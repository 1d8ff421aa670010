import type { AgentRunsClient } from '../api/client.ts'
import type { RequestOptions } from '../api/transport.ts'
import { ApiStatusError } from '../api/errors.ts'
import type { ListRunsQuery, RunItem } from '../api/types.ts'

/** The runs the action tagged with some metadata, and how they were found. */
export interface TaggedRuns {
  runs: RunItem[]
  /**
   * The service cannot filter by metadata on this plan (`feature_not_available`):
   * the runs were listed by time alone and filtered here, by the metadata each shows.
   */
  filteredHere: boolean
}

/** A page holds this many runs: the service's most is 500, and a run can be long. */
const PAGE_SIZE = 100

/**
 * Every run carrying all of `tags` among those `query` selects (a time window),
 * one request a page, never one a run. Where the plan cannot filter by metadata,
 * the same window is listed whole and filtered here: a run listed without its
 * metadata cannot be told apart, and is left out.
 */
export async function listTaggedRuns(
  client: Pick<AgentRunsClient, 'iterateRuns'>,
  tags: Readonly<Record<string, string>>,
  query: ListRunsQuery,
  options: RequestOptions & { maxPages: number },
): Promise<TaggedRuns> {
  // Paged by creation, which never changes: paging by update time can skip a run that moves.
  const paged = { sort_by: 'created_at', sort_order: 'desc', limit: PAGE_SIZE, ...query } as const
  const runs: RunItem[] = []
  try {
    for await (const run of client.iterateRuns({ ...paged, metadata: { ...tags } }, options)) {
      runs.push(run)
    }
    return { runs, filteredHere: false }
  } catch (error) {
    if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available') throw error
  }
  const matching: RunItem[] = []
  for await (const run of client.iterateRuns(paged, options)) {
    if (carriesTags(run, tags)) matching.push(run)
  }
  return { runs: matching, filteredHere: true }
}

/** Whether the run shows every one of `tags` in its metadata. */
export function carriesTags(run: RunItem, tags: Readonly<Record<string, string>>): boolean {
  const metadata: unknown = run.metadata
  if (typeof metadata !== 'object' || metadata === null) return false
  const shown = metadata as Record<string, unknown>
  return Object.entries(tags).every(([key, value]) => shown[key] === value)
}
