/**
 * Applying a campaign again (v1.5): before any create, the campaign's runs (one list request a
 * page of 500, filtered by `gh_campaign`) say, per repository, whether its task starts a run or
 * is skipped because its latest run of its key is working or succeeded on the same instruction.
 */
import type { AgentRunsClient } from '../api/client.ts'
import type { RunItem } from '../api/types.ts'
import { applyAgain, CAMPAIGN_KEY, type Applied } from '../model/campaign.ts'
import { HANDOFF_KEYS } from '../model/handoff.ts'
import { listTaggedRuns } from './listing.ts'

/** At most this many pages (10,000 runs of one campaign) are read. */
const MAX_PAGES = 20

/** A task of the campaign: its key (undefined for a task of the step's own project) and prompt. */
export interface CampaignTask {
  readonly key: string | undefined
  readonly prompt: string
}

/**
 * What each task does, in task order. A failed or cut-short list throws: the step would rather
 * start nothing than pay twice for a repository it could not see.
 */
export async function planCampaign(
  client: Pick<AgentRunsClient, 'iterateRuns'>,
  campaign: string,
  tasks: readonly CampaignTask[],
  deadline: number,
): Promise<Applied[]> {
  if (tasks.every((task) => task.key === undefined)) return tasks.map(() => ({ kind: 'start' }))
  const listed = await listTaggedRuns(
    client,
    { [CAMPAIGN_KEY]: campaign },
    {},
    {
      maxPages: MAX_PAGES,
      deadline,
    },
  )
  if (!listed.complete) {
    throw new Error(
      `campaign ${campaign} has more runs than the ${MAX_PAGES * 500} the step reads to apply it again; none was started rather than pay twice for a repository. Give the instruction a new campaign name.`,
    )
  }
  // Newest first: the first run of a key is its latest.
  const latest = new Map<string, RunItem>()
  for (const run of listed.runs) {
    const key = run.metadata?.[HANDOFF_KEYS.key]
    if (typeof key === 'string' && run.metadata?.[CAMPAIGN_KEY] === campaign && !latest.has(key)) {
      latest.set(key, run)
    }
  }
  return tasks.map((task) =>
    task.key === undefined ? { kind: 'start' } : applyAgain(task.prompt, latest.get(task.key)),
  )
}
