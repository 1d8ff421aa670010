import { GitHubContext } from './github/context.ts'
import { githubThread } from './github/handoff.ts'
import type { Connection } from './inputs/connection.ts'
import { homeOf } from './model/home.ts'
import { cancelOnly } from './run/cancel.ts'
import { serviceClient } from './service.ts'
import type { StepIo } from './step-io.ts'
import type { World } from './world.ts'

/**
 * The main step with `cancel_only`: cancels the active runs with the name of the step's project
 * and thread, creates nothing, and sets the output `cancelled` to the IDs it cancelled.
 */
export async function cancelOnlyStep(
  cleanup: Connection & { name: string },
  world: World,
  io: StepIo,
): Promise<void> {
  // The thread is the event's: no GitHub request is needed to read it.
  const home = homeOf(world, githubThread(new GitHubContext('', world)))
  const cancelled = await cancelOnly(serviceClient(cleanup, io), { name: cleanup.name, home }, io)
  io.setOutput('cancelled', JSON.stringify(cancelled))
}
