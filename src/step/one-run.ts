import { limitsTag, type StepLimits } from '../model/limits.ts'
import type { Amount } from '../model/money.ts'
import { bindingCaps, maxCreditsCap } from '../model/spend-cap.ts'
import { agentWorkSources } from '../agent/sources.ts'
import type { AgentWorkSources } from '../agent/work.ts'
import { abortableSleep } from '../api/transport.ts'
import { admitByApproval } from './approval-step.ts'
import { githubSteering } from '../github/compare.ts'
import type { GitHubContext } from '../github/context.ts'
import { continueSource, stepHandoff } from '../github/handoff.ts'
import type { ThreadComment } from '../github/keyed-run-comment.ts'
import { mayTalkToAgent, resolveTarget } from '../github/setup.ts'
import type { Settings } from '../inputs/main-step.ts'
import type { StepTarget } from '../model/step.ts'
import { publishOutcome } from '../summary/publish.ts'
import { runTag } from '../run/create.ts'
import { gatherAgentWork } from '../run/gather.ts'
import type { Interruption } from '../run/interruption.ts'
import {
  documentCheck,
  prepareOutput,
  reviewed,
  withInstruction,
  type OutputRequest,
} from '../run/output.ts'
import { executeStep, type ExecutedRun, type StepDeps } from '../run/step.ts'
import { stepWatcher, type RunWatcher } from '../run/watch.ts'
import { openThread, RunSurfaces } from './run-surfaces.ts'
import { PAST_TIMEOUT_MS } from '../timing.ts'
import type { AdmittedStep, EndedStep, PreparedStep, StepShape, StepStart } from './shape.ts'

/**
 * The main step's shape with one run: `prompt` (or `prompt_file`), `run_id` with `followup`, or
 * `continue_run`. Its output schema is compiled here, before any request: a schema that is not
 * one is an input error too.
 */
export async function oneRunShape(read: Settings): Promise<StepShape> {
  const output = await prepareOutput(read.output)
  return {
    settings: read,
    async admit(world, io) {
      // approval: a run that waits for a maintainer's approval creates nothing (the step passes).
      const admitted = await admitByApproval(read, world, io)
      return admitted && admittedRun(admitted.settings, admitted.github, output)
    },
  }
}

function admittedRun(
  settings: Settings,
  github: GitHubContext,
  output: OutputRequest | undefined,
): AdmittedStep {
  return {
    github,
    creates: settings.target.kind !== 'existing',
    prepare: (start) => prepare({ ...start, settings, output }),
  }
}

/** What the run's step starts from: the outline's start, its settings and its output. */
interface RunStart extends StepStart {
  readonly settings: Settings
  /** output_schema or pull_request_review: what the agent's result must validate against. */
  readonly output: OutputRequest | undefined
}

/** What a prepared run has at hand besides: its target, its surfaces, what it watches. */
interface PreparedRun extends RunStart {
  readonly target: StepTarget
  /** The thread's comment of this key, when the step keeps one (or replies). */
  readonly thread: ThreadComment | undefined
  readonly surfaces: RunSurfaces
  readonly sources: AgentWorkSources
  readonly watcher: RunWatcher
  /** When every wait on the service must have ended: `timeout` from now, plus PAST_TIMEOUT_MS. */
  readonly waitsEndBy: number
}

/** Reads GitHub's side (who asked, which thread, which commit) and decides the run to act on. */
async function prepare(step: RunStart): Promise<PreparedStep | undefined> {
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
  const prepared = { ...step, target, thread, surfaces, sources, watcher, waitsEndBy }
  return {
    execute: async (interruption) => {
      const executed = await execute(prepared, interruption)
      return { finish: () => finish(prepared, executed, interruption) } satisfies EndedStep
    },
  }
}

/** Creates or adopts the run and waits for it; a signal's cancel, if any, is folded in. */
async function execute(step: PreparedRun, interruption: Interruption): Promise<ExecutedRun> {
  const { settings, client, tracker, surfaces, watcher, output, sources } = step
  const handoff = stepHandoff(settings, step.home)
  // A newer step steers the run: a workflow that cancels this one for it hands the run over.
  const steering = step.steering ?? githubSteering(step, surfaces.commit?.sha)
  if (settings.previousRun === 'steer') interruption.handsOverWhen(steering.newerStep)
  const checkResult =
    output &&
    documentCheck(output, {
      sources,
      retries: settings.output.retries,
      deadline: Date.now() + settings.timeoutMs,
      signal: interruption.signal,
      now: Date.now,
      log: step.io,
    })
  const head = surfaces.commit?.sha ?? step.home.head
  const deps: StepDeps = {
    client,
    tracker,
    now: Date.now,
    sleep: abortableSleep,
    signal: interruption.signal,
    log: watcher.log,
    watch: watcher,
    tag: runTag(step.world, undefined, head, {
      ...handoff,
      ...limitsTag(limitsOf(settings, step)),
    }),
    onProgress: (runs) => surfaces.showRunning(runs),
    steer: steering.source,
    continueFrom: continueSource(step.home, head),
    onSteered: () => step.io.setOutput('steered', 'true'),
    checkResult,
    ...(step.budgetCaps ? { budgetCaps: step.budgetCaps } : {}),
  }
  return executeStep({ ...settings, target: step.target }, deps, interruption)
}

/** Shows the outcome on every surface: the commit status, the comment, outputs and summary. */
async function finish(step: PreparedRun, executed: ExecutedRun, interruption: Interruption) {
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

/**
 * The step's limits, for the run's tag: the deadline when the step awaits the run, and the cap
 * it stops the run at (max_credits, or what a budget had left).
 */
function limitsOf(
  settings: { wait: boolean; timeoutMs: number; agentWork: { maxCredits: Amount | undefined } },
  step: Pick<StepStart, 'budgetCaps'>,
): StepLimits {
  const caps = bindingCaps(maxCreditsCap(settings.agentWork.maxCredits), ...(step.budgetCaps ?? []))
  const credits = caps.find((cap) => cap.amount.unit === 'credits')
  const usd = caps.find((cap) => cap.amount.unit === 'usd')
  return {
    ...(settings.wait ? { deadline: new Date(Date.now() + settings.timeoutMs).toISOString() } : {}),
    ...(credits ? { cap: credits.amount.value } : {}),
    ...(usd ? { capUsd: usd.amount.value } : {}),
  }
}
