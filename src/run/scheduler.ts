import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import { ApiStatusError } from '../api/errors.ts'
import { isRefusal, isRetryable, retryAfterMs } from '../api/retry.ts'
import type { RunItem } from '../api/types.ts'
import { costIn, formatAmount, isUnpriced, otherUnit, unitName } from '../model/money.ts'
import { capWords, type SpendCap } from '../model/spend-cap.ts'
import type { Log } from '../log.ts'
import { costSince } from '../agent/cost.ts'
import { describePassWhen, passWhenStanding, standingOf, type PassWhen } from '../model/set.ts'
import { isTerminal } from '../model/states.ts'
import { isChildRun, mergeChildren, rootIdOf, treeCostOf } from '../model/tree.ts'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { errorMessage } from '../text/plain.ts'
import {
  POLL_FAILURE_BUDGET,
  REREAD_AFTER_CANCEL_MS,
  SET_LIST_PAGE,
  SET_UNLISTED_RECHECK_MS,
  SIGNAL_CANCEL,
} from '../timing.ts'
import { cancelDeadline, type CancelWhy } from './cancel.ts'
import type { RunLifecycle } from './lifecycle.ts'
import { nextPollDelayMs } from './schedule.ts'
import { readChildren } from './tree.ts'

export class LostContactError extends Error {
  override name = 'LostContactError'
}

export interface ScheduleSettings {
  maxParallel: number
  passWhen: PassWhen
  timeoutMs: number
  pollIntervalMs: number
  /** The caps on what every run spends together (max_credits, a budget's rest), one per unit. */
  caps: readonly SpendCap[]
}

export interface SchedulerDeps {
  client: Pick<AgentRunsClient, 'listRuns' | 'getRun' | 'iterateRuns'>
  now: () => number
  sleep: Sleep
  /** Aborts when the workflow cancels the step; the signal's cancel is `cancelInFlight`'s. */
  signal: AbortSignal
  log: Log
  /**
   * The metadata every run of a set carries (`gh_set`): one list request, filtered by it, reads
   * all of them at each poll. Without it (one run), each run is read on its own.
   */
  listMetadata?: Readonly<Record<string, string>>
  /** Told where the runs stand once per poll, after the starts (the comment and status show it). */
  onProgress?: () => void
  /**
   * Says why the runs still in flight are being stopped, in the shape's own words (one run, a
   * set), before they are cancelled.
   */
  announceStop?: (stop: ScheduleStop, inFlight: readonly RunLifecycle[], notStarted: number) => void
}

/** Why the scheduler stopped the runs still in flight: the timeout, the cap, or `pass_when`. */
export interface ScheduleStop {
  why: CancelWhy
  reason: string
}

/** How the schedule ended. */
export type ScheduleEnd =
  /** Every run ended on its own (or was handed off, or never started). */
  | { kind: 'done'; elapsedMs: number }
  /** The step stopped the runs still in flight (they were cancelled). */
  | { kind: 'stopped'; stop: ScheduleStop; elapsedMs: number }
  /** The workflow cancelled the step; the signal's cancel is `cancelInFlight`'s. */
  | { kind: 'interrupted'; elapsedMs: number }

/**
 * The one scheduler of run lifecycles, for a step's one run as for a set of many: it starts
 * them (at most `maxParallel` at once), reads them (one read for one run, one list request
 * per poll for many), waits as the service asks (Retry-After) and within the poll-failure
 * budget, and stops what is still in flight when the timeout, the credit cap or `pass_when`
 * says so, or when the workflow cancels the step or an error ends it.
 */
export class RunScheduler {
  readonly #settings: ScheduleSettings
  readonly #deps: SchedulerDeps
  readonly #lifecycles: readonly RunLifecycle[]
  /** The step's deadline (its start plus `timeout`): every start and poll ends by it. */
  #deadline = Infinity
  /** When each run was last read, by the list or on its own. */
  readonly #readAt = new Map<RunLifecycle, number>()
  #listFallback = false
  #stopped: ScheduleStop | undefined
  #closed = false

  constructor(
    lifecycles: readonly RunLifecycle[],
    settings: ScheduleSettings,
    deps: SchedulerDeps,
  ) {
    this.#lifecycles = lifecycles
    this.#settings = settings
    this.#deps = deps
  }

  /** The service's plan cannot filter runs by metadata: each run was read on its own. */
  get listFallback(): boolean {
    return this.#listFallback
  }

  async run(): Promise<ScheduleEnd> {
    const { now, log, signal } = this.#deps
    const startedAt = now()
    const deadline = startedAt + this.#settings.timeoutMs
    this.#deadline = deadline
    let failuresInARow = 0
    let askedDelayMs = 0
    const elapsed = () => now() - startedAt
    while (true) {
      if (signal.aborted) break
      this.#judge()
      if (this.#stopped) break
      await this.#stopPastOwnCaps()
      await this.#startDue()
      if (signal.aborted) break
      this.#deps.onProgress?.()
      const inFlight = this.#inFlight()
      if (inFlight.length === 0 && !this.#lifecycles.some((one) => one.due)) break
      if (now() >= deadline) {
        this.#stopped = {
          why: { kind: 'timeout' },
          reason: `the timeout input (${formatDuration(this.#settings.timeoutMs)}) ran out`,
        }
        break
      }
      const youngest = Math.min(...inFlight.map((one) => now() - (one.record.startedAt ?? now())))
      const delay = Math.max(nextPollDelayMs(youngest, this.#settings.pollIntervalMs), askedDelayMs)
      askedDelayMs = 0
      const untilHeartbeat = Math.min(
        ...inFlight.map((one) => one.watch?.msUntilHeartbeat() ?? Infinity),
      )
      const untilDeadline = deadline - now()
      const wait = Math.min(delay, untilDeadline, untilHeartbeat)
      try {
        await this.#deps.sleep(wait, signal)
      } catch {
        break
      }
      if (signal.aborted) break
      // A wait that ran to the deadline ends in the timeout, not in one more poll: a timer may
      // fire a millisecond before the clock says the deadline has come, and that poll went out
      // with a millisecond to answer.
      if (wait === untilDeadline) continue
      try {
        await this.#poll(inFlight)
        failuresInARow = 0
      } catch (error) {
        if (signal.aborted) break
        // A poll cut short by the deadline is the timeout, not a failure of the service.
        if (now() >= deadline) continue
        // A refusal (429, 503 with Retry-After) is a live service asking for patience, not lost
        // contact: the next poll comes when it asked, or at the timeout, whichever is first.
        if (isRefusal(error) && error instanceof ApiStatusError) {
          askedDelayMs = retryAfterMs(error.headers, now()) ?? this.#settings.pollIntervalMs
          log.info(
            `The service refused the poll (${error.status}) and asked to wait ${formatDuration(askedDelayMs)}; polling again then, within the timeout.`,
          )
          continue
        }
        if (!isRetryable(error, 'idempotent')) throw error
        failuresInARow += 1
        const reason = safeForLog(errorMessage(error))
        if (failuresInARow >= POLL_FAILURE_BUDGET) {
          throw new LostContactError(
            `Lost contact with the service: ${failuresInARow} polls in a row failed. Last error: ${reason}`,
            { cause: error },
          )
        }
        log.warning(
          `Poll ${failuresInARow} of ${POLL_FAILURE_BUDGET} allowed in a row failed: ${reason}. Waiting on.`,
        )
      }
    }
    this.#closed = true
    if (signal.aborted) return { kind: 'interrupted', elapsedMs: elapsed() }
    if (!this.#stopped) return { kind: 'done', elapsedMs: elapsed() }
    const stop = this.#stopped
    const notStarted = this.#lifecycles.filter((one) => one.due).length
    this.#deps.announceStop?.(stop, this.#inFlight(), notStarted)
    await this.cancelInFlight(stop.why, cancelDeadline(stop.why, now()))
    return { kind: 'stopped', stop, elapsedMs: elapsed() }
  }

  /**
   * Cancels every run still in flight, in parallel, within `deadline`; a create or follow-up
   * still out is given a share of the time to answer first, so that its run is cancelled too.
   * Runs not yet started never will be. Then reads the cancelled runs once more (one read for
   * one run, one list request for many), so that each shows the state it ended in.
   */
  async cancelInFlight(why: CancelWhy, deadline: number): Promise<void> {
    const { now } = this.#deps
    this.#closed = true
    for (const one of this.#lifecycles) one.skip(why)
    // A create (or its lookup) or a follow-up in flight may yet start or restart a run: let it
    // answer, keeping time for the cancel.
    const deciding = this.#lifecycles.filter((one) => one.tracker.deciding)
    if (deciding.length > 0) {
      const decideMs = (deadline - now()) * SIGNAL_CANCEL.decideShare
      await Promise.all(deciding.map((one) => one.tracker.whenDecided(decideMs)))
    }
    if (this.#lifecycles.some((one) => one.tracker.mayHaveUnseenRun)) {
      this.#deps.log.info(
        'The create request has not been answered; the run it may have made is looked for by its tag and cancelled.',
      )
    }
    const inFlight = this.#inFlight()
    await Promise.all(inFlight.map((one) => one.stop(why, deadline)))
    await this.#readEndStates(inFlight, why, deadline)
  }

  /** Leaves every run in flight to a newer step: nothing is owed on them, nothing is cancelled. */
  handOver(): void {
    this.#closed = true
    for (const one of this.#lifecycles) one.handOver()
  }

  /** Best effort: a failed read leaves the state the run was cancelled from. */
  async #readEndStates(stopped: RunLifecycle[], why: CancelWhy, deadline: number): Promise<void> {
    const cancelled = stopped.filter(
      (one) => one.record.cancel?.kind === 'cancelled' || one.record.cancel?.kind === 'blocked',
    )
    if (cancelled.length === 0) return
    try {
      if (!this.#listsRuns()) {
        await Promise.all(
          cancelled.map(async (one) => {
            const run = await this.#deps.client.getRun(one.record.runId ?? '', {
              timeoutMs: REREAD_AFTER_CANCEL_MS,
              maxRetries: 0,
            })
            one.record.run = run
          }),
        )
        return
      }
      // After a signal, the runner's grace is for the cancels alone.
      if (why.kind === 'signal' || this.#deps.now() >= deadline) return
      const { runs } = await this.#listRuns(deadline, undefined)
      const byId = new Map(runs.map((run) => [run.run_id, run]))
      for (const one of cancelled) {
        const run = byId.get(one.record.runId ?? '')
        if (run && isTerminal(run.state)) one.record.run = run
      }
    } catch {
      // The outcome stands; only the state shown is the one the run was cancelled from.
    }
  }

  /** Starts lifecycles while there is room, unless the schedule is stopping; they go out together. */
  async #startDue(): Promise<void> {
    const starts: Promise<void>[] = []
    // Counted once, then one more for each start: counting again at each of a thousand tasks
    // made a thousand arrays of a thousand (the step's memory, at a campaign's size).
    let going = this.#lifecycles.filter((other) => other.starting || other.inFlight).length
    for (const one of this.#lifecycles) {
      if (this.#closed || this.#stopped) break
      if (going >= this.#settings.maxParallel) break
      if (!one.due) continue
      starts.push(one.start(this.#deadline))
      going += 1
    }
    await Promise.all(starts)
  }

  /** Many runs of a set are read with one list request per poll; one run is read on its own. */
  #listsRuns(): boolean {
    return (
      this.#lifecycles.length > 1 && this.#deps.listMetadata !== undefined && !this.#listFallback
    )
  }

  /**
   * One read per poll: for a set, one list request a page of 500 runs in flight (1,000 in
   * flight, two pages), filtered by the set's metadata and newest change first, so that the
   * pages hold every run that changed
   * since the last poll. A run missing from a full page has not changed (it is read on its
   * own only when it has gone unread for a while); missing from a page that is not full, it
   * is too new for the list (which lags behind the service's writes), and is read on its own.
   */
  async #poll(inFlight: RunLifecycle[]): Promise<void> {
    const deadline = this.#deadline
    const listed = new Map<string, RunItem>()
    let pageFull = false
    if (this.#listsRuns()) {
      try {
        // One page per SET_LIST_PAGE runs in flight: a page of 500 holds what changed among them.
        const pages = Math.max(1, Math.ceil(inFlight.length / SET_LIST_PAGE))
        let cursor: string | undefined
        for (let page = 0; page < pages; page += 1) {
          const { runs, page_info } = await this.#listRuns(deadline, cursor)
          // The children agents started carry the set's tags: each joins its root's run.
          for (const run of runs) {
            if (isChildRun(run)) this.#childSeen(run)
            else listed.set(run.run_id, run)
          }
          pageFull = page_info?.has_next_page === true
          cursor = page_info?.next_cursor ?? undefined
          if (!pageFull || !cursor) break
        }
      } catch (error) {
        if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available') {
          throw error
        }
        this.#listFallback = true
        this.#deps.log.info(
          "The service's plan cannot filter runs by metadata (feature_not_available); reading each run on its own instead, one request per run per poll.",
        )
      }
    }
    const now = this.#deps.now()
    for (const one of inFlight) {
      const run = listed.get(one.record.runId ?? '')
      if (run) {
        this.#readAt.set(one, now)
        await one.seen(run, deadline)
        continue
      }
      const readAt = this.#readAt.get(one)
      if (pageFull && readAt !== undefined && now - readAt < SET_UNLISTED_RECHECK_MS) continue
      await this.#readOnItsOwn(one, deadline)
      if (this.#settings.caps.length > 0) await this.#readChildren(one, deadline)
    }
  }

  /** A child run listed with a set's runs: its root's lifecycle keeps it. */
  #childSeen(child: RunItem): void {
    const rootId = rootIdOf(child)
    const root = this.#lifecycles.find((one) => one.record.runId === rootId)
    if (root) root.record.children = mergeChildren(root.record.children, [child])
  }

  /**
   * max_credits on a run read on its own: the children its agent started, one list request, so
   * that the cap counts the tree. A failed read leaves the children as last read.
   */
  async #readChildren(one: RunLifecycle, deadline: number): Promise<void> {
    const runId = one.record.runId
    if (!runId || !one.inFlight) return
    try {
      const children = await readChildren(
        this.#deps.client,
        runId,
        {},
        {
          signal: this.#deps.signal,
          deadline,
          maxRetries: 0,
        },
      )
      one.record.children = mergeChildren(one.record.children, children)
    } catch {
      // The next poll reads them again.
    }
  }

  async #readOnItsOwn(one: RunLifecycle, deadline: number): Promise<void> {
    let run: RunItem
    try {
      run = await this.#deps.client.getRun(one.record.runId ?? '', {
        signal: this.#deps.signal,
        deadline,
      })
    } catch (error) {
      return one.readFailed(error)
    }
    this.#readAt.set(one, this.#deps.now())
    await one.seen(run, deadline)
  }

  /** A page of the set's runs, filtered by its metadata, newest change first. */
  #listRuns(deadline: number, cursor: string | undefined) {
    return this.#deps.client.listRuns(
      {
        metadata: { ...this.#deps.listMetadata },
        limit: SET_LIST_PAGE,
        sort_by: 'updated_at',
        sort_order: 'desc',
        ...(cursor ? { cursor } : {}),
      },
      { signal: this.#deps.signal, deadline },
    )
  }

  /** Before each start and poll: the credit cap on the sum, and whether `pass_when` can still be met. */
  #judge(): void {
    const { caps, passWhen } = this.#settings
    for (const cap of caps) {
      const past = pastCap(cap, this.#lifecycles)
      if (past) {
        this.#stopped = { why: { kind: 'over-budget' }, reason: past }
        return
      }
    }
    const counts = this.counts()
    if (passWhenStanding(passWhen, counts) === 'cannot-be-met') {
      this.#stopped = {
        why: { kind: 'pass-when' },
        reason: `${counts.notSucceeded} of ${counts.tasks} runs did not succeed, so ${describePassWhen(passWhen, counts.tasks)} can no longer succeed`,
      }
    }
  }

  /** How many runs succeeded, and how many ended otherwise (or failed to start). */
  counts(): { tasks: number; succeeded: number; notSucceeded: number } {
    let succeeded = 0
    let notSucceeded = 0
    for (const { record } of this.#lifecycles) {
      const standing = standingOf(record)
      if (standing === 'succeeded') succeeded += 1
      else if (standing === 'not-succeeded') notSucceeded += 1
    }
    return { tasks: this.#lifecycles.length, succeeded, notSucceeded }
  }

  /**
   * A run past a cap of its own (its repository's budget, in a campaign) is cancelled alone, for
   * that reason; the set's other runs work on.
   */
  async #stopPastOwnCaps(): Promise<void> {
    // Most sets have no run with a cap of its own: nothing to look at, at any poll.
    if (this.#lifecycles.every((one) => one.caps.length === 0)) return
    const past = this.#lifecycles.flatMap((one) => {
      if (!one.inFlight) return []
      const reason = one.caps.map((cap) => pastCap(cap, [one])).find((why) => why !== undefined)
      return reason === undefined ? [] : [{ one, reason }]
    })
    const why: CancelWhy = { kind: 'over-budget' }
    await Promise.all(
      past.map(({ one, reason }) => {
        const name = one.name ?? 'The run'
        this.#deps.log.warning(`${name}: ${reason}; its run is cancelled.`)
        return one.stop(why, cancelDeadline(why, this.#deps.now()))
      }),
    )
  }

  #inFlight(): RunLifecycle[] {
    return this.#lifecycles.filter((one) => one.inFlight)
  }
}

/**
 * Why the runs are past `cap`, in words; undefined while they are within it. What they used
 * in this step counts, in the cap's unit (a run that is not new, from where the step found
 * it); a run that spent and reports no figure in that unit is past it: never counted as free.
 */
function pastCap(cap: SpendCap, lifecycles: readonly RunLifecycle[]): string | undefined {
  const { unit } = cap.amount
  let sum: number | undefined
  for (const { record } of lifecycles) {
    // A run's agent may start runs of its own: the cap counts the tree, each run once.
    const cost = costSince(treeCostOf(record.run, record.children), record.usedBefore)
    if (isUnpriced(cost, unit)) {
      const reported = formatAmount({
        value: costIn(cost, otherUnit(unit)) ?? 0,
        unit: otherUnit(unit),
      })
      return `run ${record.run?.run_id ?? ''} reported ${reported} and no figure in ${unitName(unit)}, which ${capWords(cap)} cannot count (write it in ${unitName(otherUnit(unit))})`
    }
    const spent = costIn(cost, unit)
    if (spent !== undefined) sum = (sum ?? 0) + spent
  }
  if (sum === undefined || sum <= cap.amount.value) return undefined
  const used = formatAmount({ value: sum, unit })
  const runs = lifecycles.length === 1 ? `the run used ${used}` : `the runs used ${used} together`
  return `${runs}, past ${capWords(cap)}`
}
