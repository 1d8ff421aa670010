import { cancelOnlyStep } from './cancel-only.ts'
import { githubThread } from '../github/handoff.ts'
import { readCancelOnly, readSettings } from '../inputs/main-step.ts'
import { readTaskSettings } from '../inputs/task-set.ts'
import { homeOf } from '../model/home.ts'
import { publishOverBudget, runStepBody } from '../summary/publish.ts'
import { checkCreditBudgets, type BudgetCheck, type SpendLimits } from '../run/budget.ts'
import { Interruption } from '../run/interruption.ts'
import { TrackedRuns, type RunTracker } from '../run/tracker.ts'
import { serviceClient } from '../service.ts'
import { savedState } from '../state.ts'
import type { InputSource, StepIo } from '../step-io.ts'
import { oneRunShape } from './one-run.ts'
import type { EndedStep, StepShape, StepStart } from './shape.ts'
import { taskSetShape } from './task-set.ts'
/** How the main step ended, for a door that answers for it (the command line's exit code). */
export interface MainStepEnd {
  /** The error the step failed on before its run had an outcome; undefined otherwise. */
  readonly error?: unknown
  /** Whether the step had created or adopted a run when it ended. */
  readonly hadRun: boolean
  /** A set's: every create failed because the service could not be reached or refused the key. */
  readonly unreachable?: boolean
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
    const ended = await runStepBody(
      io,
      () => mainStep(inputs, io, tracker, interruption),
      () => ({ runId: tracker.runId }),
    )
    const hadRun = tracker.runId !== undefined
    if ('error' in ended) return { error: ended.error, hadRun }
    return { hadRun, unreachable: ended.value?.unreachable === true }
  } finally {
    interruption.stopListening()
  }
}

/** Prepare, execute, finish: the one outline of a main step, whatever its shape. */
async function mainStep(
  inputs: InputSource,
  io: StepIo,
  tracker: RunTracker,
  interruption: Interruption,
): Promise<EndedStep | undefined> {
  const cleanup = readCancelOnly(inputs)
  if (cleanup) return void (await cancelOnlyStep(cleanup, inputs.world, io))
  const shape = await readShape(inputs)
  const client = serviceClient(shape.settings, io)
  const admitted = await shape.admit(inputs.world, io)
  if (!admitted) return undefined
  const { github } = admitted
  const home = homeOf(inputs.world, githubThread(github))
  const start = {
    world: inputs.world,
    steering: inputs.steering,
    home,
    io,
    github,
    client,
    tracker,
  }
  const limits = { ...shape.settings.budgets, maxCredits: shape.settings.agentWork.maxCredits }
  const budget = admitted.creates ? await checkBudgets(limits, start) : { caps: [] }
  if (budget.reached) return undefined
  interruption.listen()
  const step = await admitted.prepare({
    ...start,
    budgetCaps: budget.caps,
  })
  if (!step) return undefined
  const ended = await step.execute(interruption)
  await ended.finish()
  return ended
}

/** The step's shape: a set with `tasks`, else one run. Either compiles its schemas first. */
async function readShape(inputs: InputSource): Promise<StepShape> {
  const set = await readTaskSettings(inputs)
  return set ? await taskSetShape(set) : await oneRunShape(readSettings(inputs))
}

/**
 * The credit budgets, before anything is shown or created: past one, the step fails
 * (over_budget); under them, what they have left caps the step's runs.
 */
async function checkBudgets(
  budgets: SpendLimits,
  { home, client, io }: StepStart,
): Promise<BudgetCheck> {
  const deps = { now: Date.now, log: io }
  const check = await checkCreditBudgets(client, budgets, home, deps)
  if (check.reached) await publishOverBudget(io, check.reached.message)
  return check
}
