import * as core from '@actions/core'
import { abortableSleep } from '../api/transport.ts'
import { GitHubContext } from '../github/context.ts'
import { RepositoryDesk } from '../github/handoff.ts'
import { readReconcileSettings, runnerInputs } from '../inputs.ts'
import { publishError } from '../report/publish.ts'
import { publishPass } from '../report/reconcile.ts'
import { readRunnerWorld } from '../runner.ts'
import { serviceClient } from '../service.ts'
import type { World } from '../world.ts'
import { reconcilePass } from './pass.ts'

/**
 * The `reconcile` action's one step: a pass that finishes the comments and
 * commit statuses of detached runs, and sweeps runs left behind by a lost
 * runner. See docs/reconcile.md. The runner's world is read here, once, and handed down.
 */
export async function run(world: World = readRunnerWorld()): Promise<void> {
  try {
    const settings = readReconcileSettings(runnerInputs(world))
    const client = serviceClient(settings)
    const github = new GitHubContext(settings.githubToken, world)
    const desk = await RepositoryDesk.open(github, settings.repository)
    const report = await reconcilePass(settings, {
      client,
      desk,
      now: Date.now,
      sleep: abortableSleep,
      log: core,
    })
    await publishPass(report)
  } catch (error) {
    await publishError(error)
  }
}
