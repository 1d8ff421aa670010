/**
 * Applying a campaign again (v1.5): before any create, the campaign's runs (one list request a
 * page of 500, filtered by `gh_campaign`) say, per repository, whether its task starts a run or
 * is skipped because its latest run of its key is working or succeeded on the same instruction.
 */
import type { AgentRunsClient } from '../api/client.ts'
import type { RunItem } from '../api/types.ts'
import { messagesInOrder, parseConversation } from '../agent/conversation.ts'
import { ApiStatusError } from '../api/errors.ts'
import { applyAgain, CAMPAIGN_KEY, isCampaignFollowUp, type Applied } from '../model/campaign.ts'
import { pullRequestUrlOf } from '../model/run-item.ts'
import { HANDOFF_KEYS } from '../model/handoff.ts'
import { eachAtMost } from '../at-most.ts'
import type { Log } from '../log.ts'
import type { RunHome } from '../model/home.ts'
import type { Amount } from '../model/money.ts'
import type { SpendCap } from '../model/spend-cap.ts'
import { checkCreditBudgets } from './budget.ts'
import { listTaggedRuns } from './listing.ts'

/** At most this many pages (10,000 runs of one campaign) are read. */
const MAX_PAGES = 20

/** A task of the campaign: its key (undefined for a task of the step's own project) and prompt. */
export interface CampaignTask {
  readonly key: string | undefined
  readonly prompt: string
}

/** Conversations read at once, to see whether a changed instruction was sent already. */
const PARALLEL_READS = 8

/**
 * What each task does, in task order: one list request a page of the campaign's runs, and for a
 * repository whose instruction changed since the run that opened its pull request, that run's
 * conversation (was the change sent already?). A failed or cut-short list throws: the step
 * would rather start nothing than pay twice for a repository it could not see.
 */
export async function planCampaign(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'getConversation'>,
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
  // Newest first: the first run of a key is its latest, the first with a pull request its opener.
  const byKey = new Map<string, { latest?: RunItem; opener?: RunItem }>()
  for (const run of listed.runs) {
    const key = run.metadata?.[HANDOFF_KEYS.key]
    if (typeof key !== 'string' || run.metadata?.[CAMPAIGN_KEY] !== campaign) continue
    const seen = byKey.get(key) ?? {}
    seen.latest ??= run
    if (!seen.opener && pullRequestUrlOf(run)) seen.opener = run
    byKey.set(key, seen)
  }
  const runsOf = tasks.map((task) => (task.key === undefined ? {} : (byKey.get(task.key) ?? {})))
  // Where only the conversation can tell whether the change went already: read it.
  const sent = await readSent(
    client,
    tasks.flatMap((task, index) => {
      const { latest, opener } = runsOf[index] ?? {}
      const asked = applyAgain(task.prompt, { latest, opener, sent: false })
      return asked.kind === 'follow-up' ? [{ index, run: asked.run, prompt: task.prompt }] : []
    }),
    { campaign, deadline },
  )
  return tasks.map((task, index) => {
    if (task.key === undefined) return { kind: 'start' }
    const { latest, opener } = runsOf[index] ?? {}
    return applyAgain(task.prompt, { latest, opener, sent: sent.get(index) })
  })
}

/**
 * For each task whose changed instruction would go as a follow-up: whether the run's
 * conversation holds it already; a conversation that cannot be read is left out (unknown).
 */
async function readSent(
  client: Pick<AgentRunsClient, 'getConversation'>,
  asked: readonly { index: number; run: RunItem; prompt: string }[],
  options: { campaign: string; deadline: number },
): Promise<Map<number, boolean>> {
  const sent = new Map<number, boolean>()
  let next = 0
  const worker = async () => {
    for (let one = asked[next++]; one; one = asked[next++]) {
      try {
        const conversation = parseConversation(
          await client.getConversation(one.run.run_id, {
            deadline: options.deadline,
            maxRetries: 1,
          }),
        )
        sent.set(
          one.index,
          messagesInOrder(conversation).some(
            (message) =>
              message.role === 'user' &&
              message.texts.some((text) => isCampaignFollowUp(text, options.campaign, one.prompt)),
          ),
        )
      } catch (error) {
        // A run whose conversation is gone (410) was never sent this: its session has ended.
        if (error instanceof ApiStatusError && error.status === 404) sent.set(one.index, false)
      }
    }
  }
  await Promise.all(Array.from({ length: PARALLEL_READS }, worker))
  return sent
}

/** A repository's `daily_credit_budget` before its task starts: reached (why), or its rest. */
export type RepositoryBudget = { readonly reached: string } | { readonly caps: readonly SpendCap[] }

/** Repositories whose budget is read at once (each one list request, or a few pages). */
const BUDGET_READS = 8

/**
 * `daily_credit_budget` in a campaign (v1.5: a task's repository is its project for its
 * budgets): each repository counts the runs started for it in the last 24 hours, whatever door
 * made them, as one run's budget counts its project. A repository whose budget is reached starts
 * nothing; the rest is a cap on its run alone. A budget that cannot be checked throws: nothing
 * is created.
 */
export async function checkRepositoryBudgets(
  client: Pick<AgentRunsClient, 'iterateRuns' | 'listRuns'>,
  daily: Amount,
  homes: readonly RunHome[],
  deps: { now: () => number; log: Log },
): Promise<RepositoryBudget[]> {
  const checked: RepositoryBudget[] = []
  await eachAtMost(BUDGET_READS, homes, async (home, index) => {
    const check = await checkCreditBudgets(client, { daily, pullRequest: undefined }, home, deps)
    checked[index] = check.reached ? { reached: check.reached.why } : { caps: check.caps }
  })
  return checked
}
