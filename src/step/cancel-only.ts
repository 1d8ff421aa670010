import { GitHubContext } from '../github/context.ts'
import { githubThread } from '../github/handoff.ts'
import type { CancelOnly } from '../inputs/main-step.ts'
import { homeOf } from '../model/home.ts'
import { cancelCampaign, cancelOnly, cancelRunThatMade } from '../run/cancel.ts'
import { serviceClient } from '../service.ts'
import type { StepIo } from '../step-io.ts'
import type { World } from '../world.ts'

/** How long finding and cancelling the run that made the pull request may take. */
const CANCEL_DEADLINE_MS = 60_000

/**
 * The main step with `cancel_only`: cancels the active runs with the name of the step's project
 * and thread (and with `campaign`, the campaign's working runs), creates nothing, and sets the
 * output `cancelled` to the IDs it cancelled.
 */
export async function cancelOnlyStep(cleanup: CancelOnly, world: World, io: StepIo): Promise<void> {
  // The thread is the event's: no GitHub request is needed to read it.
  const home = homeOf(world, githubThread(new GitHubContext('', world)))
  const client = serviceClient(cleanup, io)
  const cancelled = cleanup.name ? await cancelOnly(client, { name: cleanup.name, home }, io) : []
  if (cleanup.madeThePullRequest) {
    const made = await cancelRunThatMade(client, home, io, Date.now() + CANCEL_DEADLINE_MS)
    if (made && !cancelled.includes(made)) cancelled.push(made)
  }
  if (cleanup.campaign) {
    const deadline = Date.now() + CANCEL_DEADLINE_MS
    for (const runId of await cancelCampaign(client, cleanup.campaign, io, { deadline })) {
      if (!cancelled.includes(runId)) cancelled.push(runId)
    }
  }
  io.setOutput('cancelled', JSON.stringify(cancelled))
}
