import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import { ApiStatusError, NotFoundError } from '../api/errors.ts'
import { isRefusal, isRetryable, retryAfterMs } from '../api/retry.ts'
import type { CreateRunRequest, RunItem } from '../api/types.ts'
import type { PassWhen } from '../inputs.ts'
import type { Log } from '../log.ts'
import { logCancel } from '../model/cancel.ts'
import { outcomeOfStop } from '../model/outcome.ts'
import {
  describePassWhen,
  passWhenStanding,
  sumCredits,
  taskLabel,
  type SetOutcome,
  type TaskRun,
} from '../model/set.ts'
import { isTerminal, meaningOf } from '../model/states.ts'
import type { SetRunRecord, SetStateStore } from '../state.ts'
import { formatCredits, formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import {
  NEW_RUN_NOT_FOUND_GRACE_MS,
  POLL_FAILURE_BUDGET,
  SET_LIST_PAGE,
  SET_UNLISTED_RECHECK_MS,
  SIGNAL_CANCEL,
} from '../timing.ts'
import { cancelDeadline, cancelRun, type CancelWhy } from './cancel.ts'
import { createRunOnce, RunMayExistError, type RunTag } from './create.ts'
import { nextPollDelayMs } from './schedule.ts'
import { LostContactError } from './wait.ts'
import { errorMessage } from '../text/plain.ts'

export interface SetSettings {
  tasks: readonly CreateRunRequest[]
  maxParallel: number
  passWhen: PassWhen
  timeoutMs: number
  pollIntervalMs: number
  maxCredits: number | undefined
}

export interface SetDeps {
  client: Pick<AgentRunsClient, 'createRun' | 'listRuns' | 'iterateRuns' | 'getRun' | 'cancelRun'>
  now: () => number
  sleep: Sleep
  /** Aborts when the workflow cancels the step; the signal's cancel is `cancelInFlight`'s. */
  signal: AbortSignal
  log: Log
  state: SetStateStore
  /** The metadata every run of this set carries (`gh_set`), and each task's own tag. */
  setMetadata: Readonly<Record<string, string>>
  tagFor: (index: number) => RunTag
  /** Told where the set stands once per poll (after its starts): the comment and status show it. */
  onProgress?: (tasks: readonly TaskRun[]) => void
}

/**
 * Many runs from one step: at most `maxParallel` in flight, one list request
 * per poll for all of them (filtered by the set's own metadata), `pass_when`
 * watched as runs end, and the runs still in flight cancelled, in parallel, as
 * soon as the rule can no longer be met, the cap or the timeout is reached, or
 * the workflow cancels the step.
 */
export class TaskSetRun {
  readonly #settings: SetSettings
  readonly #deps: SetDeps
  readonly #tasks: TaskRun[]
  readonly #creating = new Map<number, Promise<void>>()
  #next = 0
  /** The step's deadline (its start plus `timeout`): every create and poll ends by it. */
  #deadline = Infinity
  /** When each task's run was last read, by the list or on its own. */
  readonly #readAt = new Map<number, number>()
  /** The tasks whose new run's 404 was already noted as read-after-write lag. */
  readonly #lagNoted = new Set<number>()
  #listFallback = false
  #stopped: { why: CancelWhy; reason: string } | undefined

  constructor(settings: SetSettings, deps: SetDeps) {
    this.#settings = settings
    this.#deps = deps
    this.#tasks = settings.tasks.map((request, index) => ({ index, request }))
  }

  get tasks(): readonly TaskRun[] {
    return this.#tasks
  }

  async run(): Promise<SetOutcome> {
    const { now, log } = this.#deps
    const startedAt = now()
    const deadline = startedAt + this.#settings.timeoutMs
    this.#deadline = deadline
    log.info(
      `Starting ${this.#tasks.length} runs, at most ${this.#settings.maxParallel} at once; the step passes when ${describePassWhen(this.#settings.passWhen, this.#tasks.length)} succeed.`,
    )
    let failuresInARow = 0
    let askedDelayMs = 0
    while (true) {
      if (this.#deps.signal.aborted) break
      this.#judge()
      if (this.#stopped) break
      await this.#startDue()
      if (this.#deps.signal.aborted) break
      this.#deps.onProgress?.(this.#tasks)
      const inFlight = this.#inFlight()
      if (inFlight.length === 0 && this.#next >= this.#tasks.length) break
      if (now() >= deadline) {
        this.#stopped = {
          why: { kind: 'timeout' },
          reason: `the timeout input (${formatDuration(this.#settings.timeoutMs)}) ran out`,
        }
        break
      }
      const youngest = Math.min(...inFlight.map((task) => now() - (task.startedAt ?? now())))
      const delay = Math.max(nextPollDelayMs(youngest, this.#settings.pollIntervalMs), askedDelayMs)
      askedDelayMs = 0
      try {
        await this.#deps.sleep(Math.min(delay, Math.max(0, deadline - now())), this.#deps.signal)
      } catch {
        break
      }
      if (this.#deps.signal.aborted) break
      try {
        await this.#poll(inFlight, deadline)
        failuresInARow = 0
      } catch (error) {
        if (this.#deps.signal.aborted) break
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
    return this.#outcome(now() - startedAt)
  }

  /**
   * Cancels every run still in flight, in parallel, within `deadline`; a create
   * still out is given a share of the time to answer first, so that its run
   * is cancelled too. Tasks not yet started never will be.
   */
  async cancelInFlight(why: CancelWhy, deadline: number): Promise<void> {
    const { now } = this.#deps
    this.#next = this.#tasks.length
    const creating = [...this.#creating.values()]
    if (creating.length > 0) {
      const decideBy = now() + (deadline - now()) * SIGNAL_CANCEL.decideShare
      await Promise.race([
        Promise.allSettled(creating),
        this.#deps.sleep(Math.max(0, decideBy - now())).catch(() => undefined),
      ])
    }
    await Promise.all(
      this.#inFlight().map(async (task) => {
        const runId = task.runId ?? ''
        task.stoppedBy = why.kind
        task.cancel = await cancelRun({ runId, why, deadline }, this.#deps)
        logCancel(this.#deps.log, runId, task.cancel)
        if (task.cancel.kind !== 'failed' && task.cancel.kind !== 'blocked') {
          this.#settle(task)
        }
      }),
    )
    for (const task of this.#tasks) {
      if (task.invocation === undefined) task.stoppedBy ??= why.kind
    }
    // After a signal, the runner's grace is for the cancels alone.
    if (why.kind !== 'signal') await this.#readEndStates(deadline)
  }

  /**
   * Reads the runs just cancelled once more, with one list request within the cancel's
   * deadline, so that each shows the state it ended in rather than the one it was cancelled
   * from. Best effort: a failed read leaves the last state seen.
   */
  async #readEndStates(deadline: number): Promise<void> {
    const cancelled = this.#tasks.filter((task) => task.cancel?.kind === 'cancelled')
    if (cancelled.length === 0 || this.#listFallback || this.#deps.now() >= deadline) return
    try {
      const { runs } = await this.#listSetRuns({ deadline })
      const byId = new Map(runs.map((run) => [run.run_id, run]))
      for (const task of cancelled) {
        const run = byId.get(task.runId ?? '')
        if (run && isTerminal(run.state)) task.run = run
      }
    } catch {
      // The outcome stands; only the State column shows the state the run was cancelled from.
    }
  }

  /**
   * Starts tasks while there is room, unless the set is stopping; creates go out together. A
   * start joins `#creating` before it returns, so it is counted there alone.
   */
  async #startDue(): Promise<void> {
    const starts: Promise<void>[] = []
    while (
      this.#next < this.#tasks.length &&
      this.#inFlight().length + this.#creating.size < this.#settings.maxParallel &&
      !this.#stopped
    ) {
      const task = this.#tasks[this.#next]
      this.#next += 1
      if (task) starts.push(this.#start(task))
    }
    await Promise.all(starts)
  }

  async #start(task: TaskRun): Promise<void> {
    // Nothing may come between this check and the request: a signal handler runs only at an await.
    if (this.#deps.signal.aborted) return
    const tag = this.#deps.tagFor(task.index)
    task.invocation = tag.invocation
    task.startedAt = this.#deps.now()
    this.#save()
    // The step's deadline bounds the create as it bounds one run's: a create that hangs ends
    // there, and the runs already in flight are then cancelled with the set.
    const created = createRunOnce(task.request, tag, { ...this.#deps, deadline: this.#deadline })
      .then((answer) => {
        task.runId = answer.run_id
        task.run = { ...answer, title: task.request.title, prompt: task.request.prompt }
        this.#deps.log.info(
          `${taskName(task)}: created run ${safeForLog(answer.run_id)}; it is ${safeForLog(answer.state, 200)}.`,
        )
      })
      .catch((error: unknown) => {
        task.createError = errorMessage(error)
        task.endedAt = this.#deps.now()
        this.#deps.log.warning(`${taskName(task)}: ${safeForLog(task.createError)}`)
        // A run that may exist stays unsettled: the post step looks for it by its tag.
        task.runMayExist = error instanceof RunMayExistError
      })
      .finally(() => {
        this.#creating.delete(task.index)
        this.#save()
      })
    this.#creating.set(task.index, created)
    await created
  }

  /**
   * One list request for every run in flight, filtered by the set's metadata and newest change
   * first, so that the page holds every run that changed since the last poll, however many
   * runs the set has ended. A run missing from a full page has not changed (it is read on its
   * own only when it has gone unread for a while); missing from a page that is not full, it
   * is too new for the list (which lags behind the service's writes), and is read on its own.
   * A plan without metadata filtering reads each.
   */
  async #poll(inFlight: TaskRun[], deadline: number): Promise<void> {
    const options = { signal: this.#deps.signal, deadline }
    const listed = new Map<string, RunItem>()
    let pageFull = false
    if (!this.#listFallback) {
      try {
        const { runs, page_info } = await this.#listSetRuns(options)
        for (const run of runs) listed.set(run.run_id, run)
        pageFull = page_info?.has_next_page === true
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
    for (const task of inFlight) {
      const runId = task.runId ?? ''
      const run = listed.get(runId)
      if (run) {
        this.#seen(task, run)
        continue
      }
      const readAt = this.#readAt.get(task.index)
      if (pageFull && readAt !== undefined && now - readAt < SET_UNLISTED_RECHECK_MS) continue
      await this.#readOnItsOwn(task, options)
    }
  }

  /** One page of the set's runs, filtered by its metadata, newest change first. */
  #listSetRuns(options: { signal?: AbortSignal; deadline: number }) {
    return this.#deps.client.listRuns(
      {
        metadata: { ...this.#deps.setMetadata },
        limit: SET_LIST_PAGE,
        sort_by: 'updated_at',
        sort_order: 'desc',
      },
      options,
    )
  }

  /** Reads one run; a new run's 404 is the service catching up with its own create. */
  async #readOnItsOwn(task: TaskRun, options: { signal: AbortSignal; deadline: number }) {
    const runId = task.runId ?? ''
    try {
      this.#seen(task, await this.#deps.client.getRun(runId, options))
    } catch (error) {
      const age = this.#deps.now() - (task.startedAt ?? this.#deps.now())
      if (!(error instanceof NotFoundError) || age >= NEW_RUN_NOT_FOUND_GRACE_MS) throw error
      if (!this.#lagNoted.has(task.index)) {
        this.#lagNoted.add(task.index)
        this.#deps.log.info(
          `${taskName(task)}: run ${safeForLog(runId)} is not visible yet (404 right after its create); polling on for up to ${formatDuration(NEW_RUN_NOT_FOUND_GRACE_MS)}.`,
        )
      }
    }
  }

  #seen(task: TaskRun, run: RunItem): void {
    this.#readAt.set(task.index, this.#deps.now())
    const before = task.run?.state
    task.run = run
    if (run.state !== before) {
      const age = formatDuration(this.#deps.now() - (task.startedAt ?? this.#deps.now()))
      this.#deps.log.info(
        `${taskName(task)}: run ${safeForLog(run.run_id)} is ${safeForLog(run.state, 200)} (after ${age}).`,
      )
    }
    if (isTerminal(run.state)) {
      task.endedAt = this.#deps.now()
      this.#settle(task)
    }
  }

  /** After each poll: the credit cap on the sum, and whether `pass_when` can still be met. */
  #judge(): void {
    const { maxCredits, passWhen } = this.#settings
    const credits = sumCredits(this.#tasks)
    if (maxCredits !== undefined && credits !== undefined && credits > maxCredits) {
      this.#stopped = {
        why: { kind: 'over-budget' },
        reason: `the runs used ${formatCredits(credits)} together, past max_credits (${formatCredits(maxCredits)})`,
      }
    } else if (passWhenStanding(passWhen, this.#counts()) === 'cannot-be-met') {
      const counts = this.#counts()
      this.#stopped = {
        why: { kind: 'pass-when' },
        reason: `${counts.notSucceeded} of ${this.#tasks.length} runs did not succeed, so ${describePassWhen(passWhen, this.#tasks.length)} can no longer succeed`,
      }
    }
  }

  #counts() {
    let succeeded = 0
    let notSucceeded = 0
    for (const task of this.#tasks) {
      if (task.createError !== undefined) notSucceeded += 1
      else if (task.run && isTerminal(task.run.state)) {
        if (meaningOf(task.run.state) === 'succeeded') succeeded += 1
        else notSucceeded += 1
      }
    }
    return { tasks: this.#tasks.length, succeeded, notSucceeded }
  }

  #inFlight(): TaskRun[] {
    return this.#tasks.filter(
      (task) => task.runId !== undefined && task.endedAt === undefined && !task.settled,
    )
  }

  #settle(task: TaskRun): void {
    task.endedAt ??= this.#deps.now()
    task.settled = true
    this.#save()
  }

  #save(): void {
    const records: SetRunRecord[] = []
    for (const task of this.#tasks) {
      if (task.invocation === undefined) continue
      const nothingOwed = task.settled || (task.createError !== undefined && !task.runMayExist)
      records.push({
        invocation: task.invocation,
        ...(task.runId ? { runId: task.runId } : {}),
        ...(nothingOwed ? { settled: true } : {}),
      })
    }
    this.#deps.state.saveSetRuns(records)
  }

  async #outcome(elapsedMs: number): Promise<SetOutcome> {
    const base = { tasks: this.#tasks, elapsedMs, listFallback: this.#listFallback }
    if (this.#deps.signal.aborted) {
      return { ...base, word: 'interrupted', reason: 'the workflow cancelled the step' }
    }
    if (this.#stopped) {
      const { why, reason } = this.#stopped
      const stoppable = this.#inFlight()
      if (stoppable.length > 0 || this.#next < this.#tasks.length) {
        const names = stoppable.map(
          (task) => `${safeForLog(taskLabel(task), 200)} (run ${task.runId})`,
        )
        const notStarted = this.#tasks.length - this.#next
        this.#deps.log.warning(
          `Stopping the set: ${reason}. Cancelling ${names.length > 0 ? names.join(', ') : 'no run in flight'}${notStarted > 0 ? `; ${notStarted} task(s) not started will not be` : ''}.`,
        )
      }
      await this.cancelInFlight(why, cancelDeadline(why, this.#deps.now()))
      // A set that can no longer pass failed; its runs still going were cancelled for it.
      return {
        ...base,
        word: why.kind === 'pass-when' ? 'failed' : outcomeOfStop(why.kind),
        reason,
      }
    }
    const counts = this.#counts()
    const rule = describePassWhen(this.#settings.passWhen, this.#tasks.length)
    const standing = passWhenStanding(this.#settings.passWhen, counts)
    const reason = `the step asked for ${rule}`
    return { ...base, word: standing === 'met' ? 'succeeded' : 'failed', reason }
  }
}

/** "Task 3 (Package c)", safe for the log. */
function taskName(task: TaskRun): string {
  const label = safeForLog(taskLabel(task), 200)
  return label.charAt(0).toUpperCase() + label.slice(1)
}
