import { finalAnswer, type Conversation } from '../agent/conversation.ts'
import {
  describeProgress,
  Heartbeat,
  newSessionLink,
  ProgressReadSchedule,
  ProgressTracker,
} from '../agent/progress.ts'
import { readConversation, type AgentWorkSources } from '../agent/work.ts'
import type { RunItem } from '../api/types.ts'
import type { Settings } from '../inputs/main-step.ts'
import { blockedQuestion, decideOnBlocked, howToAnswer, type OnBlocked } from '../model/blocked.ts'
import { meaningOf } from '../model/states.ts'
import { formatDuration } from '../text/format.ts'
import { namedLog, type Log } from '../log.ts'
import { safeForLog } from '../text/log.ts'
import type { RunRecord } from '../model/record.ts'
import type { RunTracker } from './tracker.ts'

/**
 * What the step watches while it waits, besides the state: the session link,
 * BLOCKED, the agent's progress, and the rule that the log is never silent for
 * five minutes. The wait loop calls `afterPoll` with each reading and stops when
 * it says so; everything else is this module's. The credit cap is the scheduler's,
 * on what the step's runs used together, one run's or a set's.
 */
export interface WatchSettings {
  readonly showProgress: boolean
  readonly onBlocked: OnBlocked
  /** Whether a comment can answer the run (continue_run is set up). */
  readonly continueRun: boolean
}

export interface WatchDeps {
  now: () => number
  log: Log
  /** Makes API and agent text one inert log line. */
  safeForLog: (value: unknown) => string
  /** The run's conversation, or undefined when the service has none (404, 422). Never throws. */
  readConversation: (signal: AbortSignal, deadline: number) => Promise<Conversation | undefined>
  /** Called with the session link the first time the service gives it (e.g. to set the output). */
  onSessionLink?: (link: string) => void
}

export type WatchVerdict =
  | { readonly kind: 'continue' }
  /** BLOCKED with on_blocked fail or pass: the step hands the run to a person and ends. */
  | { readonly kind: 'blocked'; readonly passes: boolean; readonly question: string | undefined }

export class RunWatcher {
  readonly #settings: WatchSettings
  readonly #deps: WatchDeps
  readonly #startedAt: number
  readonly #heartbeat: Heartbeat
  readonly #reads: ProgressReadSchedule
  readonly #progress = new ProgressTracker()
  #announcedLink: string | undefined
  #lastConversation: Conversation | undefined

  constructor(settings: WatchSettings, deps: WatchDeps) {
    this.#settings = settings
    this.#deps = deps
    this.#startedAt = deps.now()
    this.#heartbeat = new Heartbeat(this.#startedAt)
    this.#reads = new ProgressReadSchedule(this.#startedAt)
  }

  /** The log the wait writes to: every line counts as a sign of life. */
  get log(): Log {
    const note = () => this.#heartbeat.noteLine(this.#deps.now())
    const log = this.#deps.log
    return {
      info: (message) => (note(), log.info(message)),
      warning: (message) => (note(), log.warning(message)),
      debug: (message) => log.debug(message),
    }
  }

  /** The longest the wait may sleep before it owes the log a line. */
  msUntilHeartbeat(): number {
    return this.#heartbeat.msUntilDue(this.#deps.now())
  }

  /** The conversation as last read, if any: the final answer can be taken from it. */
  get lastConversation(): Conversation | undefined {
    return this.#lastConversation
  }

  /** Looks at one reading of the run; `stateChanged` when its state differs from the last. */
  /** `deadline`: when the wait ends (on the `now` clock); no read it makes outlasts it. */
  async afterPoll(
    run: RunItem,
    stateChanged: boolean,
    signal: AbortSignal,
    deadline: number,
  ): Promise<WatchVerdict> {
    const { safeForLog } = this.#deps
    const link = newSessionLink(this.#announcedLink, run)
    if (link) {
      this.#announcedLink = link
      this.log.info(`Session: ${safeForLog(link)}`)
      this.#deps.onSessionLink?.(link)
    }

    const blocked = meaningOf(run.state) === 'blocked'
    // Before a worker has it, the run has no conversation: a read then would spend the budget.
    const started = run.state !== 'QUEUED' && run.state !== 'PENDING'
    if (
      this.#settings.showProgress &&
      started &&
      this.#reads.isDue(this.#deps.now(), stateChanged)
    ) {
      await this.#readProgress(signal, deadline)
    }
    if (blocked && stateChanged) {
      // What it waits for may be only in the conversation: read it, once per BLOCKED.
      if (!this.#settings.showProgress || !this.#lastConversation)
        await this.#readOnce(signal, deadline)
      return this.#onBlocked(run)
    }

    if (this.#heartbeat.isDue(this.#deps.now())) {
      this.log.info(
        `Still waiting: run ${safeForLog(run.run_id)} is ${safeForLog(run.state)} after ${formatDuration(this.#deps.now() - this.#startedAt)}.`,
      )
    }
    return { kind: 'continue' }
  }

  #onBlocked(run: RunItem): WatchVerdict {
    const { safeForLog } = this.#deps
    const question = blockedQuestion(
      run.status_message,
      this.#lastConversation && finalAnswer(this.#lastConversation),
    )
    const decision = decideOnBlocked(this.#settings.onBlocked)
    const waitsFor = question
      ? `It waits for: ${safeForLog(question)}`
      : 'The service does not say what it waits for.'
    const answer = howToAnswer({
      sessionLink: this.#announcedLink ? safeForLog(this.#announcedLink) : undefined,
      continueRun: this.#settings.continueRun,
    })
    const next = decision.keepWaiting
      ? 'This step waits on, until its timeout (on_blocked: wait).'
      : `This step hands the run over and ${decision.passes ? 'passes' : 'fails'} (on_blocked: ${this.#settings.onBlocked}); the run stays BLOCKED.`
    this.log.warning(
      `Run ${safeForLog(run.run_id)} is BLOCKED: it needs a person. ${waitsFor} ${answer} ${next}`,
    )
    return decision.keepWaiting
      ? { kind: 'continue' }
      : { kind: 'blocked', passes: decision.passes, question }
  }

  async #readProgress(signal: AbortSignal, deadline: number): Promise<void> {
    const conversation = await this.#readOnce(signal, deadline)
    if (!conversation) return
    for (const event of this.#progress.update(conversation)) {
      this.log.info(this.#deps.safeForLog(describeProgress(event)))
    }
  }

  async #readOnce(signal: AbortSignal, deadline: number): Promise<Conversation | undefined> {
    this.#reads.recordRead(this.#deps.now())
    const conversation = await this.#deps.readConversation(signal, deadline)
    if (conversation) this.#lastConversation = conversation
    return conversation
  }
}

/** What the step watches while it waits, from its settings: the run's conversation is the tracked run's. */
export function stepWatcher(
  settings: Pick<Settings, 'agentWork' | 'target'>,
  tracker: Pick<RunTracker, 'runId'>,
  sources: AgentWorkSources,
  deps: Pick<WatchDeps, 'log' | 'onSessionLink'>,
): RunWatcher {
  return watcherOf(
    {
      showProgress: settings.agentWork.showProgress,
      onBlocked: settings.agentWork.onBlocked,
      continueRun: settings.target.kind === 'continue',
    },
    () => tracker.runId,
    sources,
    deps,
  )
}

/**
 * What a task of a set watches: its progress and BLOCKED as for one run, its lines naming the
 * task ("Task 3 (x): …"). Nothing when neither
 * `show_progress` nor an `on_blocked` other than `wait` asks for it.
 */
export function taskWatcher(
  settings: Pick<WatchSettings, 'showProgress' | 'onBlocked'>,
  record: Pick<RunRecord, 'runId'>,
  sources: AgentWorkSources,
  deps: { log: Log; name: string },
): RunWatcher | undefined {
  if (!settings.showProgress && settings.onBlocked === 'wait') return undefined
  const log = namedLog(deps.log, deps.name)
  const watch = { ...settings, continueRun: false }
  return watcherOf(watch, () => record.runId, sources, { log })
}

function watcherOf(
  settings: WatchSettings,
  runIdOf: () => string | undefined,
  sources: AgentWorkSources,
  deps: Pick<WatchDeps, 'log' | 'onSessionLink'>,
): RunWatcher {
  const { log } = deps
  // Progress reads find no conversation early in a run: that is not worth a line each time.
  const quiet: Log = {
    info: (message) => log.debug(message),
    warning: (message) => log.debug(message),
    debug: (message) => log.debug(message),
  }
  return new RunWatcher(settings, {
    now: Date.now,
    log,
    safeForLog,
    readConversation: async (signal, deadline) => {
      const runId = runIdOf()
      return runId ? readConversation(runId, sources, quiet, signal, deadline) : undefined
    },
    onSessionLink: deps.onSessionLink,
  })
}
