import { GitHubContext } from './github/context.ts'
import { readPostSettings, type InputSource, type PostSettings } from './inputs.ts'
import { publishError } from './report/publish.ts'
import { cancelLeftRun, leftUnfinished, type LeftoverDeps } from './run/leftover.ts'
import { checkRunLeft, finishLeftCheckRun, showRunStopped } from './run-surfaces.ts'
import { readRunnerWorld, runnerInputs, runnerIo } from './runner.ts'
import { serviceClient } from './service.ts'
import { SetSurfaces } from './set-surfaces.ts'
import { readSavedRun, type SavedRun } from './state.ts'
import type { StepIo } from './step-io.ts'

/**
 * The post step: the cleanup path that works when no signal reached the main
 * step (a hard kill, a container job, a step under `if: always()`). It cancels
 * what the main step left unfinished (its run, or a set's runs), says so where
 * the step showed them, and does nothing otherwise. The runner's world (in its
 * inputs) is read here, once, and handed down with its port.
 */
export async function run(
  io: StepIo = runnerIo(),
  inputs: InputSource = runnerInputs(readRunnerWorld(), io),
): Promise<void> {
  try {
    const saved = readSavedRun(io)
    if (saved.setRuns.length > 0) return await cancelSetRuns(saved, io, inputs)
    const unfinished = leftUnfinished(saved, io)
    // Inputs are read only when there is work: a main step that failed on them created nothing.
    if (!unfinished && !checkRunLeft(saved)) return
    const settings = readPostSettings(inputs)
    const github = new GitHubContext(settings.github.token, inputs.world)
    const deps = unfinished ? leftoverDeps(settings, io) : undefined
    const mayRestart = () => saved.awaitingNewPass
    const left = deps && (await cancelLeftRun(saved, deps, { mayRestart }))
    if (left && deps) await showRunStopped(left, saved, settings, github, deps.client, io)
    if (checkRunLeft(saved)) await finishLeftCheckRun(saved, left?.report, settings, github, io)
  } catch (error) {
    await publishError(io, error)
  }
}

/**
 * With `tasks`: cancels, in parallel, every run of the set the main step left
 * unfinished, and looks (by its tag) for the run of every create it never
 * heard back from. Fails the step when a cancel failed.
 */
async function cancelSetRuns(saved: SavedRun, io: StepIo, inputs: InputSource): Promise<void> {
  const left = saved.setRuns.filter((record) => !record.settled)
  if (left.length === 0) {
    io.info('Every run of the set ended or was cancelled in the main step; nothing to clean up.')
    return
  }
  const settings = readPostSettings(inputs)
  const deps = leftoverDeps(settings, io)
  const ended = await Promise.all(
    left.map((record) => cancelLeftRun(record, deps, { ofTheSet: true })),
  )
  const cancelled = ended.filter((one) => one?.report.kind === 'cancelled').length
  await SetSurfaces.showStopped(saved, settings, inputs.world, { cancelled, left: left.length }, io)
}

/** A run still being prepared answers 409 for a while; there is time to wait it out here. */
function leftoverDeps(settings: PostSettings, io: StepIo): LeftoverDeps {
  const client = serviceClient(settings, io, { maxRetries: 5 })
  return { client, log: io, setFailed: (message) => io.setFailed(message) }
}
