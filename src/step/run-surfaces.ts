import type { ReviewDocument } from '../agent/review-document.ts'
import type { AgentRunsClient } from '../api/client.ts'
import type { RunItem } from '../api/types.ts'
import {
  annotationsOf,
  checkReport,
  stoppedCheckReport,
  type CheckRunReporter,
} from '../github/check-run.ts'
import { commentOutcomeOf } from '../github/comment.ts'
import { GitHubContext } from '../github/context.ts'
import {
  headMovedNote,
  finishLeftCheckRun,
  openCommitSurfaces,
  openCommitStatus,
  openThreadComment,
  postPullRequestReview,
  resolveWorkCommit,
  type WorkCommit,
} from '../github/setup.ts'
import { finalStatus, pendingStatus, type CommitStatusReporter } from '../github/status.ts'
import type { ThreadComment } from '../github/keyed-run-comment.ts'
import type { Settings } from '../inputs/main-step.ts'
import type { CancelReport } from '../model/cancel.ts'
import type { RunRecord } from '../model/record.ts'
import { isTerminal } from '../model/states.ts'
import type { StepOutcome } from '../model/step.ts'
import { checkRunLeft, savedState } from '../state.ts'
import type { StepIo } from '../step-io.ts'
import { type StepStopped, type StepSurfaces, type StoppedSurfaces } from './surfaces.ts'

/**
 * The thread's comment, opened before the run is decided: the run's own (`comment`), or, with
 * `continue_run`, the one that replies to a person's comment.
 */
export async function openThread(
  settings: Settings,
  github: GitHubContext,
  io: StepIo,
): Promise<ThreadComment | undefined> {
  const continuing = settings.target.kind === 'continue'
  if (!settings.github.comment && !continuing) return undefined
  return openThreadComment(settings.github, github, io, {
    onCommentChosen: (commentId) => savedState(io).saveCommentId(commentId),
    mode: continuing ? 'reply' : 'keyed',
    name: settings.target.kind === 'existing' ? undefined : settings.target.request.config?.name,
  })
}

/** What the end of a run brings to its surfaces once the agent's work is read. */
export interface RunWork {
  readonly answer: string | undefined
  /** pull_request_review: the review, once it has validated. */
  readonly review: ReviewDocument | undefined
}

/** The end of one run, as the step knows it: its outcome, and the run that superseded it. */
export interface RunEnd {
  readonly outcome: StepOutcome
  readonly newer: RunItem | undefined
  /** The step cancels the run on a signal: no review, no read of the pull request's head. */
  readonly cancelling: boolean
}

/**
 * Where one run shows on GitHub besides the log: its comment, its commit status and its check
 * run. Opened before the run starts, shown at each change while it goes, then at its end: the
 * end at once, the agent's answer and the notes once read.
 */
export class RunSurfaces implements StepSurfaces<RunEnd, RunWork> {
  readonly #settings: Settings
  readonly #github: GitHubContext
  readonly #io: StepIo
  readonly #comment: ThreadComment | undefined
  readonly #status: CommitStatusReporter | undefined
  readonly #checkRun: CheckRunReporter | undefined
  #headMoved: Promise<string | undefined> | undefined
  #end: RunEnd | undefined
  /** The run as last shown going: its ID, state and session link. */
  #lastSeen: string | undefined
  /** The commit the run works on: the pull request's head, else the event's. */
  readonly commit: WorkCommit | undefined

  private constructor(
    settings: Settings,
    github: GitHubContext,
    io: StepIo,
    parts: Pick<RunSurfaces, 'commit'> & {
      comment: ThreadComment | undefined
      status: CommitStatusReporter | undefined
      checkRun: CheckRunReporter | undefined
    },
  ) {
    this.#settings = settings
    this.#github = github
    this.#io = io
    this.#comment = parts.comment
    this.#status = parts.status
    this.#checkRun = parts.checkRun
    this.commit = parts.commit
  }

  /** The commit status and the check run; `thread` is the run's comment when `comment` is on. */
  static async open(
    settings: Settings,
    github: GitHubContext,
    thread: ThreadComment | undefined,
    io: StepIo,
  ): Promise<RunSurfaces> {
    const commit = await resolveWorkCommit(github, io)
    const { status, checkRun } = await openCommitSurfaces(
      settings.github,
      settings.output.checkRun,
      github,
      commit,
      io,
      savedState(io),
    )
    const comment = settings.github.comment ? thread : undefined
    if (commit) comment?.workOn(commit.sha)
    return new RunSurfaces(settings, github, io, { commit, comment, status, checkRun })
  }

  /**
   * The run on its way, shown when it first is and at each change of its state or session link;
   * its end is shown once the step knows its outcome (timed out, …).
   */
  showRunning([record]: readonly RunRecord[]): void {
    const run = record?.run
    // Once the end is shown, a poll's late answer never shows the run going again.
    if (!run || isTerminal(run.state) || this.#end) return
    const seen = `${run.run_id} ${run.state} ${run.session_link ?? ''}`
    if (seen === this.#lastSeen) return
    this.#lastSeen = seen
    this.#comment?.show(run)
    this.#status?.show(pendingStatus(run, this.#github.workflowRun))
  }

  /**
   * The end at once, on the commit status and the comment; the pull request's head is read
   * meanwhile, for the comment's note. `newer`: the run that superseded this one, if any.
   */
  showEnd(end: RunEnd): void {
    const { outcome, newer, cancelling } = end
    this.#end = end
    // A newer run on the same commit owns the status now: writing ours could cover its pending.
    if (!(newer && newer.metadata?.gh_head_sha === this.commit?.sha)) {
      this.#status?.show(finalStatus(outcome, this.#github.workflowRun), true)
    }
    if (!outcome.run || !this.#comment) return
    this.#comment.show(outcome.run, { outcome: this.#commentOutcome(outcome) })
    if (!cancelling) this.#headMoved = headMovedNote(this.#github, this.commit, this.#io)
  }

  /** The agent's answer and the notes on the comment, the review, the check run; all settled. */
  async showWork(work: RunWork): Promise<void> {
    if (!this.#end) {
      // Shown before its end (never so in a step): what is on its way is settled, nothing more.
      await Promise.all([this.#comment?.settled(), this.#status?.settled()])
      return
    }
    const { outcome, cancelling } = this.#end
    const { review } = work
    if (outcome.run && this.#comment) {
      const moved = await this.#headMoved
      this.#comment.show(outcome.run, {
        notes: moved ? [moved] : [],
        // A review's summary, not the JSON document the agent ended its message with.
        answer: review?.summary ?? work.answer,
        outcome: this.#commentOutcome(outcome),
      })
    }
    const { run } = outcome
    await Promise.all([
      this.#comment?.settled(),
      this.#status?.settled(),
      review && run && !cancelling
        ? postPullRequestReview(
            this.#settings.github,
            this.#github,
            this.commit,
            review,
            { runId: run.run_id, sessionLink: run.session_link },
            this.#io,
          )
        : undefined,
      this.#checkRun?.finish(
        checkReport(outcome, { answer: work.answer, review }),
        review ? annotationsOf(review.comments, review.verdict) : [],
      ),
    ])
  }

  #commentOutcome(outcome: StepOutcome) {
    return commentOutcomeOf(outcome, this.#settings.target.kind === 'continue')
  }

  /**
   * The post step: the run's comment and commit status say where the run ended, by how the
   * post step's cancel went; the check run the main step left in progress is completed.
   */
  static async showStopped({ saved, ended, settings, world, client, io }: StepStopped) {
    const github = new GitHubContext(settings.github.token, world)
    const [one] = ended
    if (one) await showRunStopped(one, saved, settings, github, client, io)
    if (checkRunLeft(saved)) await finishStoppedCheckRun(saved, one?.report, settings, github, io)
  }
}
RunSurfaces satisfies StoppedSurfaces

/**
 * The post step: the main step stopped before it showed the run's end, so its comment and
 * commit status still show it going. Say where it ended, by how the post step's cancel went.
 */
async function showRunStopped(
  left: { runId: string; report: CancelReport },
  saved: StepStopped['saved'],
  settings: StepStopped['settings'],
  github: GitHubContext,
  client: AgentRunsClient,
  io: StepIo,
): Promise<void> {
  const stopped = STOPPED[left.report.kind]
  if (saved.commentId && settings.github.comment) {
    let run: RunItem | undefined
    try {
      run = await client.getRun(left.runId, { maxRetries: 0 })
    } catch {
      // Without the run's state, the comment is better left as it is than guessed at.
    }
    const comment =
      run &&
      (await openThreadComment(settings.github, github, io, {
        commentId: saved.commentId,
        name: run.agent_config?.name,
      }))
    if (run && comment) {
      comment.show(run, { notes: [`${stopped}.`] })
      await comment.settled()
    }
  }
  if (saved.statusSha && settings.github.commitStatus) {
    const status = await openCommitStatus(settings.github, github, { sha: saved.statusSha }, io)
    status?.show({ state: 'error', description: stopped })
    await status?.settled()
  }
}

/**
 * The main step's check run is still in progress: GitHub did not take the main step's
 * completion (it is completed with the conclusion the main step reached), or the step stopped
 * (a hard kill, or an error) before it came to complete it. Without a cancel to tell, it failed.
 */
async function finishStoppedCheckRun(
  saved: StepStopped['saved'],
  report: CancelReport | undefined,
  settings: StepStopped['settings'],
  github: GitHubContext,
  io: StepIo,
): Promise<void> {
  const stopped = stoppedCheckReport(
    report ? `${STOPPED[report.kind]}.` : STEP_STOPPED,
    report?.kind === 'cancelled',
  )
  await finishLeftCheckRun(settings.github, github, saved, stopped, io)
}

const STOPPED: Record<CancelReport['kind'], string> = {
  cancelled: 'The step stopped before the run ended; the run was cancelled',
  'already-finished': 'The step stopped before it could report the run, which has ended',
  blocked: 'The step stopped while the run waits for a person; a BLOCKED run cannot be cancelled',
  refused: 'The step stopped before the run ended; the service refused the cancel',
  'not-cancellable': 'The step stopped before the run ended; the run cannot be cancelled',
  failed: 'The step stopped before the run ended, and cancelling the run failed',
}

const STEP_STOPPED = "The step stopped before it reported the run. The workflow run's log says why."
