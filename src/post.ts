import * as core from '@actions/core'
import { GitHubContext } from './github/context.ts'
import { readPostSettings, runnerInputs, type PostSettings } from './inputs.ts'
import { publishError } from './report/publish.ts'
import { cancelLeftRun, leftUnfinished, type LeftoverDeps } from './run/leftover.ts'
import { checkRunLeft, finishLeftCheckRun, showRunStopped } from './run-surfaces.ts'
import { readRunnerWorld } from './runner.ts'
import { serviceClient } from './service.ts'
import { SetSurfaces } from './set-surfaces.ts'
import { readSavedRun, type SavedRun } from './state.ts'
import type { World } from './world.ts'

/**
 * The post step: the cleanup path that works when no signal reached the main
 * step (a hard kill, a container job, a step under `if: always()`). It cancels
 * what the main step left unfinished (its run, or a set's runs), says so where
 * the step showed them, and does nothing otherwise. The runner's world is read
 * here, once, and handed down.
 */
export async function run(world: World = readRunnerWorld()): Promise<void> {
  try {
    const saved = readSavedRun()
    if (saved.setRuns.length > 0) return await cancelSetRuns(saved, world)
    const unfinished = leftUnfinished(saved, core)
    // Inputs are read only when there is work: a main step that failed on them created nothing.
    if (!unfinished && !checkRunLeft(saved)) return
    const settings = readPostSettings(runnerInputs(world))
    const github = new GitHubContext(settings.github.token, world)
    const deps = unfinished ? leftoverDeps(settings) : undefined
    const mayRestart = () => saved.awaitingNewPass
    const left = deps && (await cancelLeftRun(saved, deps, { mayRestart }))
    if (left && deps) await showRunStopped(left, saved, settings, github, deps.client)
    if (checkRunLeft(saved)) await finishLeftCheckRun(saved, left?.report, settings, github)
  } catch (error) {
    await publishError(error)
  }
}

/**
 * With `tasks`: cancels, in parallel, every run of the set the main step left
 * unfinished, and looks (by its tag) for the run of every create it never
 * heard back from. Fails the step when a cancel failed.
 */
async function cancelSetRuns(saved: SavedRun, world: World): Promise<void> {
  const left = saved.setRuns.filter((record) => !record.settled)
  if (left.length === 0) {
    core.info('Every run of the set ended or was cancelled in the main step; nothing to clean up.')
    return
  }
  const settings = readPostSettings(runnerInputs(world))
  const deps = leftoverDeps(settings)
  const ended = await Promise.all(
    left.map((record) => cancelLeftRun(record, deps, { ofTheSet: true })),
  )
  const cancelled = ended.filter((one) => one?.report.kind === 'cancelled').length
  await SetSurfaces.showStopped(saved, settings, world, { cancelled, left: left.length })
}

/** A run still being prepared answers 409 for a while; there is time to wait it out here. */
function leftoverDeps(settings: PostSettings): LeftoverDeps {
  const client = serviceClient(settings, { maxRetries: 5 })
  return { client, log: core, setFailed: core.setFailed }
}
