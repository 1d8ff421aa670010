import type { getOctokit } from '@actions/github'
import type { RunItem } from '../api/types.ts'
import type { WaitLog } from '../run/wait.ts'
import { parseMarker, renderComment, type Marker } from './comment.ts'
import type { Thread } from './thread.ts'

type Octokit = ReturnType<typeof getOctokit>

/** Who writes comments with GITHUB_TOKEN; GET /user is closed to that token. */
const ACTIONS_BOT = 'github-actions[bot]'

export interface ConversationOptions {
  /** `<job>/<step>`, written into the marker. */
  step: string
  /** The `name` input, written into the marker; with it, `findRun` follows only runs so named. */
  name?: string
  log: WaitLog
  /** The step's comment, when an earlier step (the main one, for the post step) made it. */
  commentId?: number
  /** Told the ID of the comment once it is made, so that the post step can finish it. */
  onCommentCreated?: (commentId: number) => void
}

/**
 * The step's conversation on its pull request or issue: one comment, kept up
 * to date, and the run a previous workflow run left there. A GitHub failure
 * never fails the run's step: it becomes a warning.
 */
export class Conversation {
  readonly #octokit: Octokit
  readonly #thread: Thread
  readonly #step: string
  readonly #name: string | undefined
  readonly #log: WaitLog
  readonly #onCommentCreated: (commentId: number) => void
  #commentId: number | undefined
  /** Updates go out one at a time, in order, so the last state seen is the one shown. */
  #queue: Promise<void> = Promise.resolve()
  #lastBody = ''

  private constructor(octokit: Octokit, thread: Thread, options: ConversationOptions) {
    this.#octokit = octokit
    this.#thread = thread
    this.#step = options.step
    this.#name = options.name || undefined
    this.#log = options.log
    this.#commentId = options.commentId
    this.#onCommentCreated = options.onCommentCreated ?? (() => undefined)
  }

  /** Loads the GitHub client only now: most steps never need it. */
  static async open(
    token: string,
    thread: Thread,
    options: ConversationOptions,
  ): Promise<Conversation> {
    const { getOctokit } = await import('@actions/github')
    const octokit = getOctokit(token, {
      baseUrl: process.env.GITHUB_API_URL || 'https://api.github.com',
    })
    return new Conversation(octokit, thread, options)
  }

  /**
   * The run named by the newest trusted marker on the thread, if any; with a
   * `name`, the newest of runs so named, so that another workflow's run on the
   * same thread is never steered.
   */
  async findRun(): Promise<string | undefined> {
    try {
      const me = await this.#identity()
      const comments = await this.#octokit.paginate(this.#octokit.rest.issues.listComments, {
        owner: this.#thread.owner,
        repo: this.#thread.repo,
        issue_number: this.#thread.issueNumber,
        per_page: 100,
      })
      let found: Marker | undefined
      for (const comment of comments) {
        const marker = comment.user?.login === me ? parseMarker(comment.body ?? '') : undefined
        if (marker && (this.#name === undefined || marker.name === this.#name)) found = marker
      }
      return found?.runId
    } catch (error) {
      this.#warn('could not read the thread for an earlier run', error)
      return undefined
    }
  }

  /** Shows the run's state in the step's comment, creating the comment the first time. */
  show(run: RunItem): void {
    const body = renderComment(run, { runId: run.run_id, step: this.#step, name: this.#name })
    if (body === this.#lastBody) return
    this.#lastBody = body
    this.#queue = this.#queue.then(() => this.#write(body))
  }

  /** Waits for the comment updates still on their way. */
  async settled(): Promise<void> {
    await this.#queue
  }

  async #write(body: string): Promise<void> {
    const { owner, repo, issueNumber } = this.#thread
    try {
      if (this.#commentId === undefined) {
        const { data } = await this.#octokit.rest.issues.createComment({
          owner,
          repo,
          issue_number: issueNumber,
          body,
        })
        this.#commentId = data.id
        this.#onCommentCreated(data.id)
      } else {
        await this.#octokit.rest.issues.updateComment({
          owner,
          repo,
          comment_id: this.#commentId,
          body,
        })
      }
    } catch (error) {
      this.#warn('could not update the comment', error)
    }
  }

  async #identity(): Promise<string> {
    try {
      const { data } = await this.#octokit.rest.users.getAuthenticated()
      return data.login
    } catch (error) {
      if ((error as { status?: number }).status === 403) return ACTIONS_BOT
      throw error
    }
  }

  #warn(what: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error)
    this.#log.warning(
      `GitHub: ${what} on ${this.#thread.owner}/${this.#thread.repo}#${this.#thread.issueNumber} (${reason}). The run is not affected.`,
    )
  }
}
