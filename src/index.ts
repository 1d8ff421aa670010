/**
 * The bundle: both steps' run(), and the reconcile action's, with no side
 * effect on import. The runner starts the step through dist/main.js or
 * dist/post.js (or dist/reconcile.js), tiny entries that scripts/build.ts
 * writes next to it, so the post step knows what it is without any saved state
 * (a job cancelled in its first milliseconds saves none, yet still runs the
 * post step). One bundle serves all because the @actions packages dominate its
 * size, and several bundles would carry them several times.
 */
import { run as mainStep } from './main.ts'
import { run as postStep } from './post.ts'
import { run as reportStep } from './ledger/main.ts'
import { run as reconcileStep } from './reconcile/main.ts'
import { runnerDoor, type RunnerProcess } from './runner.ts'

/** The Action's main step, with the process its entry hands in (the door reads it once). */
export async function runMain(host: RunnerProcess): Promise<void> {
  const { io, inputs } = runnerDoor(host)
  await mainStep(io, inputs)
}

/** The Action's post step, with the process its entry hands in. */
export async function runPost(host: RunnerProcess): Promise<void> {
  const { io, inputs } = runnerDoor(host)
  await postStep(io, inputs)
}

/** The reconcile action's step, with the process its entry hands in. */
export async function runReconcile(host: RunnerProcess): Promise<void> {
  const { io, inputs } = runnerDoor(host)
  await reconcileStep(io, inputs)
}

/** The report action's step, with the process its entry hands in. */
export async function runReport(host: RunnerProcess): Promise<void> {
  const { io, inputs } = runnerDoor(host)
  await reportStep(io, inputs)
}

export { commandIo, runCli } from './cli.ts'
