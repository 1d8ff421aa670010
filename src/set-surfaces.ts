import { GitHubContext } from './github/context.ts'
import { SET_COMMENT_TABLE_CHARS, type SetComment } from './github/set-comment.ts'
import { openCommitStatus, openSetComment, resolveWorkCommit } from './github/setup.ts'
import { oneLine, type CommitStatusReporter } from './github/status.ts'
import type { PostSettings, TaskSetSettings } from './inputs.ts'
import { renderSetComment, setCounts, setStatusOf, type SetView } from './report/set-table.ts'
import { savedState, type SavedRun } from './state.ts'
import type { StepIo } from './step-io.ts'
import type { World } from './world.ts'

/**
 * Where a set shows while it runs, beyond the log: its comment and its commit
 * status, each written at most once per poll, and only when what they show changed;
 * and, should the step stop first, what the post step says on them.
 */
export class SetSurfaces {
  readonly #comment: SetComment | undefined
  readonly #status: CommitStatusReporter | undefined
  readonly #workflowRun: string | undefined

  private constructor(
    comment: SetComment | undefined,
    status: CommitStatusReporter | undefined,
    workflowRun: string | undefined,
  ) {
    this.#comment = comment
    this.#status = status
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
    const commit = settings.github.commitStatus ? await resolveWorkCommit(github, io) : undefined
    const status = await openCommitStatus(settings.github, github, commit, io)
    // The post step finishes the status when the step stops before the set ends.
    if (status && commit) state.saveStatusSha(commit.sha)
    return new SetSurfaces(comment, status, github.workflowRun)
  }

  show(view: SetView): void {
    if (this.#comment) {
      const { done, total } = setCounts(view.kind === 'running' ? view.tasks : view.outcome.tasks)
      this.#comment.show({
        body: renderSetComment(view, this.#workflowRun, SET_COMMENT_TABLE_CHARS),
        outcome: view.kind === 'ended' ? view.outcome.word : undefined,
        done,
        total,
      })
    }
    const status = setStatusOf(view)
    this.#status?.show({
      state: status.state,
      description: oneLine(status.description),
      targetUrl: this.#workflowRun,
    })
  }

  async settled(): Promise<void> {
    await Promise.all([this.#comment?.settled(), this.#status?.settled()])
  }

  /**
   * The post step: the step stopped before the set ended, so its comment and status still show
   * it running. Says so, with how many of the runs it left the post step cancelled.
   */
  static async showStopped(
    saved: SavedRun,
    settings: PostSettings,
    world: World,
    cancels: { cancelled: number; left: number },
    io: StepIo,
  ): Promise<void> {
    const runs = (count: number) => `${count} ${count === 1 ? 'run' : 'runs'}`
    const { cancelled, left } = cancels
    const note = `The step stopped before the set ended; the post step cancelled ${runs(cancelled)} it left unfinished${cancelled < left ? ` (of ${left})` : ''}. The table shows the runs as the step last saw them.`
    const setComment = settings.github.comment ? saved.setComment : undefined
    const statusSha = settings.github.commitStatus ? saved.statusSha : undefined
    if (!setComment && !statusSha) return
    const context = new GitHubContext(settings.github.token, world)
    const comment = setComment
      ? await openSetComment(settings.github, context, io, setComment)
      : undefined
    const status = statusSha
      ? await openCommitStatus(settings.github, context, { sha: statusSha }, io)
      : undefined
    status?.show({ state: 'error', description: oneLine(note) })
    await Promise.all([comment?.markStopped(note), status?.settled()])
  }
}
