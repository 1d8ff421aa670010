/**
 * One repository as a reconcile pass sees it (RepositoryDesk): the comments, commit statuses and
 * workflow runs the steps left there, read once a pass, and the writes that bring them to their end.
 */
import type { RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import type { Handoff } from '../model/handoff.ts'
import type { RunEntry, SetEntry } from '../model/key-history.ts'
import { RECONCILE_PASS } from '../timing.ts'
import { workflowRunUrl } from '../world.ts'
import type { CommentContext } from './comment.ts'
import type { GitHubContext } from './context.ts'
import { ThreadComment } from './keyed-run-comment.ts'
import { SetComment } from './keyed-set-comment.ts'
import { tokenIdentity, withDeadline, type Octokit } from './octokit.ts'
import { parseMarker } from './run-marker.ts'
import { parseSetMarker, type SetShown } from './set-comment.ts'
import { CommitStatusReporter, statusContext, type StatusReport } from './status.ts'

/** The step's comment that shows a run, and the run as it shows it. */
export interface ShownInComment {
  commentId: number
  shown: RunEntry
}

/** A comment that shows a run: the one a step keeps for its key, or a `continue_run` answer. */
export interface RunInComment extends ShownInComment {
  /** The key in its marker: a write keeps it, and so the comment's history. */
  key: string
}

/** Where a pass writes a run: the comment, its key, and the workflow run the record links. */
export interface CommentSpot {
  commentId: number
  key: string
  workflowRun: string | undefined
}

/** A commit status as GitHub shows it now. */
export interface CurrentStatus {
  state: string
  description: string
}

/** A workflow run as the list of its workflow's runs shows it. */
export interface ListedWorkflowRun {
  id: string
  status: string
  conclusion: string | undefined
  /** The numbers of the pull requests it runs for. */
  pullRequests: number[]
}

/** Whether a step is over, by its workflow run's latest attempt. */
export interface WorkflowRunView {
  /** The workflow run, in the step's attempt, has completed. */
  over: boolean
  status: string
  /** How the step's attempt ended, once over; undefined when a later attempt is the one shown. */
  conclusion: string | undefined
}

/**
 * One repository as a reconcile pass sees it: what the steps left there (their
 * comments, their commit statuses, their workflow runs), each read once a pass
 * however many runs share it; and the writes that bring them to their end,
 * through the same ThreadComment and CommitStatusReporter a waiting step uses.
 * Every call has a deadline; a failed write is reported, never thrown.
 */
export class RepositoryDesk {
  readonly #octokit: Octokit
  readonly #owner: string
  readonly #repo: string
  /** GitHub's web address, where the links to the steps' workflow runs start. */
  readonly #serverUrl: string | undefined
  #me: Promise<string> | undefined
  #comments: Promise<Array<{ id: number; thread: number; body: string }>> | undefined
  #commentsSince: string | undefined
  readonly #statuses = new Map<string, Promise<Array<{ context: string } & CurrentStatus>>>()
  readonly #workflowRuns = new Map<
    string,
    Promise<{
      status: string
      attempt: number
      conclusion: string | undefined
      workflowId: number
    }>
  >()
  readonly #runsOfWorkflow = new Map<number, Promise<ListedWorkflowRun[]>>()

  private constructor(octokit: Octokit, repository: string, serverUrl: string | undefined) {
    this.#octokit = octokit
    const [owner = '', repo = ''] = repository.split('/')
    this.#owner = owner
    this.#repo = repo
    this.#serverUrl = serverUrl
  }

  /** The pass's repository, read through the step's one GitHub client. */
  static async open(github: GitHubContext, repository: string): Promise<RepositoryDesk> {
    return new RepositoryDesk(await github.client(), repository, github.serverUrl)
  }

  /**
   * The comments a pass looks through: the repository's, updated since `since`
   * (the earliest start of the runs it finishes), read at the first need, a
   * page of 100 a request, whatever the number of threads.
   */
  commentsSince(since: string): void {
    this.#commentsSince = since
  }

  /**
   * The comment the run's step left: the thread's comment for its key, written
   * by the token's own identity, whose marker lists the run. Undefined when
   * there is none (deleted, or never made).
   */
  async stepComment(handoff: Handoff, runId: string): Promise<ShownInComment | undefined> {
    if (handoff.thread === undefined) return undefined
    for (const comment of await this.#repositoryComments()) {
      if (comment.thread !== handoff.thread) continue
      const marker = parseMarker(comment.body)
      if (!marker || marker.key !== handoff.key || marker.reply) continue
      const shown = marker.runs.find((record) => record.runId === runId)
      if (shown) return { commentId: comment.id, shown }
    }
    return undefined
  }

  /**
   * Every comment on the run's thread, written by the token's own identity,
   * whose marker lists the run: its first step's, and the answers of the
   * `continue_run` steps that followed it up, whatever their key.
   */
  async runComments(handoff: Handoff, runId: string): Promise<RunInComment[]> {
    if (handoff.thread === undefined) return []
    return (await this.#repositoryComments()).flatMap((comment) => {
      if (comment.thread !== handoff.thread) return []
      const marker = parseMarker(comment.body)
      const shown = marker?.runs.find((record) => record.runId === runId)
      return marker && shown ? [{ commentId: comment.id, shown, key: marker.key ?? '' }] : []
    })
  }

  /** The current status of the step's context on its commit, if it has one. */
  async stepStatus(handoff: Handoff): Promise<CurrentStatus | undefined> {
    if (!handoff.headSha) return undefined
    const context = statusContext(handoff.key)
    const sha = handoff.headSha
    let listed = this.#statuses.get(sha)
    if (!listed) {
      listed = this.#octokit.rest.repos
        .listCommitStatusesForRef({
          owner: this.#owner,
          repo: this.#repo,
          ref: sha,
          per_page: 100,
          ...withDeadline(),
        })
        .then(({ data }) =>
          data.map((status) => ({
            context: status.context,
            state: status.state,
            description: status.description ?? '',
          })),
        )
      this.#statuses.set(sha, listed)
    }
    // GitHub lists a commit's statuses newest first.
    return (await listed).find((status) => status.context === context)
  }

  /** A step's workflow run, as it stands for the step's attempt. */
  async workflowRun(step: {
    workflowRunId: string | undefined
    attempt: number | undefined
  }): Promise<WorkflowRunView | undefined> {
    const id = step.workflowRunId
    if (!id) return undefined
    let read = this.#workflowRuns.get(id)
    if (!read) {
      read = this.#octokit.rest.actions
        .getWorkflowRun({
          owner: this.#owner,
          repo: this.#repo,
          run_id: Number(id),
          ...withDeadline(),
        })
        .then(({ data }) => ({
          status: data.status ?? 'unknown',
          attempt: data.run_attempt ?? 1,
          conclusion: data.conclusion ?? undefined,
          workflowId: data.workflow_id,
        }))
      this.#workflowRuns.set(id, read)
    }
    const { status, attempt, conclusion } = await read
    const ours = attempt === (step.attempt ?? 1)
    // A later attempt starts only once the one before it has completed.
    const over = status === 'completed' || attempt > (step.attempt ?? 1)
    return { over, status, conclusion: ours && status === 'completed' ? conclusion : undefined }
  }

  /**
   * The newest workflow run of the same workflow as `step`'s, newer than it, for the pull
   * request `thread`, among the workflow's latest runs; undefined when there is none. A step
   * whose workflow cancelled it for such a run may have handed its run over (previous_run: steer).
   */
  async newerWorkflowRun(
    step: { workflowRunId: string },
    thread: number,
  ): Promise<ListedWorkflowRun | undefined> {
    await this.workflowRun({ workflowRunId: step.workflowRunId, attempt: undefined })
    const own = await this.#workflowRuns.get(step.workflowRunId)
    if (!own) return undefined
    let listed = this.#runsOfWorkflow.get(own.workflowId)
    if (!listed) {
      listed = this.#octokit.rest.actions
        .listWorkflowRuns({
          owner: this.#owner,
          repo: this.#repo,
          workflow_id: own.workflowId,
          per_page: 50,
          ...withDeadline(),
        })
        .then(({ data }) =>
          data.workflow_runs.map((run) => ({
            id: String(run.id),
            status: run.status ?? 'unknown',
            conclusion: run.conclusion ?? undefined,
            pullRequests: (run.pull_requests ?? []).map((pull) => pull.number),
          })),
        )
      this.#runsOfWorkflow.set(own.workflowId, listed)
    }
    // Listed newest first; a workflow run's ID grows with its start.
    return (await listed).find(
      (run) => BigInt(run.id) > BigInt(step.workflowRunId) && run.pullRequests.includes(thread),
    )
  }

  /** The link to the workflow run that started the run, as its step's comment gives it. */
  stepWorkflowRunUrl(handoff: Handoff): string | undefined {
    return workflowRunUrl({
      serverUrl: this.#serverUrl,
      repository: handoff.repository,
      runId: handoff.workflowRunId,
      runAttempt: handoff.attempt === undefined ? undefined : String(handoff.attempt),
    })
  }

  /** Where the run's starting step shows it: its comment for the key, linking its workflow run. */
  stepSpot(handoff: Handoff, commentId: number): CommentSpot {
    return { commentId, key: handoff.key, workflowRun: this.stepWorkflowRunUrl(handoff) }
  }

  /** Shows the run in a step's comment as the step would; false when GitHub refused. */
  async showInComment(
    handoff: Handoff,
    spot: CommentSpot,
    run: RunItem,
    context: Pick<CommentContext, 'notes' | 'answer' | 'outcome'>,
    log: Log,
  ): Promise<boolean> {
    const watched = watchWarnings(log)
    const comment = ThreadComment.open(
      this.#octokit,
      { owner: this.#owner, repo: this.#repo, issueNumber: handoff.thread ?? 0 },
      {
        step: 'reconcile',
        key: spot.key,
        mode: 'keyed',
        commentId: spot.commentId,
        workflowRun: spot.workflowRun,
        log: watched.log,
      },
    )
    comment.show(run, context)
    await comment.settled()
    return !watched.warned()
  }

  /**
   * Says in a `tasks` step's comment that the step stopped before its set
   * ended, as its post step would have: only while the comment still shows that
   * set running. False when GitHub refused; undefined when there is no such comment.
   */
  async markSetStopped(handoff: Handoff, note: string, log: Log): Promise<boolean | undefined> {
    if (handoff.set === undefined || handoff.thread === undefined || !handoff.key) return undefined
    const shown = (await this.#repositoryComments()).find((comment) => {
      if (comment.thread !== handoff.thread) return false
      const marker = parseSetMarker(comment.body)
      const current = marker?.sets[0]
      return (
        marker?.key === handoff.key &&
        current !== undefined &&
        current.set === handoff.set &&
        !current.outcome
      )
    })
    if (!shown) return undefined
    const watched = watchWarnings(log)
    const comment = new SetComment(
      this.#octokit,
      { owner: this.#owner, repo: this.#repo, issueNumber: handoff.thread },
      {
        step: 'reconcile',
        key: handoff.key,
        set: handoff.set,
        commentId: shown.id,
        log: watched.log,
      },
    )
    await comment.markStopped(note)
    return !watched.warned()
  }

  /**
   * A detached set's comment: the thread's comment for the step's key, written by the token's
   * own identity, whose set marker lists the set; with how it shows the set now.
   */
  async setComment(handoff: Handoff): Promise<{ commentId: number; shown: SetEntry } | undefined> {
    if (handoff.set === undefined || handoff.thread === undefined || !handoff.key) return undefined
    for (const comment of await this.#repositoryComments()) {
      if (comment.thread !== handoff.thread) continue
      const marker = parseSetMarker(comment.body)
      if (marker?.key !== handoff.key) continue
      const shown = marker.sets.find((record) => record.set === handoff.set)
      if (shown) return { commentId: comment.id, shown }
    }
    return undefined
  }

  /** Shows a detached set's end in its comment, as its step would have; false when GitHub refused. */
  async showSetEnd(
    handoff: Handoff,
    commentId: number,
    shown: SetShown,
    log: Log,
  ): Promise<boolean> {
    if (handoff.set === undefined || handoff.thread === undefined) return false
    const watched = watchWarnings(log)
    const comment = new SetComment(
      this.#octokit,
      { owner: this.#owner, repo: this.#repo, issueNumber: handoff.thread },
      { step: 'reconcile', key: handoff.key, set: handoff.set, commentId, log: watched.log },
    )
    await comment.showHandedOverEnd(shown)
    return !watched.warned()
  }

  /** Sets the step's commit status; false when GitHub refused. */
  async setStatus(handoff: Handoff, report: StatusReport, log: Log): Promise<boolean> {
    if (!handoff.headSha) return false
    const watched = watchWarnings(log)
    const status = new CommitStatusReporter(
      this.#octokit,
      {
        owner: this.#owner,
        repo: this.#repo,
        sha: handoff.headSha,
        context: statusContext(handoff.key),
      },
      watched.log,
    )
    status.show(report)
    await status.settled()
    return !watched.warned()
  }

  #identity(): Promise<string> {
    this.#me ??= tokenIdentity(this.#octokit).catch((error: unknown) => {
      this.#me = undefined
      throw error
    })
    return this.#me
  }

  /** The repository's comments written by the token's identity, oldest first: read once a pass. */
  #repositoryComments(): Promise<Array<{ id: number; thread: number; body: string }>> {
    this.#comments ??= this.#readComments().catch((error: unknown) => {
      this.#comments = undefined // A failed read is tried again by the next run.
      throw error
    })
    return this.#comments
  }

  async #readComments(): Promise<Array<{ id: number; thread: number; body: string }>> {
    const me = await this.#identity()
    const comments = await this.#octokit.paginate(this.#octokit.rest.issues.listCommentsForRepo, {
      owner: this.#owner,
      repo: this.#repo,
      ...(this.#commentsSince ? { since: this.#commentsSince } : {}),
      per_page: 100,
      ...withDeadline(RECONCILE_PASS.commentsMs),
    })
    return comments
      .filter((comment) => comment.user?.login === me)
      .map((comment) => ({
        id: comment.id,
        thread: Number(/\/issues\/(\d+)$/.exec(comment.issue_url)?.[1]),
        body: comment.body ?? '',
      }))
  }
}

/** The log, and whether anything written through it was a warning (a refused GitHub write). */
function watchWarnings(log: Log): { log: Log; warned: () => boolean } {
  let warned = false
  return {
    log: {
      ...log,
      warning: (message) => {
        warned = true
        log.warning(message)
      },
    },
    warned: () => warned,
  }
}
