import { tmpdir } from 'node:os'
import * as core from '@actions/core'
import { agentWorkSources } from './agent/sources.ts'
import { collectAgentWork, readConversation, type AgentWorkSources } from './agent/work.ts'
import { abortableSleep, type AgentRunsClient } from './api/client.ts'
import { serviceClient } from './service.ts'
import type { RunItem } from './api/types.ts'
import { readCancelOnly, readSettings, type Settings } from './inputs.ts'
import type { SummaryExtras } from './report/summary.ts'
import { findSupersedingRun } from './run/superseded.ts'
import { RunWatcher } from './run/watch.ts'
import { safeForLog } from './text/log.ts'
import { publishError, publishOutcome } from './report/publish.ts'
import { cancelPreviousRuns, cancelOwnRun, rereadAfterCancel } from './run/cancel.ts'
import { onTerminationSignal } from './run/signals.ts'
import { isTerminal } from './model/states.ts'
import { RunMayExistError, tagFromEnvironment } from './run/create.ts'
import { CANCEL_AFTER_TIMEOUT, executeStep } from './run/step.ts'
import { commentOutcomeOf, workflowRunUrl } from './github/comment.ts'
import {
  headMovedNote,
  mayTalkToAgent,
  openCommitStatus,
  openConversation,
  resolveTarget,
  resolveWorkCommit,
} from './github/setup.ts'
import { finalStatus, pendingStatus } from './github/status.ts'
import { RunTracker } from './run/tracker.ts'
import { runnerState } from './state.ts'
import { logCancel, type CancelReport } from './model/cancel.ts'
import type { StepOutcome } from './model/step.ts'

/**
 * The runner kills the step 10 s after SIGINT (7.5 s, then SIGTERM, then 2.5 s).
 * The cancel request must be answered well inside what is left.
 */
const CANCEL_BUDGET_MS = { afterInterrupt: 6_500, afterTerminate: 2_000 } as const

/** The main step: create or adopt a run, wait for it, report it. */
export async function run(): Promise<void> {
  const interruption = new AbortController()
  let cancelling: Promise<Interruption> | undefined
  let stopListening = (): void => undefined
  const tracker = new RunTracker(runnerState, (runId) => core.setOutput('run_id', runId))
  try {
    const cleanup = readCancelOnly()
    if (cleanup) return await cancelOnlyStep(cleanup)
    const settings = readSettings()
    const client = serviceClient(settings)

    stopListening = onTerminationSignal((signal) => {
      if (cancelling) {
        core.info(`Received ${signal} again; still cancelling.`)
        return
      }
      interruption.abort()
      cancelling = cancelOwnRunOnSignal(signal, client, tracker)
    })

    const { github } = settings
    const continuing = settings.target.kind === 'continue'
    // A refused comment starts nothing, and the step passes: the log says why.
    if (continuing && !(await mayTalkToAgent(github, core))) return
    const conversation =
      github.comment || continuing
        ? await openConversation(github, core, {
            onCommentCreated: (commentId) => runnerState.saveCommentId(commentId),
            mode: continuing ? 'reply' : 'keyed',
            name:
              settings.target.kind === 'existing'
                ? undefined
                : settings.target.request.config?.name,
          })
        : undefined
    const target = await resolveTarget(settings.target, conversation, core)
    const showInComment = github.comment ? conversation : undefined
    const commit = await resolveWorkCommit(github, core)
    const status = await openCommitStatus(github, commit, core)
    if (status && commit) runnerState.saveStatusSha(commit.sha)
    const workflowRun = workflowRunUrl(process.env)
    const sources = agentWorkSources(client)
    const watcher = watcherFor(settings, tracker, sources)

    let outcome: StepOutcome
    try {
      outcome = await executeStep(
        { ...settings, target },
        {
          client,
          tracker,
          now: Date.now,
          sleep: abortableSleep,
          signal: interruption.signal,
          log: watcher.log,
          watch: watcher,
          tag: tagFromEnvironment(process.env, undefined, commit?.sha),
          onRunSeen: (run) => {
            // The end is shown once the step knows its outcome (timed out, superseded, …), below.
            if (isTerminal(run.state)) return
            showInComment?.show(run)
            status?.show(pendingStatus(run, workflowRun))
          },
        },
      )
    } catch (error) {
      if (!cancelling) {
        await cancelOwnRunAfterError(client, tracker)
        throw error
      }
      // The cancel is the signal handler's; what went wrong meanwhile is still worth telling.
      if (error instanceof RunMayExistError) core.warning(error.message)
      outcome = { kind: 'interrupted', run: undefined }
    }
    if (cancelling) {
      const { signal, cancel } = await cancelling
      const run = await rereadAfterCancel(client, cancel, outcome.run)
      outcome = { kind: 'interrupted', run, signal, cancel }
    }
    let newer: RunItem | undefined
    if (outcome.kind === 'finished') {
      newer = await findSupersedingRun(client, outcome.run, {
        signal: interruption.signal,
        sleep: abortableSleep,
        now: Date.now,
      })
      if (newer) outcome = { ...outcome, supersededBy: newer.run_id }
    }
    // A newer run on the same commit owns the status now: writing ours could cover its pending.
    if (!(newer && newer.metadata?.gh_head_sha === commit?.sha)) {
      status?.show(finalStatus(outcome, workflowRun))
    }
    const commentOutcome = commentOutcomeOf(outcome, continuing)
    // The end at once; the answer and the notes follow once read (one more write, the last).
    if (outcome.run) showInComment?.show(outcome.run, { outcome: commentOutcome })
    // The head is read while the agent's work is: one waits on GitHub, the other on the service.
    const headMoved =
      outcome.run && showInComment && !cancelling ? headMovedNote(github, commit, core) : undefined
    const work = await gatherAgentWork(outcome, settings, sources, watcher, interruption.signal)
    if (outcome.run && showInComment) {
      const moved = await headMoved
      showInComment.show(outcome.run, {
        notes: moved ? [moved] : [],
        answer: work.answer,
        outcome: commentOutcome,
      })
    }
    await Promise.all([showInComment?.settled(), status?.settled()])
    await publishOutcome(outcome, { ...work, continueRun: continuing })
  } catch (error) {
    await publishError(error, { runId: tracker.runId })
  } finally {
    stopListening()
  }
}

interface Interruption {
  signal: NodeJS.Signals
  cancel: CancelReport | undefined
}

/** Sends the cancel request at once, within what the runner leaves before it kills the step. */
async function cancelOwnRunOnSignal(
  signal: NodeJS.Signals,
  client: AgentRunsClient,
  tracker: RunTracker,
): Promise<Interruption> {
  const budgetMs =
    signal === 'SIGTERM' ? CANCEL_BUDGET_MS.afterTerminate : CANCEL_BUDGET_MS.afterInterrupt
  const deadline = Date.now() + budgetMs
  const remaining = () => Math.max(0, deadline - Date.now())
  // Should anything keep the process alive past the budget, end it before the runner's kill.
  setTimeout(() => process.exit(1), budgetMs + 500).unref()
  core.info(`Received ${signal}: the workflow is cancelling this step.`)
  // A create (or its lookup) or a follow-up in flight may yet start or restart a run: let it
  // answer, keeping time for the cancel.
  const runId = await tracker.whenDecided(budgetMs * 0.6)
  if (!runId || !tracker.needsCancel) {
    if (tracker.mayHaveUnseenRun) {
      core.info('The create request has not been answered; the post step will look for its run.')
    }
    return { signal, cancel: undefined }
  }
  const cancelOnce = () =>
    cancelOwnRun(client, tracker, runId, {
      signal: AbortSignal.timeout(remaining()),
      timeoutMs: remaining(),
    })
  let cancel = await cancelOnce()
  // Right after a follow-up, "already finished" may describe the pass before it: the run is
  // about to restart, and the cancel lands once it has.
  while (
    cancel.kind === 'already-finished' &&
    tracker.awaitingNewPass &&
    remaining() > RECANCEL_PAUSE_MS * 2
  ) {
    await abortableSleep(RECANCEL_PAUSE_MS)
    cancel = await cancelOnce()
  }
  if (cancel.kind === 'blocked') logCancel(core, runId, cancel)
  return { signal, cancel }
}

/** The pause between cancels of a run that a follow-up is about to restart. */
const RECANCEL_PAUSE_MS = 250

/**
 * A run must not outlive a step that gave up on it. A step that failed before
 * it knew of a run made none, unless a create's answer was lost and its run
 * not found: then the state keeps the create's tag for the post step.
 */
async function cancelOwnRunAfterError(client: AgentRunsClient, tracker: RunTracker): Promise<void> {
  const runId = tracker.runId
  // A create whose run was neither seen nor ruled out leaves its tag for the post step.
  if (!runId) return tracker.mayHaveUnseenRun ? undefined : tracker.settle()
  if (!tracker.needsCancel) return
  // Briefly, as after a timeout: a cancel that fails leaves the run to the post step.
  const report = await cancelOwnRun(client, tracker, runId, {
    timeoutMs: CANCEL_AFTER_TIMEOUT.timeoutMs,
    deadline: Date.now() + CANCEL_AFTER_TIMEOUT.budgetMs,
  })
  logCancel(core, runId, report)
}

/** `cancel_only`: cancels the active runs with the name, and starts nothing. */
async function cancelOnlyStep(cleanup: { apiKey: string; baseUrl: string; name: string }) {
  const client = serviceClient(cleanup)
  const cancelled = await cancelPreviousRuns(client, cleanup.name, core)
  core.info(`cancel_only: cancelled ${cancelled} active run(s) named ${cleanup.name}.`)
}

/** What the step watches while it waits: the link, the cap, BLOCKED, progress, signs of life. */
function watcherFor(
  settings: Settings,
  tracker: RunTracker,
  sources: AgentWorkSources,
): RunWatcher {
  // Progress reads find no conversation early in a run: that is not worth a line each time.
  const quiet = { info: core.debug, warning: core.debug, debug: core.debug }
  return new RunWatcher(
    {
      maxCredits: settings.agentWork.maxCredits,
      showProgress: settings.agentWork.showProgress,
      onBlocked: settings.agentWork.onBlocked,
      continueRun: settings.target.kind === 'continue',
    },
    {
      now: Date.now,
      log: core,
      safeForLog,
      readConversation: async (signal) =>
        tracker.runId ? readConversation(tracker.runId, sources, quiet, signal) : undefined,
      onSessionLink: (link) => core.setOutput('session_link', link),
    },
  )
}

/** Reading the answer and downloading files after the run: a bounded time, never the outcome. */
const AGENT_WORK_DEADLINE_MS = 5 * 60_000

/**
 * The agent's answer and files, once the run has ended, been cancelled by the
 * step, or been handed to a person at BLOCKED. Nothing here changes the outcome.
 */
async function gatherAgentWork(
  outcome: StepOutcome,
  settings: Settings,
  sources: AgentWorkSources,
  watcher: RunWatcher,
  signal: AbortSignal,
): Promise<SummaryExtras> {
  const ended =
    outcome.kind === 'finished' ||
    outcome.kind === 'blocked' ||
    outcome.kind === 'timed-out' ||
    outcome.kind === 'over-budget'
  if (!ended) return {}
  return collectAgentWork(
    outcome.run,
    {
      downloadPatterns: settings.agentWork.downloadPatterns,
      artifactsDir: settings.agentWork.artifactsDir,
      runnerTemp: process.env.RUNNER_TEMP || tmpdir(),
      conversation: outcome.kind === 'blocked' ? watcher.lastConversation : undefined,
    },
    sources,
    { info: core.info, warning: core.warning, debug: core.debug, safeForLog },
    AbortSignal.any([signal, AbortSignal.timeout(AGENT_WORK_DEADLINE_MS)]),
  )
}
