import * as core from '@actions/core'
import { agentWorkSources } from './agent/sources.ts'
import { readConversation, type AgentWorkSources } from './agent/work.ts'
import { type AgentRunsClient } from './api/client.ts'
import { abortableSleep } from './api/transport.ts'
import type { RunItem } from './api/types.ts'
import { commentOutcomeOf } from './github/comment.ts'
import { GitHubContext } from './github/context.ts'
import { budgetScope, stepHandoff } from './github/handoff.ts'
import type { ThreadComment } from './github/thread-comment.ts'
import {
  headMovedNote,
  mayTalkToAgent,
  openCheckRun,
  openCommitStatus,
  openThreadComment,
  postPullRequestReview,
  resolveTarget,
  resolveWorkCommit,
  type WorkCommit,
} from './github/setup.ts'
import { annotationsOf, checkReport, type CheckRunReporter } from './github/check-run.ts'
import type { ReviewDocument } from './agent/review-document.ts'
import { finalStatus, pendingStatus, type CommitStatusReporter } from './github/status.ts'
import {
  readCancelOnly,
  readSettings,
  readTaskSettings,
  runnerInputs,
  type InputSource,
  type Settings,
} from './inputs.ts'
import { logCancel, type CancelReport } from './model/cancel.ts'
import { isTerminal } from './model/states.ts'
import type { StepOutcome, StepTarget } from './model/step.ts'
import { publishError, publishOutcome, publishOverBudget } from './report/publish.ts'
import {
  cancelDeadline,
  cancelOwnRun,
  cancelPreviousRuns,
  rereadAfterCancel,
  type CancelDeps,
} from './run/cancel.ts'
import { checkCreditBudgets } from './run/budget.ts'
import { RunMayExistError, runTag } from './run/create.ts'
import { executeStep, type StepDeps } from './run/step.ts'
import {
  awaitValidOutput,
  prepareOutput,
  type CheckedOutput,
  type OutputCheckDeps,
  type OutputRequest,
} from './run/output.ts'
import { withInstruction } from './agent/structured-output.ts'
import { gatherAgentWork, withinWaits } from './run/gather.ts'
import { findSupersedingRun } from './run/superseded.ts'
import { RunTracker } from './run/tracker.ts'
import { RunWatcher } from './run/watch.ts'
import { serviceClient } from './service.ts'
import { runTaskSet } from './tasks.ts'
import { onTerminationSignal, readRunnerWorld } from './runner.ts'
import { runnerState } from './state.ts'
import { safeForLog } from './text/log.ts'
import { PAST_TIMEOUT_MS, SIGNAL_CANCEL } from './timing.ts'
import type { World } from './world.ts'

/** How the main step ended, for a door that answers for it (the command line's exit code). */
export interface MainStepEnd {
  /** The error the step failed on before its run had an outcome; undefined otherwise. */
  readonly error?: unknown
  /** Whether the step had created or adopted a run when it ended. */
  readonly hadRun: boolean
}

/**
 * The main step: prepare (inputs, GitHub, the run), execute (create, wait, cancel), finish.
 * The runner's world is read here, once, and handed down; another door hands its own world
 * and inputs.
 */
export async function run(
  world: World = readRunnerWorld(),
  inputs: InputSource = runnerInputs(world),
): Promise<MainStepEnd> {
  const tracker = new RunTracker(runnerState, (runId) => core.setOutput('run_id', runId))
  const interruption = new Interruption(tracker)
  try {
    await mainStep(world, inputs, tracker, interruption)
    return { hadRun: tracker.runId !== undefined }
  } catch (error) {
    await publishError(error, { runId: tracker.runId })
    return { error, hadRun: tracker.runId !== undefined }
  } finally {
    interruption.stopListening()
  }
}

/** Prepare, execute, finish: the outline of one main step. */
async function mainStep(
  world: World,
  inputs: InputSource,
  tracker: RunTracker,
  interruption: Interruption,
): Promise<void> {
  const cleanup = readCancelOnly(inputs)
  if (cleanup) return await cancelOnlyStep(cleanup)
  const taskSet = await readTaskSettings(inputs)
  if (taskSet) return await runTaskSet(taskSet, world)
  const settings = readSettings(inputs)
  // A schema that is not one is an input error too: compiled before any request.
  const output = await prepareOutput(settings.output)
  const client = serviceClient(settings)
  const github = new GitHubContext(settings.github.token, world)
  if (await stopsAtBudget(settings, github, client)) return
  interruption.listen(client)
  const step = await prepare(settings, world, github, output, client, tracker)
  if (!step) return
  const executed = await execute(step, interruption)
  await finish(step, executed, interruption)
}

/**
 * The credit budgets, before anything is shown or created: past one, the step
 * fails with outcome over_budget, having made nothing.
 */
async function stopsAtBudget(
  settings: Settings,
  github: GitHubContext,
  client: AgentRunsClient,
): Promise<boolean> {
  if (settings.target.kind === 'existing') return false
  const deps = { now: Date.now, log: core }
  const reached = await checkCreditBudgets(client, settings.budgets, budgetScope(github), deps)
  if (reached) await publishOverBudget(reached.message)
  return reached !== undefined
}

/** What a prepared step has at hand: settings, the client, GitHub surfaces, the run's target. */
interface PreparedStep {
  settings: Settings
  /** Where the step runs, as the runner said. */
  world: World
  target: StepTarget
  client: AgentRunsClient
  tracker: RunTracker
  continuing: boolean
  /** The step's GitHub: its repository, event, thread and client, read once. */
  github: GitHubContext
  /** The pull-request comment, when `comment` is on. */
  comment: ThreadComment | undefined
  commit: WorkCommit | undefined
  status: CommitStatusReporter | undefined
  workflowRun: string | undefined
  sources: AgentWorkSources
  watcher: RunWatcher
  /** output_schema or pull_request_review: what the agent's result must validate against. */
  output: OutputRequest | undefined
  /** When every wait on the service must have ended: `timeout` from now, plus PAST_TIMEOUT_MS. */
  waitsEndBy: number
  /** check_run: in progress from now on. */
  checkRun: CheckRunReporter | undefined
}

/** Reads GitHub's side (who asked, which thread, which commit) and decides the run to act on. */
async function prepare(
  settings: Settings,
  world: World,
  context: GitHubContext,
  output: OutputRequest | undefined,
  client: AgentRunsClient,
  tracker: RunTracker,
): Promise<PreparedStep | undefined> {
  const { github } = settings
  const continuing = settings.target.kind === 'continue'
  // A refused comment starts nothing, and the step passes: the log says why.
  if (continuing && !(await mayTalkToAgent(github, context, core))) return undefined
  const threadComment =
    github.comment || continuing
      ? await openThreadComment(github, context, core, {
          onCommentCreated: (commentId) => runnerState.saveCommentId(commentId),
          mode: continuing ? 'reply' : 'keyed',
          name:
            settings.target.kind === 'existing' ? undefined : settings.target.request.config?.name,
        })
      : undefined
  const asked = output ? withInstruction(settings.target, output.instruction) : settings.target
  const target = await resolveTarget(asked, threadComment, core)
  const commit = await resolveWorkCommit(context, core)
  const status = await openCommitStatus(github, context, commit, core)
  if (status && commit) runnerState.saveStatusSha(commit.sha)
  const checkRun = settings.output.checkRun
    ? await openCheckRun(github, context, commit, core, runnerState)
    : undefined
  // Created (and saved) before the run exists, so that a post step after a hard kill completes it.
  await checkRun?.id
  const sources = agentWorkSources(client)
  return {
    settings,
    world,
    target,
    client,
    tracker,
    continuing,
    github: context,
    comment: github.comment ? threadComment : undefined,
    commit,
    status,
    workflowRun: context.workflowRun,
    sources,
    watcher: watcherFor(settings, tracker, sources),
    output,
    waitsEndBy: Date.now() + settings.timeoutMs + PAST_TIMEOUT_MS,
    checkRun,
  }
}

/** How the run ended, and the newer run that replaced it (cancel_previous), if any. */
interface Executed {
  outcome: StepOutcome
  newer?: RunItem
  /** The agent's result, checked against the schema. */
  checked?: CheckedOutput
}

/** Creates or adopts the run and waits for it; a signal's cancel, if any, is folded in. */
async function execute(step: PreparedStep, interruption: Interruption): Promise<Executed> {
  const { client, tracker, comment, status, workflowRun } = step
  const stepDeps: StepDeps = {
    client,
    tracker,
    now: Date.now,
    sleep: abortableSleep,
    signal: interruption.signal,
    log: step.watcher.log,
    watch: step.watcher,
    tag: runTag(
      step.world,
      undefined,
      step.commit?.sha,
      stepHandoff(step.settings.github, step.github, step.settings.wait),
    ),
    onRunSeen: (run) => {
      // The end is shown once the step knows its outcome (timed out, superseded, …), below.
      if (isTerminal(run.state)) return
      comment?.show(run)
      status?.show(pendingStatus(run, workflowRun))
    },
  }
  const startedAt = Date.now()
  let outcome: StepOutcome
  let checked: CheckedOutput | undefined
  try {
    outcome = await executeStep({ ...step.settings, target: step.target }, stepDeps)
    if (step.output) {
      checked = await awaitValidOutput(outcome, outputCheckDeps(step, startedAt, stepDeps))
      outcome = checked.outcome
    }
  } catch (error) {
    if (!interruption.cancelling) {
      await cancelAfterError(client, tracker)
      throw error
    }
    // The cancel is the signal handler's; what went wrong meanwhile is still worth telling.
    if (error instanceof RunMayExistError) core.warning(error.message)
    outcome = { kind: 'interrupted', run: undefined }
  }
  const interrupted = await interruption.outcome(outcome.run)
  if (interrupted) return { outcome: interrupted }
  if (outcome.kind !== 'finished') return { outcome, checked }
  const newer = await findSupersedingRun(client, outcome.run, {
    signal: interruption.signal,
    sleep: abortableSleep,
    now: Date.now,
  })
  return newer
    ? { outcome: { ...outcome, supersededBy: newer.run_id }, newer, checked }
    : { outcome, checked }
}

/** Shows the outcome on every surface: the commit status, the comment, outputs and summary. */
async function finish(
  step: PreparedStep,
  executed: Executed,
  interruption: Interruption,
): Promise<void> {
  const { settings, comment, status, commit, workflowRun } = step
  const { newer, checked } = executed
  const review = settings.output.pullRequestReview ? reviewOf(checked) : undefined
  // The verdict is part of the outcome's words, so every surface leads with the same one.
  const outcome: StepOutcome =
    review && executed.outcome.kind === 'finished'
      ? { ...executed.outcome, reviewVerdict: review.verdict }
      : executed.outcome
  // A newer run on the same commit owns the status now: writing ours could cover its pending.
  if (!(newer && newer.metadata?.gh_head_sha === commit?.sha)) {
    status?.show(finalStatus(outcome, workflowRun))
  }
  const commentOutcome = commentOutcomeOf(outcome, step.continuing)
  // The end at once; the answer and the notes follow once read (one more write, the last).
  if (outcome.run) comment?.show(outcome.run, { outcome: commentOutcome })
  // The head is read while the agent's work is: one waits on GitHub, the other on the service.
  const headMoved =
    outcome.run && comment && !interruption.cancelling
      ? headMovedNote(step.github, commit, core)
      : undefined
  const work = await gatherAgentWork(outcome, {
    settings: settings.agentWork,
    world: step.world,
    sources: step.sources,
    conversation:
      outcome.kind === 'blocked' ? step.watcher.lastConversation : checked?.conversation,
    signal: interruption.signal,
    endBy: step.waitsEndBy,
    log: core,
  })
  if (outcome.run && comment) {
    const moved = await headMoved
    comment.show(outcome.run, {
      notes: moved ? [moved] : [],
      // A review's summary, not the JSON document the agent ended its message with.
      answer: review?.summary ?? work.answer,
      outcome: commentOutcome,
    })
  }
  await Promise.all([
    comment?.settled(),
    status?.settled(),
    review && outcome.run && !interruption.cancelling
      ? postPullRequestReview(
          settings.github,
          step.github,
          commit,
          review,
          reviewContext(outcome.run),
          core,
        )
      : undefined,
    step.checkRun?.finish(
      checkReport(outcome, { answer: work.answer, review }),
      review ? annotationsOf(review.comments, review.verdict) : [],
    ),
  ])
  await publishOutcome(outcome, {
    ...work,
    shownAnswer: review?.summary,
    continueRun: step.continuing,
    structuredOutput: checked?.document,
    verdict: review?.verdict,
  })
}

/**
 * The workflow cancelling the step: SIGINT or SIGTERM. The first signal aborts
 * the wait and sends the cancel at once, within what the runner leaves before
 * it kills the step; the step then reports itself interrupted.
 */
class Interruption {
  readonly #controller = new AbortController()
  readonly #tracker: RunTracker
  #client: AgentRunsClient | undefined
  #cancelling: Promise<{ signal: NodeJS.Signals; cancel: CancelReport | undefined }> | undefined
  #stopListening = (): void => undefined

  constructor(tracker: RunTracker) {
    this.#tracker = tracker
  }

  /** Aborts when the workflow cancels the step. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  get cancelling(): boolean {
    return this.#cancelling !== undefined
  }

  listen(client: AgentRunsClient): void {
    this.#client = client
    this.#stopListening = onTerminationSignal((signal) => {
      if (this.#cancelling) {
        core.info(`Received ${signal} again; still cancelling.`)
        return
      }
      this.#controller.abort()
      this.#cancelling = cancelOnSignal(signal, client, this.#tracker)
    })
  }

  stopListening(): void {
    this.#stopListening()
  }

  /** The step's outcome once the signal's cancel is answered; undefined without a signal. */
  async outcome(lastSeen: RunItem | undefined): Promise<StepOutcome | undefined> {
    if (!this.#cancelling || !this.#client) return undefined
    const { signal, cancel } = await this.#cancelling
    const run = await rereadAfterCancel(this.#client, cancel, lastSeen)
    return { kind: 'interrupted', run, signal, cancel }
  }
}

/** Sends the cancel request at once, within what the runner leaves before it kills the step. */
async function cancelOnSignal(
  signal: NodeJS.Signals,
  client: AgentRunsClient,
  tracker: RunTracker,
): Promise<{ signal: NodeJS.Signals; cancel: CancelReport | undefined }> {
  const why = { kind: 'signal', signal } as const
  const deadline = cancelDeadline(why, Date.now())
  // Should anything keep the process alive past the budget, end it before the runner's kill.
  setTimeout(() => process.exit(1), deadline - Date.now() + SIGNAL_CANCEL.exitMarginMs).unref()
  core.info(`Received ${signal}: the workflow is cancelling this step.`)
  // A create (or its lookup) or a follow-up in flight may yet start or restart a run: let it
  // answer, keeping time for the cancel.
  const runId = await tracker.whenDecided((deadline - Date.now()) * SIGNAL_CANCEL.decideShare)
  if (!runId || !tracker.needsCancel) {
    if (tracker.mayHaveUnseenRun) {
      core.info('The create request has not been answered; the post step will look for its run.')
    }
    return { signal, cancel: undefined }
  }
  const cancel = await cancelOwnRun(tracker, runId, why, cancelDeps(client), deadline)
  if (cancel.kind === 'blocked') logCancel(core, runId, cancel)
  return { signal, cancel }
}

/**
 * A run must not outlive a step that gave up on it. A step that failed before
 * it knew of a run made none, unless a create's answer was lost and its run
 * not found: then the state keeps the create's tag for the post step.
 */
async function cancelAfterError(client: AgentRunsClient, tracker: RunTracker): Promise<void> {
  const runId = tracker.runId
  // A create whose run was neither seen nor ruled out leaves its tag for the post step.
  if (!runId) return tracker.mayHaveUnseenRun ? undefined : tracker.settle()
  if (!tracker.needsCancel) return
  // Briefly, as after a timeout: a cancel that fails leaves the run to the post step.
  logCancel(core, runId, await cancelOwnRun(tracker, runId, { kind: 'error' }, cancelDeps(client)))
}

function cancelDeps(client: AgentRunsClient): CancelDeps {
  return { client, now: Date.now, sleep: abortableSleep, log: core }
}

/** `cancel_only`: cancels the active runs with the name, and starts nothing. */
async function cancelOnlyStep(cleanup: { apiKey: string; baseUrl: string; name: string }) {
  const client = serviceClient(cleanup)
  const cancelled = await cancelPreviousRuns(client, cleanup.name, core)
  core.info(`cancel_only: cancelled ${cancelled} active run(s) named ${cleanup.name}.`)
}

/** What the step watches while it waits: the link, the cap, BLOCKED, progress, signs of life. */
function watcherFor(
  settings: Settings,
  tracker: RunTracker,
  sources: AgentWorkSources,
): RunWatcher {
  // Progress reads find no conversation early in a run: that is not worth a line each time.
  const quiet = { info: core.debug, warning: core.debug, debug: core.debug }
  return new RunWatcher(
    {
      maxCredits: settings.agentWork.maxCredits,
      showProgress: settings.agentWork.showProgress,
      onBlocked: settings.agentWork.onBlocked,
      continueRun: settings.target.kind === 'continue',
    },
    {
      now: Date.now,
      log: core,
      safeForLog,
      readConversation: async (signal, deadline) =>
        tracker.runId
          ? readConversation(tracker.runId, sources, quiet, signal, deadline)
          : undefined,
      onSessionLink: (link) => core.setOutput('session_link', link),
    },
  )
}

/** The review document, once it has validated against the review's schema. */
function reviewOf(checked: CheckedOutput | undefined): ReviewDocument | undefined {
  return checked?.document as ReviewDocument | undefined
}

function reviewContext(run: RunItem): { runId: string; sessionLink?: string } {
  return { runId: run.run_id, sessionLink: run.session_link }
}

/** What the check of the agent's result needs: its reads, and the step's own follow-up path. */
function outputCheckDeps(
  step: PreparedStep,
  startedAt: number,
  stepDeps: StepDeps,
): OutputCheckDeps {
  const { settings, sources } = step
  const signal = () => withinWaits(stepDeps.signal, step.waitsEndBy)
  return {
    schema: (step.output as OutputRequest).schema,
    retries: settings.output.retries,
    deadline: startedAt + settings.timeoutMs,
    now: Date.now,
    log: core,
    readConversation: (runId) => readConversation(runId, sources, core, signal()),
    readFile: async (artifact) =>
      Buffer.from(await sources.fetchFile(artifact, signal())).toString('utf8'),
    followUp: (runId, message, timeoutMs) =>
      executeStep(
        { ...settings, timeoutMs, target: { kind: 'existing', runId, followup: message } },
        stepDeps,
      ),
  }
}
