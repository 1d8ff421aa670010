import type { AgentRunsClient } from '../api/client.ts'
import type { RequestOptions } from '../api/transport.ts'
import { ApiStatusError } from '../api/errors.ts'
import type { ListRunsQuery, RunItem } from '../api/types.ts'
import { isChildRun } from '../model/tree.ts'

/** The runs the action tagged with some metadata, and how they were found. */
export interface TaggedRuns {
  /**
   * The runs of their own (roots), newest first: never a child an agent started, which carries
   * its parent's tags and so is listed with them (model/tree.ts).
   */
  runs: RunItem[]
  /** The children agents started, listed with the runs: part of their roots' runs (their spend). */
  children: RunItem[]
  /**
   * The service cannot filter by metadata on this plan (`feature_not_available`):
   * the runs were listed by time alone and filtered here, by the metadata each shows.
   */
  filteredHere: boolean
  /**
   * Every page was read. False when `maxPages` (or a service that repeats its
   * cursor) cut the list short: `runs` is then only the newest of them.
   */
  complete: boolean
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
  try {
    const { runs, complete } = await drain(
      client.iterateRuns({ ...paged, metadata: { ...tags } }, options),
    )
    return { ...byTree(runs), filteredHere: false, complete }
  } catch (error) {
    if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available') throw error
  }
  const { runs, complete } = await drain(client.iterateRuns(paged, options))
  const tagged = runs.filter((run) => carriesTags(run, tags))
  return { ...byTree(tagged), filteredHere: true, complete }
}

/** The runs of their own and the children, each list in the order listed. */
function byTree(listed: RunItem[]): Pick<TaggedRuns, 'runs' | 'children'> {
  const runs: RunItem[] = []
  const children: RunItem[] = []
  for (const run of listed) (isChildRun(run) ? children : runs).push(run)
  return { runs, children }
}

/** Every run the pages yield, and whether they reached the last page. */
async function drain(
  pages: AsyncGenerator<RunItem, { complete: boolean }>,
): Promise<{ runs: RunItem[]; complete: boolean }> {
  const runs: RunItem[] = []
  for (;;) {
    const next = await pages.next()
    if (next.done) return { runs, complete: next.value.complete }
    runs.push(next.value)
  }
}

/** Whether the run shows every one of `tags` in its metadata. */
export function carriesTags(run: RunItem, tags: Readonly<Record<string, string>>): boolean {
  const metadata: unknown = run.metadata
  if (typeof metadata !== 'object' || metadata === null) return false
  const shown = metadata as Record<string, unknown>
  return Object.entries(tags).every(([key, value]) => shown[key] === value)
}
