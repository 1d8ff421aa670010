import * as core from '@actions/core'
import { AgentRunsClient, abortableSleep } from './api/client.ts'
import { readSettings } from './inputs.ts'
import { publishError, publishOutcome } from './report/publish.ts'
import { cancelRun, describeCancel } from './run/cancel.ts'
import { onTerminationSignal } from './run/signals.ts'
import { executeStep } from './run/step.ts'
import { RunTracker } from './run/tracker.ts'
import { runnerState } from './state.ts'
import { USER_AGENT } from './version.ts'

/**
 * The runner kills the step 10 s after SIGINT (7.5 s, then SIGTERM, then 2.5 s).
 * The cancel request must be answered well inside what is left.
 */
const CANCEL_BUDGET_MS = { afterInterrupt: 6_500, afterTerminate: 2_000 } as const

/** The main step: create or adopt a run, wait for it, report it. */
export async function run(): Promise<void> {
  const interruption = new AbortController()
  let cancelling: Promise<void> | undefined
  let stopListening = (): void => undefined
  try {
    const settings = readSettings()
    const client = new AgentRunsClient({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      userAgent: USER_AGENT,
      onRetry: (message) => core.info(message),
    })
    const tracker = new RunTracker(runnerState, (runId) => core.setOutput('run_id', runId))

    stopListening = onTerminationSignal((signal) => {
      if (cancelling) {
        core.info(`Received ${signal} again; still cancelling.`)
        return
      }
      interruption.abort()
      cancelling = cancelOnSignal(signal, client, tracker).finally(() => process.exit(1))
    })

    try {
      const outcome = await executeStep(settings, {
        client,
        tracker,
        now: Date.now,
        sleep: abortableSleep,
        signal: interruption.signal,
        log: core,
      })
      if (cancelling) return await cancelling
      await publishOutcome(outcome)
    } catch (error) {
      if (cancelling) return await cancelling
      // A run must not outlive a step that gave up on it.
      const runId = tracker.runId
      if (runId && tracker.needsCancel) {
        const report = await cancelRun(client, runId)
        if (report.kind !== 'failed') tracker.settle()
        core.info(describeCancel(runId, report))
      }
      throw error
    }
  } catch (error) {
    publishError(error)
  } finally {
    stopListening()
  }
}

async function cancelOnSignal(
  signal: NodeJS.Signals,
  client: AgentRunsClient,
  tracker: RunTracker,
): Promise<void> {
  const budgetMs =
    signal === 'SIGTERM' ? CANCEL_BUDGET_MS.afterTerminate : CANCEL_BUDGET_MS.afterInterrupt
  core.info(`Received ${signal}: the workflow is cancelling this step.`)
  // A create request in flight may still return a run, which must then be cancelled too.
  const runId = await tracker.whenKnown(budgetMs / 2)
  if (!runId || !tracker.needsCancel) {
    core.setFailed('The workflow cancelled this step before a run needed cancelling.')
    return
  }
  const report = await cancelRun(client, runId, {
    signal: AbortSignal.timeout(budgetMs),
    timeoutMs: budgetMs,
  })
  if (report.kind !== 'failed') tracker.settle()
  core.setFailed(`The workflow cancelled this step. ${describeCancel(runId, report)}`)
}
