import type { AgentRunsClient } from '../api/client.ts'
import { ApiStatusError } from '../api/errors.ts'
import { mayHaveActed } from '../api/retry.ts'
import type { RequestOptions } from '../api/transport.ts'
import type { CreateRunRequest, RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import { logCancel } from '../model/cancel.ts'
import { HANDOFF_KEYS, STEP_KEYS } from '../model/handoff.ts'
import type { RunRecord } from '../model/record.ts'
import { meaningOf } from '../model/states.ts'
import { ownRuns } from '../model/tree.ts'
import { safeForLog } from '../text/log.ts'
import { clip, errorMessage } from '../text/plain.ts'
import { KEY_LOOK_MS } from '../timing.ts'
import type { HeadChange, SteerSource } from '../model/head.ts'
import { requestCancel } from './cancel.ts'
import type { RunTracker } from './tracker.ts'

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
  options: RequestOptions,
): Promise<RunItem[]> {
  const { runs } = await client.listRuns(
    { metadata: { ...keyMetadata }, state: ACTIVE_STATES, limit: 20, sort_by: 'created_at' },
    options,
  )
  // Checked here too: a service that ignored a filter must not make the step steer another run.
  // A child an agent started carries its parent's tags: it is part of that run, not the key's.
  return ownRuns(runs)
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

/** The line every steering follow-up carries: the ledger counts a run's follow-ups by it. */
export const STEERED_LINE =
  'This is a newer request for the same work: new commits were pushed while you worked.'

/**
 * The follow-up that steers a run: this step's prompt, and what changed since the head the run
 * worked on, asking it to review or rework only that and to keep what still applies. Pure.
 */
export function steeringMessage(
  prompt: string,
  heads: { old: string | undefined; now: string | undefined },
  change: HeadChange,
): string {
  const lines = [prompt, '', '---', STEERED_LINE]
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

/** What steering asks of the run's lifecycle: its record and tracker, and its one follow-up. */
export interface SteeringHost {
  readonly record: RunRecord
  readonly tracker: RunTracker
  /** Sends a follow-up (see FollowUps): why the service refused it, or undefined once sent. */
  followUp(run: RunItem, message: string, deadline: number): Promise<string | undefined>
}

export interface SteeringDeps {
  client: Pick<AgentRunsClient, 'listRuns' | 'iterateRuns' | 'interruptRun' | 'cancelRun'>
  log: Log
  signal: AbortSignal
  /** Told when the step steered the key's run instead of creating one (the `steered` output). */
  onSteered?: () => void
}

/**
 * `previous_run: steer` for one run's lifecycle: before the create, the key's run on its way is
 * steered instead (or cancelled, and a run created); after it, and at each reading of the run,
 * exactly one run of the key is kept, the oldest, whatever the order of two steps' requests and
 * however late the service's list shows a run.
 */
export class KeySteering {
  readonly #source: SteerSource
  readonly #request: CreateRunRequest
  /** The key's metadata, undefined when the step has no key to steer by. */
  readonly #keyMetadata: Record<string, string> | undefined
  readonly #host: SteeringHost
  readonly #deps: SteeringDeps

  constructor(
    step: {
      source: SteerSource
      request: CreateRunRequest
      tags: Readonly<Record<string, string>>
    },
    host: SteeringHost,
    deps: SteeringDeps,
  ) {
    this.#source = step.source
    this.#request = step.request
    this.#keyMetadata = keyMetadataOf(step.tags)
    this.#host = host
    this.#deps = deps
  }

  /**
   * Before the create: sends this step's work to the run of its key still on its way on this
   * thread, interrupting it first when it is at work, and makes it this step's run. Returns
   * undefined when there is none, or when it cannot be steered (a force push, the service
   * refusing the interrupt or the follow-up): then it was cancelled, and the step creates a run.
   */
  async steer(deadline: number): Promise<RunItem | undefined> {
    const { client, log } = this.#deps
    const keyMetadata = this.#keyMetadata
    const key = keyMetadata?.[HANDOFF_KEYS.key] ?? ''
    // The oldest wins, as after a create (see oneRunPerKey): every step picks the same run.
    const [candidate, ...newer] = keyMetadata
      ? (await activeRunsOfKey(client, keyMetadata, { deadline })).sort(byAge)
      : []
    if (!candidate) {
      log.info(
        `previous_run: steer: no run of the key "${safeForLog(key, 200)}" is on its way on this thread; creating one.`,
      )
      return undefined
    }
    // One run per key: any other still going is cancelled, as cancel would.
    for (const run of newer) {
      log.info(
        `previous_run: steer: run ${safeForLog(run.run_id)} is a newer run of the same key than run ${safeForLog(candidate.run_id)}; cancelling it, so that the key has one run.`,
      )
      await this.#cancelOther(run.run_id, deadline)
    }
    return await this.#steerRun(candidate, deadline)
  }

  /**
   * After a create: another step of the same key may have created a run at the same moment
   * (each found none to steer). The oldest run of the key wins, the same for every step that
   * looks: a step whose run is not the oldest steers the oldest instead and cancels its own.
   * When the oldest cannot be steered, it is cancelled and this step's run kept.
   */
  async oneRunPerKey(own: RunItem, deadline: number): Promise<RunItem> {
    // The create's answer may not say when the run was created; the list does, as for the others.
    const found = await this.#olderRunOfKey(own, deadline, { listedOnly: true })
    if (!found) return own
    return (await this.#giveWay(found, deadline, false)) ?? own
  }

  /**
   * At each reading of this step's run on its way: the list lags behind the service's writes,
   * so another step's older run of the key may show only now, however late. The oldest wins, as
   * after a create: this step steers it and cancels its own. The run steered, if it did.
   */
  async giveWayLate(run: RunItem, deadline: number): Promise<RunItem | undefined> {
    const found = await this.#olderRunOfKey(run, deadline, { listedOnly: false })
    return found && (await this.#giveWay(found, deadline, true))
  }

  /**
   * The oldest live run of the key when it is older than `own` (by the list's created_at, then
   * run ID: every step orders them alike), with `own` as the list shows it; undefined when `own`
   * is the oldest, or the list could not be read. `listedOnly`: `own` must be in the list.
   */
  async #olderRunOfKey(
    own: RunItem,
    deadline: number,
    options: { listedOnly: boolean },
  ): Promise<{ oldest: RunItem; own: RunItem } | undefined> {
    const { client, log } = this.#deps
    const keyMetadata = this.#keyMetadata
    if (!keyMetadata || this.#deps.signal.aborted) return undefined
    let runs: RunItem[]
    try {
      // One quick try: a look that fails is taken again at the next poll (see giveWayLate).
      const quick = { deadline, timeoutMs: KEY_LOOK_MS, maxRetries: 0, signal: this.#deps.signal }
      runs = await activeRunsOfKey(client, keyMetadata, quick)
    } catch (error) {
      log.debug(`Could not look for another run of the key: ${safeForLog(errorMessage(error))}`)
      return undefined
    }
    const listedOwn = runs.find((run) => run.run_id === own.run_id)
    if (!listedOwn && options.listedOnly) return undefined
    const mine = listedOwn ?? own
    const oldest = runs.filter((run) => run.run_id !== own.run_id).sort(byAge)[0]
    if (!oldest || byAge(oldest, mine) > 0) return undefined
    return { oldest, own: mine }
  }

  /**
   * Steers the older run of the key in place of this step's own, and cancels its own; the run
   * steered, or undefined when the older one could not be steered (it was cancelled): then this
   * step keeps its own, owed again.
   */
  async #giveWay(
    { oldest, own }: { oldest: RunItem; own: RunItem },
    deadline: number,
    late: boolean,
  ): Promise<RunItem | undefined> {
    const [older, mine] = [safeForLog(oldest.run_id), safeForLog(own.run_id)]
    const shown = late ? ' (the list shows it only now)' : ''
    // The older run may be a newer push's: then this step is the stale one, and gives way
    // without steering that run back to its own older head.
    const newer = await this.#newerHeadOf(oldest)
    if (newer) {
      this.#deps.log.info(
        `previous_run: steer: run ${older} of the same key was created before this step's run ${mine}, by another step${shown}, and works on a newer head (${newer.slice(0, 12)}); cancelling run ${mine} and awaiting run ${older} as this step's run, so that the key has one run.`,
      )
      await this.#cancelOther(own.run_id, deadline)
      // The other run is this step's now: its output, and what a signal's cancel reaches.
      this.#host.tracker.track(oldest.run_id)
      this.#host.record.runId = oldest.run_id
      return oldest
    }
    this.#deps.log.info(
      `previous_run: steer: run ${older} of the same key was created before this step's run ${mine}, by another step${shown}; steering it and cancelling run ${mine}, so that the key has one run.`,
    )
    const steered = await this.#steerRun(oldest, deadline)
    if (!steered) {
      this.#host.tracker.keepOwn(own.run_id)
      this.#host.record.runId = own.run_id
      return undefined
    }
    await this.#cancelOther(own.run_id, deadline)
    return steered
  }

  /** The head `run` works on when it is ahead of this step's (a newer push's run); else undefined. */
  async #newerHeadOf(run: RunItem): Promise<string | undefined> {
    const source = this.#source
    const theirs =
      (await source.recordedHead(run.run_id).catch(() => undefined)) ??
      run.metadata?.[STEP_KEYS.headSha]
    if (!theirs || !source.head || theirs === source.head) return undefined
    const change = await source.compare(source.head, theirs).catch(() => undefined)
    return change?.kind === 'ahead' ? theirs : undefined
  }

  /**
   * Steers `candidate`: interrupts it when it is at work, sends this step's work as one
   * follow-up that says what changed, and makes it this step's run. Undefined when it cannot be
   * steered (a force push, the service refusing the interrupt or the follow-up): then it was
   * cancelled.
   */
  async #steerRun(candidate: RunItem, deadline: number): Promise<RunItem | undefined> {
    const { client, log } = this.#deps
    const source = this.#source
    const oldHead =
      (await source.recordedHead(candidate.run_id).catch(() => undefined)) ??
      candidate.metadata?.[STEP_KEYS.headSha]
    const change: HeadChange =
      oldHead && source.head
        ? await source.compare(oldHead, source.head)
        : { kind: 'unknown', why: 'a head is not known' }
    if (change.kind === 'not-ancestor') {
      const pushed = `the head it worked on (${oldHead?.slice(0, 12)}) is not an ancestor of ${source.head?.slice(0, 12)}: a force push`
      return await this.#cancelInstead(candidate, pushed, deadline)
    }
    if (this.#deps.signal.aborted) return undefined
    const interrupting = needsInterrupt(candidate)
    if (interrupting) {
      try {
        await client.interruptRun(candidate.run_id, { deadline })
      } catch (error) {
        if (isRefusedSteer(error)) {
          const refused = `the service refused the interrupt: ${errorMessage(error)}`
          return await this.#cancelInstead(candidate, refused, deadline)
        }
        // Nothing reached the service: the run works on, as it was.
        if (!mayHaveActed(error)) throw error
        // The turn may have stopped: the run must get the work (or be cancelled), never idle.
        log.info(
          `previous_run: steer: the answer to the interrupt of run ${safeForLog(candidate.run_id)} was lost (${safeForLog(errorMessage(error))}); it may have stopped the run's turn, so the step sends it this step's work all the same.`,
        )
      }
    }
    const message = steeringMessage(
      this.#request.prompt ?? '',
      { old: oldHead, now: source.head },
      change,
    )
    const refusal = await this.#host.followUp(candidate, message, deadline)
    if (refusal !== undefined) {
      // Never left interrupted and idle: a run that took the interrupt but not the work is cancelled.
      const refused = `the service refused the follow-up: ${refusal}`
      return await this.#cancelInstead(candidate, refused, deadline)
    }
    this.#host.record.runId = candidate.run_id
    this.#deps.onSteered?.()
    const head = source.head ? `, on ${source.head.slice(0, 12)} now` : ''
    log.info(
      `previous_run: steer: ${interrupting ? 'interrupted run' : 'run'} ${safeForLog(candidate.run_id)} and sent it this step's work${head}; awaiting it as this step's run.`,
    )
    return candidate
  }

  /** A run that cannot be steered is cancelled, and the step creates one; said in one line. */
  async #cancelInstead(run: RunItem, why: string, deadline: number): Promise<undefined> {
    this.#deps.log.info(fallbackLine(run.run_id, safeForLog(why, 500)))
    await this.#cancelOther(run.run_id, deadline)
    return undefined
  }

  /** previous_run: one cancel of a run that is not (or no longer) this step's, logged as such. */
  async #cancelOther(runId: string, deadline: number): Promise<void> {
    const { client, log } = this.#deps
    logCancel(log, runId, await requestCancel(client, runId, { deadline }), 'previous_run')
  }
}

/** Older first: by creation, then by ID, so that every step orders a key's runs alike. */
function byAge(a: RunItem, b: RunItem): number {
  const created = Date.parse(a.created_at ?? '') - Date.parse(b.created_at ?? '')
  if (Number.isFinite(created) && created !== 0) return created
  return a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0
}
