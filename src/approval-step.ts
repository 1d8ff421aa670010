import {
  ApprovalComment,
  promptDigest,
  renderApproved,
  renderWaiting,
} from './github/approval-comment.ts'
import { decideApproval, type ApprovalPull, type Approved } from './github/approval.ts'
import { CheckRunReporter } from './github/check-run.ts'
import { reasonOf } from './github/octokit.ts'
import { GitHubContext } from './github/context.ts'
import { CommitStatusReporter, oneLine, statusContext } from './github/status.ts'
import type { Settings } from './inputs/main-step.ts'
import { approvalAfterWait, approveLine, short } from './model/approval.ts'
import { OUTCOME_RECORDS } from './model/outcome.ts'
import { describeEnding, type AwaitingApproval } from './model/ending.ts'
import { publishAwaiting } from './report/publish.ts'
import { renderAwaitingSummary } from './report/summary.ts'
import type { StepIo } from './step-io.ts'
import type { World } from './world.ts'

/** The step admitted by `approval`: its settings and GitHub, pinned to the approved head if one. */
export interface Admitted {
  readonly settings: Settings
  readonly github: GitHubContext
}

/**
 * `approval` (v1.4): whether the step may create its run. Waiting, it creates nothing, shows on
 * the pull request who may approve (the comment, a pending commit status, a check run that
 * asks for action) and passes with `awaiting_approval`; an approval that does not count starts
 * nothing either. Approved, the run works on the approved head, with the prompt that waited.
 * Undefined when the step stops here.
 */
export async function admitByApproval(
  settings: Settings,
  world: World,
  io: StepIo,
): Promise<Admitted | undefined> {
  const github = new GitHubContext(settings.github.token, world)
  const gate = await decideApproval(settings.github, github, io)
  switch (gate.kind) {
    case 'start':
      if (!gate.approved) return { settings, github }
      return await startApproved(settings, world, gate.approved, io)
    case 'wait': {
      const ending = awaiting(settings, gate.pull.head, { why: gate.why })
      await showWaiting(settings, github, gate.pull, ending, io)
      await publishAwaiting(io, ending)
      return undefined
    }
    case 'refuse':
      return await refuse(settings, gate.pull?.head, gate.reason, io)
  }
}

/** The step's ending while it waits, or when an approval given does not count. */
function awaiting(
  settings: Settings,
  head: string | undefined,
  facts: { why?: string; refused?: string },
): AwaitingApproval {
  return {
    kind: 'awaiting-approval',
    head,
    why:
      facts.why ??
      `the run needs a maintainer's approval (\`approval: ${settings.github.approval}\`)`,
    approverPermission: settings.github.approverPermission,
    ...(facts.refused ? { refused: facts.refused } : {}),
  }
}

/** An approval that does not count, or a question GitHub did not answer: nothing starts. */
async function refuse(
  settings: Settings,
  head: string | undefined,
  reason: string,
  io: StepIo,
): Promise<undefined> {
  io.info(`approval: nothing was started: ${reason}.`)
  await publishAwaiting(io, awaiting(settings, head, { refused: reason }))
  return undefined
}

/** The prompt a run waits with, and starts with once approved. */
function promptOf(settings: Settings): string {
  return settings.target.kind === 'create' ? (settings.target.request.prompt ?? '') : ''
}

/**
 * An approval counts: the waiting comment says who approved which commit, and the run starts
 * on that commit, with the prompt that waited (this step's own: a comment's text never reaches
 * it). A step whose prompt is not the one that waited starts nothing.
 */
async function startApproved(
  settings: Settings,
  world: World,
  approved: Approved,
  io: StepIo,
): Promise<Admitted | undefined> {
  const { pull } = approved
  const github = new GitHubContext(settings.github.token, world, pull.head)
  const prompt = promptDigest(promptOf(settings))
  const comment = new ApprovalComment(await github.client(), pull, settings.github.key, io)
  let waiting: Awaited<ReturnType<ApprovalComment['find']>>
  try {
    waiting = await comment.find()
  } catch (error) {
    const reason = `the waiting comment could not be read (${reasonOf(error)})`
    return await refuse(settings, pull.head, reason, io)
  }
  if (waiting && waiting.marker.prompt !== prompt) {
    const reason =
      "this step's prompt is not the prompt of the step that waited; give the step a prompt that does not depend on the event (a comment's workflow run has no pull_request payload)"
    return await refuse(settings, pull.head, reason, io)
  }
  // A comment's few characters of a SHA count only for the head that waited, after it waited.
  const record = waiting && { head: waiting.marker.head, writtenAt: waiting.writtenAt }
  const late = approved.via === 'comment' && approvalAfterWait(approved, pull.head, record)
  if (late) return await refuse(settings, pull.head, late, io)
  io.info(`approval: ${approved.reason}; starting the run on ${pull.head}.`)
  if (waiting) {
    const body = renderApproved({
      key: settings.github.key,
      head: pull.head,
      login: approved.login,
      via: approved.via,
      prompt,
      workflowRun: github.workflowRun,
    })
    await comment.write(body, 'The run starts all the same.', waiting)
  }
  return { settings: pinnedPrompt(settings, pull), github }
}

/** The prompt that waited, with the commit the approval pins it to: the agent works on that one. */
function pinnedPrompt(settings: Settings, pull: ApprovalPull): Settings {
  if (settings.target.kind !== 'create') return settings
  const { request } = settings.target
  const pin = `(Approved for commit ${pull.head} of pull request #${pull.number}: work on exactly that commit.)`
  const prompt = request.prompt ? `${request.prompt}\n\n${pin}` : pin
  return { ...settings, target: { kind: 'create', request: { ...request, prompt } } }
}

/** The waiting on the pull request: the comment, and with them asked for, the status and check. */
async function showWaiting(
  settings: Settings,
  github: GitHubContext,
  pull: ApprovalPull,
  ending: AwaitingApproval,
  io: StepIo,
): Promise<void> {
  const octokit = await github.client()
  const { key, approverPermission } = settings.github
  const words = { key, pull, why: ending.why, approverPermission, workflowRun: github.workflowRun }
  const body = renderWaiting({ ...words, prompt: promptDigest(promptOf(settings)) })
  const comment = new ApprovalComment(octokit, pull, key, io)
  const target = { owner: pull.owner, repo: pull.repo, sha: pull.head }
  const status = settings.github.commitStatus
    ? new CommitStatusReporter(octokit, { ...target, context: statusContext(key) }, io)
    : undefined
  status?.show({
    state: OUTCOME_RECORDS.awaiting_approval.commitState,
    description: oneLine(`Waiting for approval of ${short(pull.head)}: ${approveLine(pull.head)}`),
    targetUrl: github.workflowRun,
  })
  const check = settings.output.checkRun
    ? CheckRunReporter.open(octokit, { ...target, key }, io, github.workflowRun)
    : undefined
  const { check: conclusion } = describeEnding(ending)
  await Promise.all([
    comment.write(body, 'Nothing was started.'),
    status?.settled(),
    check?.finish({ ...conclusion, summary: renderAwaitingSummary(ending) }),
  ])
}
