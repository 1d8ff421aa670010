import type { AgentRunsClient } from '../api/client.ts'
import { ApiStatusError } from '../api/errors.ts'
import type { RunItem } from '../api/types.ts'
import { HANDOFF_KEYS, STEP_KEYS } from '../model/handoff.ts'
import { meaningOf } from '../model/states.ts'
import { safeForLog } from '../text/log.ts'
import { clip } from '../text/plain.ts'
import type { HeadChange, SteerSource } from '../model/head.ts'

export type { SteerSource }

/** The states of a run still on its way: steerable (or, failing that, cancelled). */
const ACTIVE_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS']
/** A run that has not started needs no interrupt: the follow-up joins its prompt. */
const NOT_STARTED = new Set(['QUEUED', 'PENDING', 'CLAIMED'])

/**
 * The metadata that finds the runs of one key on one thread of one repository: the tags every
 * run of the action carries (run/create.ts, model/handoff.ts). Undefined when the step has no
 * key to steer by.
 */
export function keyMetadataOf(
  metadata: Readonly<Record<string, string>>,
): Record<string, string> | undefined {
  const picked: Record<string, string> = {}
  for (const key of [STEP_KEYS.repository, HANDOFF_KEYS.key, HANDOFF_KEYS.thread]) {
    const value = metadata[key]
    if (value) picked[key] = value
  }
  return picked[STEP_KEYS.repository] && picked[HANDOFF_KEYS.key] ? picked : undefined
}

/** The key's runs still on their way on this thread, newest first. */
export async function activeRunsOfKey(
  client: Pick<AgentRunsClient, 'listRuns'>,
  keyMetadata: Readonly<Record<string, string>>,
  deadline: number,
): Promise<RunItem[]> {
  const { runs } = await client.listRuns(
    { metadata: { ...keyMetadata }, state: ACTIVE_STATES, limit: 20, sort_by: 'created_at' },
    { deadline },
  )
  // Checked here too: a service that ignored a filter must not make the step steer another run.
  return runs
    .filter(
      (run) =>
        meaningOf(run.state) === 'active' &&
        Object.entries(keyMetadata).every(([key, value]) => run.metadata?.[key] === value),
    )
    .sort((a, b) => Date.parse(b.created_at ?? '') - Date.parse(a.created_at ?? ''))
}

/** Whether the run must be interrupted before a follow-up can redirect it. */
export function needsInterrupt(run: RunItem): boolean {
  return !NOT_STARTED.has(run.state)
}

/** Whether an error is the service refusing to steer (not a failure to reach it). */
export function isRefusedSteer(error: unknown): error is ApiStatusError {
  return error instanceof ApiStatusError && error.status >= 400 && error.status < 500
}

/**
 * The follow-up that steers a run: this step's prompt, and what changed since the head the run
 * worked on, asking it to review or rework only that and to keep what still applies. Pure.
 */
export function steeringMessage(
  prompt: string,
  heads: { old: string | undefined; now: string | undefined },
  change: HeadChange,
): string {
  const lines = [
    prompt,
    '',
    '---',
    'This is a newer request for the same work: new commits were pushed while you worked.',
  ]
  if (heads.now) lines.push(`- The new head: ${heads.now}`)
  if (heads.old) lines.push(`- The head you were working on: ${heads.old}`)
  if (change.kind === 'ahead' && change.commits.length > 0) {
    lines.push('- The commits since, oldest first:')
    for (const commit of change.commits.slice(-50)) {
      lines.push(`  - ${commit.sha.slice(0, 12)} ${clip(commit.title, 120)}`)
    }
    if (change.commits.length > 50) lines.push(`  - and ${change.commits.length - 50} earlier ones`)
  }
  lines.push(
    'Stop what you were doing. Review or rework only what changed since the head you were working on, keep what still applies from your earlier work, and answer for the new head.',
  )
  return lines.join('\n')
}

/** Why a steer falls back to cancel + create, as its one line says it. */
export function fallbackLine(runId: string, why: string): string {
  return `previous_run: steer: run ${safeForLog(runId)} cannot be steered (${why}); cancelling it and creating a new run.`
}
