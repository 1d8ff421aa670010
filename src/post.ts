import * as core from '@actions/core'
import { AgentRunsClient } from './api/client.ts'
import type { RunItem } from './api/types.ts'
import { loadOctokit } from './github/octokit.ts'
import { openConversation } from './github/setup.ts'
import { CommitStatusReporter, statusContext } from './github/status.ts'
import { readPostSettings, type GitHubSettings } from './inputs.ts'
import { publishError } from './report/publish.ts'
import { cancelRun, describeCancel, logCancel, type CancelReport } from './run/cancel.ts'
import { findRunByInvocation } from './run/create.ts'
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
    if (saved.settled) {
      core.info(
        saved.runId
          ? `Run ${saved.runId} ended or was handed off in the main step; nothing to clean up.`
          : 'The main step created no run; nothing to clean up.',
      )
      return
    }
    if (!saved.runId && !saved.invocation) {
      core.info('The main step created no run; nothing to clean up.')
      return
    }
    const settings = readPostSettings()
    const client = new AgentRunsClient({
      apiKey: settings.apiKey,
      baseUrl: settings.baseUrl,
      userAgent: USER_AGENT,
      // A run still being prepared answers 409 for a while; there is time to wait it out here.
      maxRetries: 5,
      onRetry: (message) => core.info(message),
    })
    const runId = saved.runId ?? (await findUnansweredRun(client, saved.invocation ?? ''))
    if (!runId) return
    core.info(`The main step left run ${runId} unfinished; cancelling it.`)
    const report = await cancelRun(client, runId)
    if (report.kind === 'failed') core.setFailed(describeCancel(runId, report))
    else logCancel(core, runId, report)
    if (saved.commentId && settings.github.comment) {
      await finishComment(client, runId, saved.commentId, settings.github)
    }
    if (saved.statusSha && settings.github.commitStatus) {
      await finishStatus(saved.statusSha, report, settings.github)
    }
  } catch (error) {
    await publishError(error)
  }
}

/** The run a create request made when the main step stopped before its answer came. */
async function findUnansweredRun(
  client: AgentRunsClient,
  invocation: string,
): Promise<string | undefined> {
  core.info('The main step stopped while creating a run; looking for the run it may have made.')
  try {
    const run = await findRunByInvocation(client, invocation)
    if (!run) core.info('No run was made; nothing to clean up.')
    return run?.run_id
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    core.warning(
      `Could not look for a run the main step may have made (${reason}); check for one by hand.`,
    )
    return undefined
  }
}

/** The main step's comment still shows the run in progress; show where it ended. */
async function finishComment(
  client: AgentRunsClient,
  runId: string,
  commentId: number,
  github: GitHubSettings,
): Promise<void> {
  let run: RunItem
  try {
    run = await client.getRun(runId, { maxRetries: 0 })
  } catch {
    return // Without the run's state, the comment is better left as it is than guessed at.
  }
  const conversation = await openConversation(github, core, { commentId })
  if (!conversation) return
  conversation.show(run)
  await conversation.settled()
}

const STOPPED: Record<CancelReport['kind'], string> = {
  cancelled: 'The step stopped before the run ended; the run was cancelled',
  'already-finished': 'The step stopped before it could report the run, which has ended',
  blocked: 'The step stopped while the run waits for a person; a BLOCKED run cannot be cancelled',
  refused: 'The step stopped before the run ended; the service refused the cancel',
  'not-cancellable': 'The step stopped before the run ended; the run cannot be cancelled',
  failed: 'The step stopped before the run ended, and cancelling the run failed',
}

/** The main step's commit status still says pending; say that the step stopped. */
async function finishStatus(sha: string, report: CancelReport, github: GitHubSettings) {
  const [owner = '', repo = ''] = (process.env.GITHUB_REPOSITORY ?? '').split('/')
  const octokit = await loadOctokit(github.token, process.env)
  const status = new CommitStatusReporter(
    octokit,
    { owner, repo, sha, context: statusContext(github.key) },
    core,
  )
  status.show({
    state: 'error',
    description: STOPPED[report.kind],
  })
  await status.settled()
}
