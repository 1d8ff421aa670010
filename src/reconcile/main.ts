import { abortableSleep } from '../api/transport.ts'
import { GitHubContext } from '../github/context.ts'
import { RepositoryDesk } from '../github/repository-desk.ts'
import { readReconcileSettings } from '../inputs/reconcile.ts'
import { runStepBody } from '../summary/publish.ts'
import { publishPass } from '../summary/reconcile.ts'
import { serviceClient } from '../service.ts'
import type { InputSource, StepIo } from '../step-io.ts'
import { reconcilePass } from './pass.ts'

/**
 * The `reconcile` action's one step: a pass that finishes the comments and
 * commit statuses of detached runs, and sweeps runs left behind by a lost
 * runner. See docs/reconcile.md. The runner's world is read here, once, and handed down.
 */
export async function run(io: StepIo, inputs: InputSource): Promise<void> {
  await runStepBody(io, async () => {
    const settings = readReconcileSettings(inputs)
    const client = serviceClient(settings, io)
    const github = new GitHubContext(settings.githubToken, inputs.world)
    const desk = await RepositoryDesk.open(github, settings.repository)
    const report = await reconcilePass(settings, {
      client,
      desk,
      now: Date.now,
      sleep: abortableSleep,
      log: io,
    })
    await publishPass(io, report)
  })
}
