import { agentWorkSources } from './agent/sources.ts'
import { withInstruction } from './agent/structured-output.ts'
import type { AgentWorkSources } from './agent/work.ts'
import type { AgentRunsClient } from './api/client.ts'
import { abortableSleep } from './api/transport.ts'
import { admitByApproval } from './approval-step.ts'
import { cancelOnlyStep } from './cancel-only.ts'
import type { GitHubContext } from './github/context.ts'
import { continueSource, githubThread, stepHandoff } from './github/handoff.ts'
import { githubSteering } from './github/compare.ts'
import { mayTalkToAgent, resolveTarget } from './github/setup.ts'
import type { ThreadComment } from './github/keyed-run-comment.ts'
import { readCancelOnly, readSettings, type Settings } from './inputs/main-step.ts'
import { readTaskSettings } from './inputs/task-set.ts'
import type { StepTarget } from './model/step.ts'
import { publishError, publishOutcome, publishOverBudget } from './report/publish.ts'
import { checkCreditBudgets } from './run/budget.ts'
import { runTag } from './run/create.ts'
import { homeOf, type RunHome } from './model/home.ts'
import { gatherAgentWork, withinWaits } from './run/gather.ts'
import { Interruption } from './run/interruption.ts'
import { documentCheck, prepareOutput, reviewed, type OutputRequest } from './run/output.ts'
import { executeStep, type ExecutedRun, type StepDeps } from './run/step.ts'
import { TrackedRuns, type RunTracker } from './run/tracker.ts'
import { stepWatcher, type RunWatcher } from './run/watch.ts'
import { openThread, RunSurfaces } from './run-surfaces.ts'
import { serviceClient } from './service.ts'
import { savedState } from './state.ts'
import type { InputSource, StepIo } from './step-io.ts'
import { runTaskSet } from './tasks.ts'
import { PAST_TIMEOUT_MS } from './timing.ts'
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
 * The runner's world (in its inputs) is read here, once, and handed down with its port;
 * another door hands its own port and inputs.
 */
export async function run(io: StepIo, inputs: InputSource): Promise<MainStepEnd> {
  const tracker = new TrackedRuns(savedState(io)).track((runId) => io.setOutput('run_id', runId))
  const interruption = new Interruption({
    log: io,
    onSignal: (handler) => io.onTerminationSignal(handler),
    exit: (code) => io.exit(code),
    words: io.words,
  })
  // True only once the step steered an active run of its key (previous_run: steer).
  io.setOutput('steered', 'false')
  try {
    await mainStep(inputs, io, tracker, interruption)
    return { hadRun: tracker.runId !== undefined }
  } catch (error) {
    await publishError(io, error, { runId: tracker.runId })
    return { error, hadRun: tracker.runId !== undefined }
  } finally {
    interruption.stopListening()
  }
}

/** Prepare, execute, finish: the outline of one main step. */
async function mainStep(
  inputs: InputSource,
  io: StepIo,
  tracker: RunTracker,
  interruption: Interruption,
): Promise<void> {
  const cleanup = readCancelOnly(inputs)
  if (cleanup) return await cancelOnlyStep(cleanup, inputs.world, io)
  const taskSet = await readTaskSettings(inputs)
  if (taskSet) return await runTaskSet(taskSet, inputs.world, io, interruption)
  const read = readSettings(inputs)
  // A schema that is not one is an input error too: compiled before any request.
  const output = await prepareOutput(read.output)
  const client = serviceClient(read, io)
  // approval: a run that waits for a maintainer's approval creates nothing (the step passes).
  const admitted = await admitByApproval(read, inputs.world, io)
  if (!admitted) return
  const { settings, github } = admitted
  const home = homeOf(inputs.world, githubThread(github))
  const start = { ...inputs, settings, home, io, github, client, tracker, output }
  if (await stopsAtBudget(start)) return
  interruption.listen()
  const step = await prepare(start)
  if (!step) return
  const executed = await execute(step, interruption)
  await finish(step, executed, interruption)
}

/** The credit budgets, before anything is shown or created: past one, the step fails (over_budget). */
async function stopsAtBudget({ settings, home, client, io }: StepStart) {
  if (settings.target.kind === 'existing') return false
  const deps = { now: Date.now, log: io }
  const reached = await checkCreditBudgets(client, settings.budgets, home, deps)
  if (reached) await publishOverBudget(io, reached.message)
  return reached !== undefined
}

/** What the step starts from: its settings and world, GitHub, the service, the run it tracks. */
interface StepStart {
  settings: Settings
  world: World
  /** Where the step's runs belong: its forge, project and thread. */
  home: RunHome
  io: StepIo
  github: GitHubContext
  client: AgentRunsClient
  tracker: RunTracker
  /** output_schema or pull_request_review: what the agent's result must validate against. */
  output: OutputRequest | undefined
  steering?: InputSource['steering']
}

/** What a prepared step has at hand besides: the run's target, its surfaces, what it watches. */
interface PreparedStep extends StepStart {
  target: StepTarget
  /** The thread's comment of this key, when the step keeps one (or replies). */
  thread: ThreadComment | undefined
  surfaces: RunSurfaces
  sources: AgentWorkSources
  watcher: RunWatcher
  /** When every wait on the service must have ended: `timeout` from now, plus PAST_TIMEOUT_MS. */
  waitsEndBy: number
}

/** Reads GitHub's side (who asked, which thread, which commit) and decides the run to act on. */
async function prepare(step: StepStart): Promise<PreparedStep | undefined> {
  const { settings, github, output, io } = step
  // A refused comment starts nothing, and the step passes: the log says why.
  const continuing = settings.target.kind === 'continue'
  if (continuing && !(await mayTalkToAgent(settings.github, github, io))) return undefined
  const thread = await openThread(settings, github, io)
  const asked = output ? withInstruction(settings.target, output.instruction) : settings.target
  const target = await resolveTarget(asked, thread, io)
  const surfaces = await RunSurfaces.open(settings, github, thread, io)
  const sources = agentWorkSources(step.client)
  const onSessionLink = (link: string) => io.setOutput('session_link', link)
  const watcher = stepWatcher(settings, step.tracker, sources, { log: io, onSessionLink })
  const waitsEndBy = Date.now() + settings.timeoutMs + PAST_TIMEOUT_MS
  return { ...step, target, thread, surfaces, sources, watcher, waitsEndBy }
}

/** Creates or adopts the run and waits for it; a signal's cancel, if any, is folded in. */
async function execute(step: PreparedStep, interruption: Interruption): Promise<ExecutedRun> {
  const { settings, client, tracker, surfaces, watcher } = step
  const handoff = stepHandoff(settings, step.home)
  // A newer step steers the run: a workflow that cancels this one for it hands the run over.
  const steering = step.steering ?? githubSteering(step, surfaces.commit?.sha)
  if (settings.previousRun === 'steer') interruption.handsOverWhen(steering.newerStep)
  const { output, sources, waitsEndBy } = step
  const checkResult =
    output &&
    documentCheck(output, {
      sources,
      retries: settings.output.retries,
      deadline: Date.now() + settings.timeoutMs,
      signal: () => withinWaits(interruption.signal, waitsEndBy),
      now: Date.now,
      log: step.io,
    })
  const deps: StepDeps = {
    client,
    tracker,
    now: Date.now,
    sleep: abortableSleep,
    signal: interruption.signal,
    log: watcher.log,
    watch: watcher,
    tag: runTag(step.world, undefined, surfaces.commit?.sha ?? step.home.head, handoff),
    onRunSeen: (run) => surfaces.showRunning(run),
    steer: steering.source,
    continueFrom: continueSource(step.home, step.github, surfaces.commit?.sha ?? step.home.head),
    onSteered: () => step.io.setOutput('steered', 'true'),
    checkResult,
  }
  return executeStep({ ...settings, target: step.target }, deps, interruption)
}

/** Shows the outcome on every surface: the commit status, the comment, outputs and summary. */
async function finish(step: PreparedStep, executed: ExecutedRun, interruption: Interruption) {
  const { settings, surfaces } = step
  const { cancelling } = interruption
  const { outcome, review } = reviewed(executed, settings.output.pullRequestReview)
  surfaces.showEnd({ outcome, newer: executed.newer, cancelling })
  const work = await gatherAgentWork(outcome, {
    settings: settings.agentWork,
    world: step.world,
    sources: step.sources,
    conversation:
      outcome.kind === 'blocked' ? step.watcher.lastConversation : executed.conversation,
    signal: interruption.signal,
    endBy: step.waitsEndBy,
    log: step.io,
  })
  await surfaces.showWork({ answer: work.answer, review })
  await publishOutcome(step.io, outcome, {
    ...work,
    shownAnswer: review?.summary,
    continueRun: settings.target.kind === 'continue',
    structuredOutput: executed.document,
    verdict: review?.verdict,
  })
}
