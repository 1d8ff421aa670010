import type { SpendCap } from '../model/spend-cap.ts'
import type { Sleep } from '../api/transport.ts'
import type { CreateRunRequest } from '../api/types.ts'
import type { PassWhen } from '../model/set.ts'
import type { Log } from '../log.ts'
import { outcomeOfStop } from '../model/outcome.ts'
import {
  describePassWhen,
  isDetached,
  passWhenStanding,
  taskLabel,
  type SetOutcome,
  type TaskRun,
} from '../model/set.ts'
import type { RunsStore } from '../state.ts'
import { safeForLog } from '../text/log.ts'
import { cancelPreviousRuns } from './cancel.ts'
import { SET_KEY, type RunTag } from './create.ts'
import { homeOfTag, type RunHome } from '../model/home.ts'
import { RunLifecycle, type LifecycleClient, type LifecycleSpec } from './lifecycle.ts'
import type { ReadingWatch } from './lines-and-lookups.ts'
import type { Interruption } from './interruption.ts'
import type { ScheduleEnd } from './scheduler.ts'
import type { KnownRun } from './continue-pr.ts'
import { StepRuns } from './step-runs.ts'
import { TrackedRuns } from './tracker.ts'

export interface SetSettings {
  tasks: readonly CreateRunRequest[]
  maxParallel: number
  passWhen: PassWhen
  timeoutMs: number
  pollIntervalMs: number
  caps: readonly SpendCap[]
  /**
   * `previous_run: cancel`: the active runs with a task's name (of the set's project and thread)
   * are cancelled before the set starts; the input that asked, as the door names it.
   */
  cancelPrevious?: string
  /** A campaign's follow-ups, by task: the run that opened its pull request, in place of a create. */
  continueRuns?: readonly (KnownRun | undefined)[]
  /** The caps on each task's run alone, by task: its repository's budget's rest, in a campaign. */
  taskCaps?: readonly (readonly SpendCap[] | undefined)[]
  /**
   * `wait: false`: every run is created and handed over, none awaited (a reconcile pass reports
   * the set); `maxParallel` is then at least the number of tasks, so all start at once.
   */
  wait?: boolean
}

export interface SetDeps {
  client: LifecycleClient
  now: () => number
  sleep: Sleep
  /** Aborts when the workflow cancels the step; the signal's cancel is `cancelInFlight`'s. */
  signal: AbortSignal
  log: Log
  /** Where the set's runs are saved for the post step, as one list. */
  state: RunsStore
  /** The metadata every run of this set carries (`gh_set`), and each task's own tag. */
  setMetadata: Readonly<Record<string, string>>
  tagFor: (index: number) => RunTag
  /** Told where the set stands once per poll (after its starts): the comment and status show it. */
  onProgress?: (tasks: readonly TaskRun[]) => void
  /** What watches a task's run while it goes (progress, BLOCKED), its lines naming the task. */
  watchFor?: (task: TaskRun, name: string) => ReadingWatch | undefined
  /** output_schema: what checks a task's document once its run succeeded (see checkDocument). */
  checkFor?: (task: TaskRun, name: string) => LifecycleSpec['checkResult']
}

/**
 * Many runs from one step, each a lifecycle of the one scheduler: at most `maxParallel` in
 * flight, one list request per poll for all of them (filtered by the set's own metadata),
 * `pass_when` watched as runs end, and the runs still in flight cancelled, in parallel, as
 * soon as the rule can no longer be met, the cap or the timeout is reached, or the workflow
 * cancels the step.
 */
export class TaskSetRun {
  readonly #settings: SetSettings
  readonly #deps: SetDeps
  readonly #tasks: TaskRun[]
  readonly #runs: StepRuns

  constructor(settings: SetSettings, deps: SetDeps) {
    this.#settings = settings
    this.#deps = deps
    this.#tasks = settings.tasks.map((request, index) => ({ index, request }))
    const runs = new TrackedRuns(deps.state)
    const { client, now, sleep, signal, log } = deps
    const lifecycles = this.#tasks.map(
      (task) =>
        new RunLifecycle(
          {
            target: { kind: 'create', request: task.request },
            record: task,
            tag: deps.tagFor(task.index),
            name: taskName(task),
            wait: settings.wait ?? true,
            startFailure: 'record',
            checkResult: deps.checkFor?.(task, taskName(task)),
            ...continueRunOf(settings, task.index),
            caps: settings.taskCaps?.[task.index] ?? [],
          },
          {
            client,
            tracker: runs.track(),
            now,
            sleep,
            signal,
            log,
            watch: deps.watchFor?.(task, taskName(task)),
          },
        ),
    )
    this.#runs = new StepRuns(lifecycles, settings, {
      client,
      now,
      sleep,
      signal,
      log,
      listMetadata: deps.setMetadata,
      onProgress: () => deps.onProgress?.(this.#tasks),
      announceStop: (stop, inFlight, notStarted) => this.#announceStop(stop, notStarted),
    })
  }

  get tasks(): readonly TaskRun[] {
    return this.#tasks
  }

  /** Runs the set under `interruption` (see StepRuns.execute), to its outcome. */
  async run(interruption: Interruption): Promise<SetOutcome> {
    this.#deps.state.markSet()
    this.#deps.log.info(
      `Starting ${this.#tasks.length} runs, at most ${this.#settings.maxParallel} at once; the step passes when ${describePassWhen(this.#settings.passWhen, this.#tasks.length)} succeed.`,
    )
    if (this.#settings.cancelPrevious) await this.#cancelPrevious(this.#settings.cancelPrevious)
    const end = await this.#runs.execute(interruption)
    // A set is never steered, so never handed over: a signal interrupts it.
    const { elapsedMs } = end.schedule
    const outcome = this.#outcome(end.signal ? { kind: 'interrupted', elapsedMs } : end.schedule)
    return outcome.word === 'failed' ? await this.#supersededOr(outcome) : outcome
  }

  /**
   * A set that failed because a run of it was cancelled elsewhere, by a newer step of its key
   * (`previous_run: cancel`), was replaced, as one run is: it ends superseded, and passes.
   */
  async #supersededOr(failed: SetOutcome): Promise<SetOutcome> {
    const replaced = await this.#runs.replaced()
    if (!replaced) return failed
    const { newer, record } = replaced
    const task = this.#tasks.find((one) => one === record)
    const whose = task ? `${taskLabel(task)}'s run` : 'a run of it'
    const reason = `a newer run with the same name (${newer.run_id}) replaced ${whose} (previous_run: cancel)`
    return { ...failed, word: 'superseded', reason, newer }
  }

  /** Before any create, the active runs of every task's name, one name at a time, as for one run. */
  async #cancelPrevious(input: string): Promise<void> {
    const { client, log, now } = this.#deps
    const deadline = now() + this.#settings.timeoutMs
    // A task's tag names its home: the set's project and thread, or a campaign task's repository.
    const asks = new Map<string, { name: string; home: RunHome }>()
    for (const [index, task] of this.#tasks.entries()) {
      const name = task.request.config?.name ?? ''
      const home = homeOfTag(this.#deps.tagFor(index).metadata)
      if (name) asks.set(`${home.forge ?? ''} ${home.project ?? ''}\n${name}`, { name, home })
    }
    for (const { name, home } of asks.values()) {
      if (this.#deps.signal.aborted) return
      await cancelPreviousRuns(client, { name, home, input }, log, { deadline })
    }
  }

  #announceStop(stop: { reason: string }, notStarted: number): void {
    const stoppable = this.#tasks.filter(
      (task) => task.runId !== undefined && task.endedAt === undefined && !task.settled,
    )
    if (stoppable.length === 0 && notStarted === 0) return
    const names = stoppable.map((task) => `${safeForLog(taskLabel(task), 200)} (run ${task.runId})`)
    this.#deps.log.warning(
      `Stopping the set: ${stop.reason}. Cancelling ${names.length > 0 ? names.join(', ') : 'no run in flight'}${notStarted > 0 ? `; ${notStarted} task(s) not started will not be` : ''}.`,
    )
  }

  #outcome(end: ScheduleEnd): SetOutcome {
    const base = {
      tasks: this.#tasks,
      elapsedMs: end.elapsedMs,
      listFallback: this.#runs.listFallback,
    }
    if (end.kind === 'interrupted') {
      return { ...base, word: 'interrupted', reason: 'the workflow cancelled the step' }
    }
    if (end.kind === 'stopped') {
      const { why, reason } = end.stop
      // A set that can no longer pass failed; its runs still going were cancelled for it.
      return {
        ...base,
        word: why.kind === 'pass-when' ? 'failed' : outcomeOfStop(why.kind),
        reason,
      }
    }
    const rule = describePassWhen(this.#settings.passWhen, this.#tasks.length)
    const setId = this.#deps.setMetadata[SET_KEY]
    // A set whose every create failed has nothing to hand over: its rule judges it now.
    if (this.#settings.wait === false && setId && this.#tasks.some(isDetached)) {
      return {
        ...base,
        word: 'started',
        reason: `the step does not wait for its runs (wait: false); a reconcile pass reports the set once the last has ended (it passes when ${rule} succeed)`,
        handedOver: setId,
      }
    }
    const standing = passWhenStanding(this.#settings.passWhen, this.#runs.counts())
    const reason = `the step asked for ${rule}`
    return { ...base, word: standing === 'met' ? 'succeeded' : 'failed', reason }
  }
}

/** "Task 3 (Package c)", safe for the log. */
function taskName(task: TaskRun): string {
  const label = safeForLog(taskLabel(task), 200)
  return label.charAt(0).toUpperCase() + label.slice(1)
}

/** A task's follow-up of a campaign's run, where its plan has one. */
function continueRunOf(settings: SetSettings, index: number): { continueRun?: KnownRun } {
  const known = settings.continueRuns?.[index]
  return known ? { continueRun: known } : {}
}
