/**
 * How many times a run was steered: the steering follow-ups its conversation holds (each carries
 * the steering line), read for the runs made with `previous_run: steer` only, at most `MAX_READS`
 * of them (the costliest), a few at a time. A conversation that cannot be read counts none.
 */
import { messagesInOrder, parseConversation } from '../agent/conversation.ts'
import type { AgentRunsClient } from '../api/client.ts'
import { eachAtMost } from '../at-most.ts'
import { STEERED_LINE } from '../run/steer.ts'
import type { LedgerRow } from './rows.ts'

/** At most this many conversations are read for a report. */
export const MAX_READS = 100
/** Reads at once. */
const PARALLEL = 8

/** Run ID → its steering follow-ups, for the steered rows read. */
export async function countFollowups(
  client: Pick<AgentRunsClient, 'getConversation'>,
  rows: readonly LedgerRow[],
  deadline: number,
): Promise<Map<string, number>> {
  const steered = rows
    .filter((row) => row.steered)
    .sort((a, b) => b.credits - a.credits)
    .slice(0, MAX_READS)
  const counts = new Map<string, number>()
  await eachAtMost(PARALLEL, steered, async (row) => {
    counts.set(row.runId, await followupsOf(client, row.runId, deadline))
  })
  return counts
}

async function followupsOf(
  client: Pick<AgentRunsClient, 'getConversation'>,
  runId: string,
  deadline: number,
): Promise<number> {
  try {
    const conversation = parseConversation(
      await client.getConversation(runId, { deadline, maxRetries: 1 }),
    )
    return messagesInOrder(conversation).filter(
      (message) =>
        message.role === 'user' && message.texts.some((text) => text.includes(STEERED_LINE)),
    ).length
  } catch {
    return 0
  }
}
