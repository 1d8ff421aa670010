import { readPostSettings, type PostSettings } from '../inputs/post-step.ts'
import { runStepBody } from '../summary/publish.ts'
import { cancelLeftRun, leftUnfinished, type LeftoverDeps } from '../run/leftover.ts'
import { RunSurfaces } from './run-surfaces.ts'
import { serviceClient } from '../service.ts'
import { SetSurfaces } from './set-surfaces.ts'
import { checkRunLeft, readSavedRun } from '../state.ts'
import type { InputSource, StepIo } from '../step-io.ts'
import type { StoppedSurfaces } from './surfaces.ts'

/**
 * The post step: the cleanup path that works when no signal reached the main
 * step (a hard kill, a container job, a step under `if: always()`). It cancels,
 * in parallel, every run the main step left unfinished (one run's or a set's, one
 * list), looking by its tag for the run of a create it never heard back from,
 * says so where the step showed them, and does nothing otherwise. The runner's world (in its
 * inputs) is read here, once, and handed down with its port.
 */
export async function run(io: StepIo, inputs: InputSource): Promise<void> {
  await runStepBody(io, async () => {
    const saved = readSavedRun(io)
    const left = leftUnfinished(saved, io)
    // Inputs are read only when there is work: a main step that failed on them created nothing.
    if (left.length === 0 && !checkRunLeft(saved)) return
    const settings = readPostSettings(inputs)
    const deps = leftoverDeps(settings, io)
    const ofTheSet = saved.ofSet
    const ended = await Promise.all(left.map((record) => cancelLeftRun(record, deps, { ofTheSet })))
    // Whichever shape the main step showed, one word where it showed it.
    const surfaces: StoppedSurfaces = ofTheSet ? SetSurfaces : RunSurfaces
    await surfaces.showStopped({
      saved,
      ended,
      settings,
      world: inputs.world,
      client: deps.client,
      io,
    })
  })
}

/** A run still being prepared answers 409 for a while; there is time to wait it out here. */
function leftoverDeps(settings: PostSettings, io: StepIo): LeftoverDeps {
  const client = serviceClient(settings, io, { maxRetries: 5 })
  const { setFailed, words } = io
  return { client, log: io, setFailed, leftGoing: words.leftGoing }
}
