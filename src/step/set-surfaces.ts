import {
  CHECK_SUMMARY_CHARS,
  stoppedCheckReport,
  type CheckRunReporter,
} from '../github/check-run.ts'
import { GitHubContext } from '../github/context.ts'
import type { SetComment } from '../github/keyed-set-comment.ts'
import { SET_COMMENT_TABLE_CHARS } from '../github/set-comment.ts'
import {
  finishLeftCheckRun,
  openCommitSurfaces,
  openCommitStatus,
  openSetComment,
  resolveWorkCommit,
} from '../github/setup.ts'
import { oneLine, type CommitStatusReporter } from '../github/status.ts'
import type { TaskSetSettings } from '../inputs/task-set.ts'
import type { SetOutcome, TaskRun } from '../model/set.ts'
import {
  renderSetCheck,
  renderSetComment,
  setCounts,
  setStatusOf,
  type SetView,
} from '../summary/set-table.ts'
import { checkRunLeft, savedState } from '../state.ts'
import type { StepIo } from '../step-io.ts'
import { type StepStopped, type StepSurfaces, type StoppedSurfaces } from './surfaces.ts'

/**
 * Where a set shows while it runs, beyond the log: its comment and its commit
 * status, each written at most once per poll, and only when what they show changed;
 * its check run, in progress until the set ends; and, should the step stop first,
 * what the post step says on them.
 */
export class SetSurfaces implements StepSurfaces<SetOutcome, void> {
  readonly #comment: SetComment | undefined
  readonly #status: CommitStatusReporter | undefined
  readonly #checkRun: CheckRunReporter | undefined
  readonly #workflowRun: string | undefined
  /** The commit the runs work on, when a status or check run needed it: a detached set's runs carry it. */
  readonly commit: string | undefined
  #checkRunDone: Promise<boolean> | undefined

  private constructor(
    parts: {
      comment: SetComment | undefined
      status: CommitStatusReporter | undefined
      checkRun: CheckRunReporter | undefined
      commit: string | undefined
    },
    workflowRun: string | undefined,
  ) {
    this.#comment = parts.comment
    this.#status = parts.status
    this.#checkRun = parts.checkRun
    this.commit = parts.commit
    this.#workflowRun = workflowRun
  }

  static async open(
    settings: TaskSetSettings,
    github: GitHubContext,
    set: string,
    io: StepIo,
  ): Promise<SetSurfaces> {
    const state = savedState(io)
    const comment = await openSetComment(settings.github, github, io, {
      set,
      onCommentChosen: (commentId) => state.saveSetComment({ commentId, set }),
    })
    const { checkRun: checks } = settings.output
    const commit =
      settings.github.commitStatus || checks ? await resolveWorkCommit(github, io) : undefined
    // One check run for the set, `cloud-agent/<key>` as one run's.
    const { status, checkRun } = await openCommitSurfaces(
      settings.github,
      checks,
      github,
      commit,
      io,
      state,
    )
    return new SetSurfaces({ comment, status, checkRun, commit: commit?.sha }, github.workflowRun)
  }

  /** The set's tasks as they stand at a poll. */
  showRunning(tasks: readonly TaskRun[]): void {
    this.#show({ kind: 'running', tasks })
  }

  /** The set's end; its check run is completed. */
  showEnd(outcome: SetOutcome): void {
    this.#show({ kind: 'ended', outcome })
  }

  /** A set's surfaces show no agent's work (its job summary does): all is settled. */
  async showWork(): Promise<void> {
    await Promise.all([this.#comment?.settled(), this.#status?.settled(), this.#checkRunDone])
  }

  #show(view: SetView): void {
    if (this.#comment) {
      const tasks = view.kind === 'running' ? view.tasks : view.outcome.tasks
      const { done, total } = setCounts(tasks)
      // A reconcile pass reads them there: a run handed to a person is never swept.
      const handedOff = tasks.flatMap((task) =>
        task.handedOff && task.runId !== undefined ? [task.runId] : [],
      )
      this.#comment.show({
        body: renderSetComment(view, this.#workflowRun, SET_COMMENT_TABLE_CHARS),
        outcome: view.kind === 'ended' ? view.outcome.word : undefined,
        done,
        total,
        ...(handedOff.length > 0 ? { handedOff } : {}),
      })
    }
    const status = setStatusOf(view)
    // A newer run on the same commit owns the status now: writing ours could cover its pending.
    const newer = view.kind === 'ended' ? view.outcome.newer : undefined
    if (!newer || newer.metadata?.gh_head_sha !== this.commit)
      this.#status?.show(
        {
          state: status.state,
          description: oneLine(status.description),
          targetUrl: this.#workflowRun,
        },
        view.kind === 'ended',
      )
    if (view.kind === 'ended' && this.#checkRun && !this.#checkRunDone) {
      this.#checkRunDone = this.#checkRun.finish(renderSetCheck(view.outcome, CHECK_SUMMARY_CHARS))
    }
  }

  /**
   * The post step: the step stopped before the set ended, so its comment, status and check run
   * still show it running. Says so, with how many of the runs it left the post step cancelled.
   */
  static async showStopped(stopped: StepStopped): Promise<void> {
    const { saved, ended, settings, world, io } = stopped
    const left = ended.length
    if (left === 0) return await SetSurfaces.#finishLeftCheckRun(stopped)
    const cancelled = ended.filter((one) => one?.report.kind === 'cancelled').length
    const runs = (count: number) => `${count} ${count === 1 ? 'run' : 'runs'}`
    const note = `The step stopped before the set ended; the post step cancelled ${runs(cancelled)} it left unfinished${cancelled < left ? ` (of ${left})` : ''}. The table shows the runs as the step last saw them.`
    const setComment = settings.github.comment ? saved.setComment : undefined
    const statusSha = settings.github.commitStatus ? saved.statusSha : undefined
    const checks = checkRunLeft(saved)
    if (!setComment && !statusSha && !checks) return
    const context = new GitHubContext(settings.github.token, world)
    const comment = setComment
      ? await openSetComment(settings.github, context, io, setComment)
      : undefined
    const status = statusSha
      ? await openCommitStatus(settings.github, context, { sha: statusSha }, io)
      : undefined
    status?.show({ state: 'error', description: oneLine(note) })
    // Cancelled once the post step cancelled a run of it; the note says how many of how many.
    const report = stoppedCheckReport(note, cancelled > 0, 'the runs left were')
    await Promise.all([
      comment?.markStopped(note),
      status?.settled(),
      checks ? finishLeftCheckRun(settings.github, context, saved, report, io) : undefined,
    ])
  }

  /**
   * The post step, when every run of the set had ended: the check run is still in progress
   * only if the step stopped before it completed it, or GitHub did not take the completion.
   */
  static async #finishLeftCheckRun({ saved, settings, world, io }: StepStopped): Promise<void> {
    if (!checkRunLeft(saved)) return
    const context = new GitHubContext(settings.github.token, world)
    const stopped = stoppedCheckReport(SET_STEP_STOPPED, false)
    await finishLeftCheckRun(settings.github, context, saved, stopped, io)
  }
}

SetSurfaces satisfies StoppedSurfaces

const SET_STEP_STOPPED =
  "The step stopped before it reported the set; none of its runs was left going. The workflow run's log says why."
