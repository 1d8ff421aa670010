import * as core from '@actions/core'
import { AgentRunsClient } from './api/client.ts'
import { readConnection } from './inputs.ts'
import { publishError } from './report/publish.ts'
import { cancelRun, describeCancel } from './run/cancel.ts'
import { readSavedRun } from './state.ts'
import { USER_AGENT } from './version.ts'

/**
 * The post step: the cleanup path that works when no signal reached the main
 * step (a hard kill, a container job, a step under `if: always()`). It cancels
 * a run the main step left unfinished, and does nothing otherwise.
 */
export async function run(): Promise<void> {
  try {
    const saved = readSavedRun()
    if (!saved.runId) {
      core.info('The main step created no run; nothing to clean up.')
      return
    }
    if (saved.settled) {
      core.info(`Run ${saved.runId} ended or was handed off in the main step; nothing to clean up.`)
      return
    }
    const connection = readConnection()
    const client = new AgentRunsClient({
      ...connection,
      userAgent: USER_AGENT,
      // A run still being prepared answers 409 for a while; there is time to wait it out here.
      maxRetries: 5,
      onRetry: (message) => core.info(message),
    })
    core.info(`The main step left run ${saved.runId} unfinished; cancelling it.`)
    const report = await cancelRun(client, saved.runId)
    const message = describeCancel(saved.runId, report)
    if (report.kind === 'failed') core.setFailed(message)
    else if (report.kind === 'not-cancellable') core.warning(message)
    else core.info(message)
  } catch (error) {
    publishError(error)
  }
}
