import type { SpendCap } from '../model/spend-cap.ts'
import { costOf } from '../agent/cost.ts'
import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import { isUnreachableOrRefused, NotFoundError } from '../api/errors.ts'
import type { CreateRunRequest, RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import { logCancel, type CancelReport } from '../model/cancel.ts'
import { isTerminal } from '../model/states.ts'
import type { RunEnd, RunRecord } from '../model/record.ts'
import type { StepTarget } from '../model/step.ts'
import { formatDuration } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { errorMessage } from '../text/plain.ts'
import { NEW_PASS_GRACE_MS, NEW_RUN_NOT_FOUND_GRACE_MS } from '../timing.ts'
import { cancelOwnRun, cancelPreviousRuns, type CancelWhy } from './cancel.ts'
import { KeySteering, type SteerSource } from './steer.ts'
import { adoptRun, type AdoptionHost } from './adopt.ts'
import { createRunOnce, RunMayExistError, type RunTag } from './create.ts'
import { FollowUps } from './followup.ts'
import {
  logStateChange,
  noteSupersededRun,
  surfaceRefusal,
  type DocumentCheck,
  type ReadingWatch,
} from './lines-and-lookups.ts'
import {
  KnownRunContinuation,
  PullRequestContinuation,
  type ContinueSource,
  type KnownRun,
} from './continue-pr.ts'
import { homeOfTag } from '../model/home.ts'
import type { RunTracker } from './tracker.ts'

export interface LifecycleSpec {
  target: StepTarget
  /** The record the lifecycle keeps; a task's own, for the set's table. */
  record: RunRecord
  tag: RunTag
  /** How its lines name it ("Task 3 (Package c)"); undefined for a step's only run. */
  name?: string
  /** `wait: false`: started, then handed off. */
  wait: boolean
  /**
   * `previous_run: cancel`: the active runs of the same name (of the run's project and thread)
   * are cancelled before the create; the input that asked, as the door names it, for the log.
   */
  cancelPrevious?: string
  /** A re-run job's step says which run of the earlier attempt it replaces (one quick lookup). */
  noteSuperseded?: boolean
  /** A create's failure ends the step (one run), or only this run (a task of a set). */
  startFailure: 'throw' | 'record'
  /** After a follow-up, how long readings in the run's old state count as from before it. */
  newPassGraceMs?: number
  /** output_schema: checks the document of a run that succeeded, after `corrections` corrections. */
  checkResult?: (run: RunItem, corrections: number) => Promise<DocumentCheck>
  /** `previous_run: steer`: what changed on GitHub, to steer the key's run instead of creating. */
  steer?: SteerSource
  /** `continue_from: pull_request`: the pull request whose run this step's prompt goes to. */
  continueFrom?: ContinueSource
  /** A campaign's changed instruction: the run that opened the pull request, and what it gets. */
  continueRun?: KnownRun
  /**
   * The caps on this run alone (what its repository's `daily_credit_budget` had left, in a
   * campaign): past one, it is cancelled and the set's other runs work on.
   */
  caps?: readonly SpendCap[]
}

/** What a run's life asks of the service. */
export type LifecycleClient = Pick<
  AgentRunsClient,
  | 'createRun'
  | 'listRuns'
  | 'iterateRuns'
  | 'getRun'
  | 'sendFollowup'
  | 'cancelRun'
  | 'interruptRun'
>

export interface LifecycleDeps {
  client: LifecycleClient
  /** Persists the run the moment it is known, for the post step. */
  tracker: RunTracker
  now: () => number
  sleep: Sleep
  /** Aborts when the workflow cancels the step. */
  signal: AbortSignal
  log: Log
  watch?: ReadingWatch
  /** Told when the step steered the key's run instead of creating one (the `steered` output). */
  onSteered?: () => void
}

/**
 * One run's life in the step: its start (a create; an adoption, adopt.ts; a steer, steer.ts; a
 * continuation, continue-pr.ts), what each reading means for it (a new state, a stale one from
 * before a follow-up, followup.ts; a watcher's verdict, read-after-write lag; a correction of
 * its document), and its stop (a cancel). When to read and when to stop is the scheduler's
 * (scheduler.ts), for one run as for a set.
 */
export class RunLifecycle {
  readonly #spec: LifecycleSpec
  readonly #deps: LifecycleDeps
  #starting = false
  #lagNoted = false
  /** output_schema: the corrections asked for so far. */
  #corrections = 0
  /** `previous_run: steer`: what steers the key's run for this step (a create's only). */
  readonly #keySteering: KeySteering | undefined
  /** `continue_from`, or a campaign's follow-up: what starts the run from the one that made the pull request. */
  readonly #continuation: PullRequestContinuation | KnownRunContinuation | undefined
  /** Its follow-ups (run_id's, a steer's, a correction's), and the readings they make stale. */
  readonly #followUps: FollowUps
  /** What adopting and steering ask of this run's life: its record, tracker and follow-up. */
  readonly #host: AdoptionHost

  constructor(spec: LifecycleSpec, deps: LifecycleDeps) {
    this.#spec = spec
    this.#deps = deps
    const { steer: source, target } = spec
    const graceMs = spec.newPassGraceMs ?? NEW_PASS_GRACE_MS
    const followUps = new FollowUps({ ...deps, graceMs })
    this.#followUps = followUps
    this.#host = {
      record: spec.record,
      tracker: deps.tracker,
      followUp: (run, message, deadline) => followUps.followUp(run, message, deadline),
    }
    if (source && target.kind === 'create') {
      const { client, log, signal, onSteered } = deps
      const step = { source, request: target.request, tags: spec.tag.metadata }
      this.#keySteering = new KeySteering(step, this.#host, { client, log, signal, onSteered })
    }
    const host = {
      record: spec.record,
      send: (run: RunItem, message: string, deadline: number) =>
        followUps.send(run, message, deadline),
    }
    if (spec.continueFrom && target.kind === 'create') {
      this.#continuation = new PullRequestContinuation(spec.continueFrom, host, deps)
    } else if (spec.continueRun && target.kind === 'create') {
      this.#continuation = new KnownRunContinuation(spec.continueRun, host, deps)
    }
  }

  get record(): RunRecord {
    return this.#spec.record
  }

  get tracker(): RunTracker {
    return this.#deps.tracker
  }

  get end(): RunEnd | undefined {
    return this.record.end
  }

  /** Not started yet: no request has gone out for it. */
  /** How its lines name it ("Task 3 (Package c)"); undefined for a step's only run. */
  get name(): string | undefined {
    return this.#spec.name
  }

  /** The caps on this run alone (LifecycleSpec.caps). */
  get caps(): readonly SpendCap[] {
    return this.#spec.caps ?? []
  }

  get due(): boolean {
    return !this.#starting && this.end === undefined && this.record.startedAt === undefined
  }

  /** A create or a follow-up is out: its run may exist before its answer. */
  get starting(): boolean {
    return this.#starting
  }

  /** Started, with a run to read and no request out that may change it, and not ended. */
  get inFlight(): boolean {
    return this.end === undefined && this.record.runId !== undefined && !this.tracker.deciding
  }

  get watch(): ReadingWatch | undefined {
    return this.#deps.watch
  }

  /** Who a line is about: "Run r1" for a step's one run, "Task 3 (x): run r1" in a set. */
  #subject(runId = this.record.runId ?? ''): string {
    const id = safeForLog(runId)
    return this.#spec.name ? `${this.#spec.name}: run ${id}` : `Run ${id}`
  }

  /**
   * Starts the run: creates it (after `cancel_previous`), or adopts it and sends its follow-up.
   * `deadline` bounds the requests. A failure ends the step, or only this run (`startFailure`).
   */
  async start(deadline: number): Promise<void> {
    // Nothing may come between this check and the request: a signal handler runs only at an await.
    if (this.#deps.signal.aborted) return this.#ended({ kind: 'not-started' })
    const record = this.record
    record.startedAt = this.#deps.now()
    this.#starting = true
    try {
      const { target } = this.#spec
      const run =
        target.kind === 'create'
          ? await this.#create(target.request, deadline)
          : await adoptRun(target, deadline, this.#host, this.#deps)
      if (!run) return this.#ended({ kind: 'not-started' })
      record.run = run
    } catch (error) {
      record.createError = errorMessage(error)
      record.createUnreachable = isUnreachableOrRefused(error)
      record.endedAt = this.#deps.now()
      this.#ended({ kind: 'not-started' })
      if (this.#spec.startFailure === 'throw') throw error
      this.#deps.log.warning(`${this.#spec.name ?? 'The run'}: ${safeForLog(record.createError)}`)
      // A run that may exist stays unsettled: the post step looks for it by its tag.
      record.runMayExist = error instanceof RunMayExistError
      if (!record.runMayExist) this.#settle()
      return
    } finally {
      this.#starting = false
    }
    if (this.#deps.signal.aborted) return
    if (!this.#spec.wait) {
      this.#settle()
      this.#deps.log.info(
        `Not waiting (wait: false); ${this.#spec.name ? `${this.#spec.name}'s run` : 'run'} ${safeForLog(this.record.runId ?? '')} goes on without this step.`,
      )
      return this.#ended({ kind: 'started' })
    }
    const run = this.record.run
    if (run && isTerminal(run.state) && !this.#followUps.isStale(run))
      await this.#reachedTerminal(run, deadline)
  }

  /**
   * One reading of the run: a reading from before a follow-up is ignored; a new state is logged
   * and shown; the watcher looks at a run on its way and may end the wait; a terminal state ends it.
   */
  async seen(run: RunItem, deadline: number): Promise<void> {
    if (!this.inFlight || this.#followUps.isStale(run)) return
    const record = this.record
    const before = record.run
    record.run = run
    const stateChanged = run.state !== before?.state
    if (stateChanged) {
      const { log, now, watch } = this.#deps
      const when = `after ${formatDuration(now() - (record.startedAt ?? now()))}`
      logStateChange(log, this.#subject(run.run_id), run, { when, watched: watch !== undefined })
    }
    if (isTerminal(run.state)) return this.#reachedTerminal(run, deadline)
    const steered = await this.#keySteering?.giveWayLate(run, deadline)
    if (steered) {
      this.record.run = steered
      return
    }
    const verdict = await this.#deps.watch?.afterPoll(
      run,
      stateChanged,
      this.#deps.signal,
      deadline,
    )
    if (!verdict || verdict.kind === 'continue') return
    // Handed off on purpose: the post step must not cancel a run a person is to answer.
    this.record.handedOff = { passes: verdict.passes }
    this.#settle()
    this.#ended({ kind: 'handed-off', passes: verdict.passes, question: verdict.question })
  }

  /** A read of this run alone failed: a new run's 404 is the service catching up with its create. */
  readFailed(error: unknown): void {
    const age = this.#deps.now() - (this.record.startedAt ?? this.#deps.now())
    const graceMs = this.#spec.target.kind === 'create' ? NEW_RUN_NOT_FOUND_GRACE_MS : 0
    if (!(error instanceof NotFoundError) || age >= graceMs) throw error
    if (this.#lagNoted) return
    this.#lagNoted = true
    this.#deps.log.info(
      `${this.#subject()} is not visible yet (404 right after its create); polling on for up to ${formatDuration(graceMs)}.`,
    )
  }

  /**
   * Cancels the run for `why` within `deadline`; the report is the record's. Nothing more is
   * owed on it unless the cancel failed, the run is BLOCKED, or it may restart yet.
   */
  async stop(why: CancelWhy, deadline: number): Promise<void> {
    this.record.stoppedBy = why.kind
    if (!this.inFlight) return
    const stateBefore = this.record.run?.state
    const cancel = await this.#cancel(why, deadline)
    this.#ended({ kind: 'cancelled', cause: why.kind, stateBefore, cancel })
  }

  async #cancel(why: CancelWhy, deadline: number): Promise<CancelReport> {
    const record = this.record
    const runId = record.runId ?? ''
    const { client, now, sleep, log } = this.#deps
    const report = await cancelOwnRun(
      this.tracker,
      runId,
      why,
      { client, now, sleep, log },
      deadline,
    )
    record.cancel = report
    if (!this.tracker.needsCancel) this.#settle()
    // One run's outcome says how a signal's cancel went, and a timeout's BLOCKED refusal is its
    // error line: said there, once. A set's runs are each named in the log.
    const saidElsewhere =
      !this.#spec.name &&
      ((why.kind === 'signal' && report.kind !== 'blocked') ||
        (why.kind === 'timeout' && report.kind === 'blocked'))
    if (!saidElsewhere) logCancel(log, runId, report)
    return report
  }

  /** A newer step steers the run now: nothing more is owed on it here, not even a cancel. */
  handOver(): void {
    if (this.record.runId !== undefined) this.#settle()
  }

  /** Ended for a reason of the step's own (its `pass_when`, a signal): never started, never will be. */
  skip(why: CancelWhy): void {
    if (!this.due) return
    this.record.stoppedBy ??= why.kind
    this.#ended({ kind: 'not-started' })
  }

  /**
   * The run ended. With `output_schema`, a run that succeeded has its document checked; while
   * it does not validate and a correction is left, the run is asked for one and awaited again.
   */
  async #reachedTerminal(run: RunItem, deadline: number): Promise<void> {
    const check = this.#spec.checkResult
    if (check && run.state === 'SUCCEEDED') {
      const checked = await check(run, this.#corrections)
      if (checked.kind === 'correct') {
        this.#corrections += 1
        const refusal = await this.#followUps.followUp(run, checked.message, deadline)
        if (refusal === undefined) return
        this.#deps.log.warning(`${this.#subject()} refused the correction: ${safeForLog(refusal)}`)
        this.record.invalidOutput = {
          errors: [`the run refused the correction (${refusal})`],
          corrections: this.#corrections - 1,
          input: checked.input,
        }
      } else if (checked.kind === 'valid') this.record.document = checked.document
      else this.record.invalidOutput = checked.invalidOutput
      // Its final answer is the step's to show: not read twice.
      this.record.conversation = checked.conversation
    }
    this.#settle()
    this.#ended({ kind: 'terminal' })
  }

  #ended(end: RunEnd): void {
    this.record.end ??= end
    this.record.endedAt ??= this.#deps.now()
  }

  #settle(): void {
    this.tracker.settle()
    this.record.settled = true
  }

  async #create(request: CreateRunRequest, deadline: number): Promise<RunItem | undefined> {
    const { client, log, tag } = { ...this.#deps, tag: this.#spec.tag }
    const name = request.config?.name
    const steering = this.#keySteering
    if (steering) {
      const steered = await steering.steer(deadline)
      if (steered) return steered
    } else {
      // continue_from (or a campaign's follow-up): the run that made the pull request, or a create.
      const continued = await this.#continuation?.start(request, deadline)
      if (continued?.kind === 'run') {
        // What it used making the pull request is not this step's (max_credits).
        this.record.usedBefore = costOf(continued.run.request_usage)
        return continued.run
      }
      request = continued?.request ?? request
      if (this.#spec.cancelPrevious && name) {
        const asked = { name, home: homeOfTag(tag.metadata), input: this.#spec.cancelPrevious }
        await cancelPreviousRuns(client, asked, log, { deadline })
      }
    }
    // Nothing may come between this check and the request: a signal handler runs only at an await.
    if (this.#deps.signal.aborted) return undefined
    this.tracker.creating(tag.invocation)
    this.record.invocation = tag.invocation
    let created
    try {
      // Not given the abort signal: a create cut off mid-flight could leave a run nobody knows about.
      created = await createRunOnce(request, tag, { ...this.#deps, deadline })
    } catch (error) {
      if (!(error instanceof RunMayExistError)) this.tracker.noRunMade()
      throw surfaceRefusal(error, request)
    }
    this.tracker.track(created.run_id)
    this.record.runId = created.run_id
    log.info(
      `${this.#spec.name ? `${this.#spec.name}: created` : 'Created'} run ${safeForLog(created.run_id)}; it is ${safeForLog(created.state, 200)}.`,
    )
    if (this.#spec.noteSuperseded) await noteSupersededRun(tag, this.#deps)
    const own = { ...created, title: request.title, prompt: request.prompt }
    return steering ? await steering.oneRunPerKey(own, deadline) : own
  }
}
