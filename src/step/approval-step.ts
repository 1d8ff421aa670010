import {
  ApprovalComment,
  type FoundRecord,
  promptDigest,
  renderApproved,
  renderWaiting,
} from '../github/approval-comment.ts'
import { decideApproval, type ApprovalTarget, type Approved } from '../github/approval.ts'
import { CheckRunReporter } from '../github/check-run.ts'
import { GitHubContext } from '../github/context.ts'
import { CommitStatusReporter, oneLine, statusContext } from '../github/status.ts'
import type { Settings } from '../inputs/main-step.ts'
import { approveLine, short, type ApprovalPin } from '../model/approval.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { describeEnding, type AwaitingApproval } from '../model/ending.ts'
import { publishAwaiting } from '../summary/publish.ts'
import { renderAwaitingSummary } from '../summary/summary.ts'
import type { StepIo } from '../step-io.ts'
import type { World } from '../world.ts'

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
      return await startApproved(settings, world, gate.approved, gate.record, io)
    case 'wait': {
      const ending = awaiting(settings, gate.target.pin, { why: gate.why })
      await showWaiting(settings, github, gate, ending, io)
      await publishAwaiting(io, ending)
      return undefined
    }
    case 'refuse':
      return await refuse(settings, gate.target?.pin, gate.reason, io)
  }
}

/** The step's ending while it waits, or when an approval given does not count. */
function awaiting(
  settings: Settings,
  pin: ApprovalPin | undefined,
  facts: { why?: string; refused?: string },
): AwaitingApproval {
  return {
    kind: 'awaiting-approval',
    pin,
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
  pin: ApprovalPin | undefined,
  reason: string,
  io: StepIo,
): Promise<undefined> {
  io.info(`approval: nothing was started: ${reason}.`)
  await publishAwaiting(io, awaiting(settings, pin, { refused: reason }))
  return undefined
}

/** The prompt a run waits with, and starts with once approved. */
function promptOf(settings: Settings): string {
  return settings.target.kind === 'create' ? (settings.target.request.prompt ?? '') : ''
}

/**
 * An approval counts: the key's comment says who approved what, above the run's report to come,
 * and the run starts (on the approved commit, for a pull request) with the prompt that waited
 * (this step's own: a comment's text never reaches it). A step whose prompt is not the one that
 * waited starts nothing. The approval is written even where no step waited: it is the record
 * that this approval admitted its one run, so a later event on the same head or item waits again.
 */
async function startApproved(
  settings: Settings,
  world: World,
  approved: Approved,
  record: FoundRecord | undefined,
  io: StepIo,
): Promise<Admitted | undefined> {
  const { target } = approved
  const head = target.pin.kind === 'commit' ? target.pin.sha : undefined
  const github = new GitHubContext(settings.github.token, world, head)
  const prompt = promptDigest(promptOf(settings))
  if (record?.marker && record.marker.prompt !== prompt) {
    const reason =
      "this step's prompt is not the prompt of the step that waited; give the step a prompt that does not depend on the event (a comment's workflow run has no pull_request payload), or re-run the waiting job"
    return await refuse(settings, target.pin, reason, io)
  }
  const comment = new ApprovalComment(await github.client(), target, settings.github.key, io)
  const body = renderApproved({
    key: settings.github.key,
    target,
    login: approved.login,
    via: approved.via,
    prompt,
    workflowRun: github.workflowRun,
  })
  const recorded = await comment.write(body, 'Nothing was started.', record, 'approved')
  if (!recorded) {
    const reason =
      'the approval could not be recorded on the thread, and unrecorded it could admit more than one run'
    return await refuse(settings, target.pin, reason, io)
  }
  io.info(`approval: ${approved.reason}; starting the run${head ? ` on ${head}` : ''}.`)
  return { settings: pinnedPrompt(settings, target), github }
}

/** The prompt that waited, with what the approval pins it to: the agent works on that. */
function pinnedPrompt(settings: Settings, target: ApprovalTarget): Settings {
  if (settings.target.kind !== 'create') return settings
  const { request } = settings.target
  const { pin } = target
  const pinned =
    pin.kind === 'commit'
      ? `(Approved for commit ${pin.sha} of pull request #${target.number}: work on exactly that commit.)`
      : `(Approved by a maintainer for ${pin.item} as it read when approved.)`
  const prompt = request.prompt ? `${request.prompt}\n\n${pinned}` : pinned
  return { ...settings, target: { kind: 'create', request: { ...request, prompt } } }
}

/**
 * The waiting on the thread: the approval's part of the key's comment (above the report of a run
 * the key showed before, kept as it is), and on a head, the status and check asked for.
 */
async function showWaiting(
  settings: Settings,
  github: GitHubContext,
  gate: { readonly target: ApprovalTarget; readonly fork: boolean; readonly record?: FoundRecord },
  ending: AwaitingApproval,
  io: StepIo,
): Promise<void> {
  const octokit = await github.client()
  const { key, approverPermission } = settings.github
  const { target, fork, record } = gate
  const words = {
    key,
    target,
    why: ending.why,
    fork,
    approverPermission,
    workflowRun: github.workflowRun,
  }
  const body = renderWaiting({ ...words, prompt: promptDigest(promptOf(settings)) })
  const comment = new ApprovalComment(octokit, target, key, io)
  const head = target.pin.kind === 'commit' ? target.pin.sha : undefined
  const at = head && { owner: target.owner, repo: target.repo, sha: head }
  const status =
    at && settings.github.commitStatus
      ? new CommitStatusReporter(octokit, { ...at, context: statusContext(key) }, io)
      : undefined
  status?.show({
    state: OUTCOME_RECORDS.awaiting_approval.commitState,
    description: oneLine(
      `Waiting for approval of ${short(head ?? '')}: ${approveLine(head ?? '')}`,
    ),
    targetUrl: github.workflowRun,
  })
  const check =
    at && settings.output.checkRun
      ? CheckRunReporter.open(octokit, { ...at, key }, io, github.workflowRun)
      : undefined
  const { check: conclusion } = describeEnding(ending)
  await Promise.all([
    comment.write(body, 'Nothing was started.', record),
    status?.settled(),
    check?.finish({ ...conclusion, summary: renderAwaitingSummary(ending) }),
  ])
}
