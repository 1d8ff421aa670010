import { GITHUB_LIMITS } from '../timing.ts'
import { tokenIdentity, withDeadline, type Octokit } from './octokit.ts'
import type { Thread } from './thread.ts'

export interface ListedComment {
  id: number
  body?: string
  user?: { login?: string } | null
  created_at: string
  updated_at?: string
}

/** A comment as read back: its text and author, and who the token writes as. */
export interface ReadComment {
  body?: string
  user?: { login?: string } | null
  me: string
}

/**
 * The comments of one thread that the action's own identity wrote: the only
 * ones whose hidden marker is trusted, since anyone can type a marker. Each
 * call has its deadline; who the token writes as is asked once.
 */
export class OwnComments {
  readonly #octokit: Octokit
  readonly #thread: Thread
  #identity: Promise<string> | undefined

  constructor(octokit: Octokit, thread: Thread) {
    this.#octokit = octokit
    this.#thread = thread
  }

  /** The login the token writes as; a failed look-up is tried again next time. */
  me(): Promise<string> {
    this.#identity ??= tokenIdentity(this.#octokit).catch((error: unknown) => {
      this.#identity = undefined
      throw error
    })
    return this.#identity
  }

  /** The thread's comments written by the action's own identity, in thread order. */
  async list(): Promise<ListedComment[]> {
    const me = await this.me()
    const comments: ListedComment[] = await this.#octokit.paginate(
      this.#octokit.rest.issues.listComments,
      {
        owner: this.#thread.owner,
        repo: this.#thread.repo,
        issue_number: this.#thread.issueNumber,
        per_page: 100,
        ...withDeadline(),
      },
    )
    return comments.filter((comment) => comment.user?.login === me)
  }

  /** One comment; undefined when it is gone (deleted by a person). */
  async read(commentId: number): Promise<ReadComment | undefined> {
    try {
      const { data } = await this.#octokit.rest.issues.getComment({
        owner: this.#thread.owner,
        repo: this.#thread.repo,
        comment_id: commentId,
        ...withDeadline(),
      })
      return { body: data.body, user: data.user, me: await this.me() }
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined
      throw error
    }
  }

  async create(body: string): Promise<number> {
    const { data } = await this.#octokit.rest.issues.createComment({
      owner: this.#thread.owner,
      repo: this.#thread.repo,
      issue_number: this.#thread.issueNumber,
      body,
      ...withDeadline(),
    })
    return data.id
  }

  async update(commentId: number, body: string): Promise<void> {
    await this.#octokit.rest.issues.updateComment({
      owner: this.#thread.owner,
      repo: this.#thread.repo,
      comment_id: commentId,
      body,
      ...withDeadline(),
    })
  }

  async delete(commentId: number): Promise<void> {
    await this.#octokit.rest.issues.deleteComment({
      owner: this.#thread.owner,
      repo: this.#thread.repo,
      comment_id: commentId,
      ...withDeadline(),
    })
  }

  /** `owner/repo#number`, for the log. */
  where(): string {
    return `${this.#thread.owner}/${this.#thread.repo}#${this.#thread.issueNumber}`
  }
}

/**
 * For a write GitHub refused but would take again: 422 (e.g. a body over its
 * limit) at once, and a 403 secondary rate limit after its hint (when the hint
 * is short enough to wait). Undefined for anything else.
 */
export function retryableRefusal(error: unknown): number | undefined {
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
