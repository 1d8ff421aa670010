/**
 * The bundle: both steps' run(), and the reconcile action's, with no side
 * effect on import. The runner starts the step through dist/main.js or
 * dist/post.js (or dist/reconcile.js), tiny entries that scripts/build.ts
 * writes next to it, so the post step knows what it is without any saved state
 * (a job cancelled in its first milliseconds saves none, yet still runs the
 * post step). One bundle serves all because the @actions packages dominate its
 * size, and several bundles would carry them several times.
 */
import { run as mainStep } from './step/main.ts'
import { run as postStep } from './step/post.ts'
import { run as reportStep } from './report/main.ts'
import { run as reconcileStep } from './reconcile/main.ts'
import { runnerDoor, type RunnerProcess } from './runner.ts'
import type { InputSource, StepIo } from './step-io.ts'

/** A step of one of the actions: what it does with its door's port and inputs. */
type ActionStep = (io: StepIo, inputs: InputSource) => Promise<unknown>

/**
 * Every action's entry, as codeql-action's runInActions: the runner's door, read once from the
 * process the entry hands in, then the step, whose failure path is its one wrapper's
 * (runStepBody, src/summary/publish.ts): nothing a step throws reaches the runner unread.
 */
export async function runInActions(host: RunnerProcess, step: ActionStep): Promise<void> {
  const { io, inputs } = runnerDoor(host)
  await step(io, inputs)
}

/** The Action's main step. */
export const runMain = (host: RunnerProcess): Promise<void> => runInActions(host, mainStep)

/** The Action's post step. */
export const runPost = (host: RunnerProcess): Promise<void> => runInActions(host, postStep)

/** The reconcile action's step. */
export const runReconcile = (host: RunnerProcess): Promise<void> =>
  runInActions(host, reconcileStep)

/** The report action's step. */
export const runReport = (host: RunnerProcess): Promise<void> => runInActions(host, reportStep)

export { commandIo, runCli } from './cli/door.ts'
export { keepYoungGenerationSmall } from './heap.ts'
