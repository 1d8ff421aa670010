import type { getOctokit } from '@actions/github'
import type { RunItem } from '../api/types.ts'
import type { WaitLog } from '../run/wait.ts'
import { safeForLog } from '../text/log.ts'
import { parseMarker, renderComment, renderShortComment, type Marker } from './comment.ts'
import type { Thread } from './thread.ts'

type Octokit = ReturnType<typeof getOctokit>

/** Who writes comments with GITHUB_TOKEN; GET /user is closed to that token. */
const ACTIONS_BOT = 'github-actions[bot]'

/**
 * GitHub can never hold the step: each call has a deadline of seconds, and
 * the writes still queued when the run has ended get a bounded time, so the
 * step ends within 30 s of the run's end even when GitHub stops answering.
 */
export const GITHUB_LIMITS = {
  /** The deadline of one GitHub request. */
  requestMs: 8_000,
  /** How long `settled()` waits for the comment writes still on their way. */
  settleMs: 15_000,
  /** The longest secondary-rate-limit hint obeyed before the one retry. */
  maxRetryAfterMs: 3_000,
} as const

export interface ConversationOptions {
  /** `<job>/<step>`, written into the marker. */
  step: string
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
  readonly #log: WaitLog
  readonly #onCommentCreated: (commentId: number) => void
  #commentId: number | undefined
  /** Updates go out one at a time, in order, so the last state seen is the one shown. */
  #queue: Promise<void> = Promise.resolve()
  #lastBody = ''
  /** The newest body not yet sent: a burst of states becomes one write, never a backlog. */
  #pending: { body: string; short: string } | undefined
  #stopped = false

  private constructor(octokit: Octokit, thread: Thread, options: ConversationOptions) {
    this.#octokit = octokit
    this.#thread = thread
    this.#step = options.step
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

  /** The run named by the newest trusted marker on the thread, if any. */
  async findRun(): Promise<string | undefined> {
    try {
      const me = await this.#identity()
      const comments = await this.#octokit.paginate(this.#octokit.rest.issues.listComments, {
        owner: this.#thread.owner,
        repo: this.#thread.repo,
        issue_number: this.#thread.issueNumber,
        per_page: 100,
        request: deadline(),
      })
      let found: Marker | undefined
      for (const comment of comments) {
        const marker = comment.user?.login === me ? parseMarker(comment.body ?? '') : undefined
        if (marker) found = marker
      }
      return found?.runId
    } catch (error) {
      this.#warn('could not read the thread for an earlier run', error)
      return undefined
    }
  }

  /** Shows the run's state in the step's comment, creating the comment the first time. */
  show(run: RunItem): void {
    if (this.#stopped) return
    const marker = { runId: run.run_id, step: this.#step }
    const body = renderComment(run, marker)
    if (body === this.#lastBody) return
    this.#lastBody = body
    const waiting = this.#pending !== undefined
    this.#pending = { body, short: renderShortComment(run, marker) }
    // A write already queued will take the newest body when its turn comes.
    if (!waiting) this.#queue = this.#queue.then(() => this.#writePending())
  }

  /**
   * Waits for the comment updates still on their way, for a bounded time:
   * after it, the step goes on (with a warning) and nothing more is written.
   */
  async settled(maxMs: number = GITHUB_LIMITS.settleMs): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const gaveUp = new Promise<'gave-up'>((resolve) => {
      timer = setTimeout(() => resolve('gave-up'), maxMs)
    })
    try {
      const result = await Promise.race([this.#queue.then(() => 'done' as const), gaveUp])
      if (result === 'gave-up') {
        this.#stopped = true
        this.#pending = undefined
        this.#log.warning(
          `GitHub: the comment on ${this.#where()} was not brought up to date within ${maxMs / 1000}s; GitHub is not answering. The run is not affected.`,
        )
      }
    } finally {
      clearTimeout(timer)
    }
  }

  async #writePending(): Promise<void> {
    const next = this.#pending
    this.#pending = undefined
    if (!next || this.#stopped) return
    try {
      await this.#write(next.body)
    } catch (error) {
      const retryIn = retryableRefusal(error)
      if (retryIn === undefined || this.#stopped) {
        this.#warn('could not update the comment', error)
        return
      }
      // Refused (too long, or a secondary rate limit): once more, shorter, so the
      // comment never stays "in progress" on a finished run.
      if (retryIn > 0) await new Promise((resolve) => setTimeout(resolve, retryIn))
      try {
        if (!this.#stopped) await this.#write(next.short)
      } catch (retryError) {
        this.#warn('could not update the comment, even with a shorter text', retryError)
      }
    }
  }

  async #write(body: string): Promise<void> {
    const { owner, repo, issueNumber } = this.#thread
    if (this.#commentId === undefined) {
      const { data } = await this.#octokit.rest.issues.createComment({
        owner,
        repo,
        issue_number: issueNumber,
        body,
        request: deadline(),
      })
      this.#commentId = data.id
      this.#onCommentCreated(data.id)
    } else {
      await this.#octokit.rest.issues.updateComment({
        owner,
        repo,
        comment_id: this.#commentId,
        body,
        request: deadline(),
      })
    }
  }

  async #identity(): Promise<string> {
    try {
      const { data } = await this.#octokit.rest.users.getAuthenticated({ request: deadline() })
      return data.login
    } catch (error) {
      if ((error as { status?: number }).status === 403) return ACTIONS_BOT
      throw error
    }
  }

  #warn(what: string, error: unknown): void {
    const reason = safeForLog(error instanceof Error ? error.message : String(error), 500)
    this.#log.warning(`GitHub: ${what} on ${this.#where()} (${reason}). The run is not affected.`)
  }

  #where(): string {
    return `${this.#thread.owner}/${this.#thread.repo}#${this.#thread.issueNumber}`
  }
}

/** Every GitHub request ends by its deadline, however GitHub behaves (all pages of a list, together). */
function deadline(): { signal: AbortSignal } {
  return { signal: AbortSignal.timeout(GITHUB_LIMITS.requestMs) }
}

/**
 * For a write GitHub refused but would take again: 422 (e.g. a body over its
 * limit) at once, and a 403 secondary rate limit after its hint (when the hint
 * is short enough to wait). Undefined for anything else.
 */
function retryableRefusal(error: unknown): number | undefined {
  const { status, response } = error as {
    status?: number
    response?: { headers?: Record<string, string | undefined>; data?: { message?: unknown } }
  }
  if (status === 422) return 0
  if (status !== 403 && status !== 429) return undefined
  const headers = response?.headers ?? {}
  const message = typeof response?.data?.message === 'string' ? response.data.message : ''
  const hint = Number(headers['retry-after'])
  const limited =
    status === 429 || /secondary rate limit/i.test(message) || headers['retry-after'] !== undefined
  if (!limited) return undefined
  const waitMs = Number.isFinite(hint) && hint >= 0 ? hint * 1000 : 1000
  return waitMs <= GITHUB_LIMITS.maxRetryAfterMs ? waitMs : undefined
}
