/**
 * GitLab's REST API (v4), the one place that knows its paths and what its answers mean: the
 * merge request's notes, a job's status, a merge request's pipelines, and what changed between
 * two commits (compare, merge_base). Every call has a deadline: GitLab can never hold a job.
 */
import { safeForLog } from '../text/log.ts'
import { GITLAB_LIMITS } from '../timing.ts'
import { USER_AGENT } from '../version.ts'

/** Where the API is and the token that reads and writes it. */
export interface GitLabAccess {
  /** GitLab's REST API root, `CI_API_V4_URL`, e.g. `https://gitlab.com/api/v4`. */
  readonly apiUrl: string
  /** `GITLAB_TOKEN`: a token with the `api` scope. */
  readonly token: string
}

export interface GitLabApiOptions {
  /** Node's global `fetch` unless a test gives another. */
  readonly fetch?: typeof fetch
  /** How long one call (all its attempts) may last; `GITLAB_LIMITS.callMs` unless a test says. */
  readonly callDeadlineMs?: number
}

/** A job's status as GitLab gives it (`created`, `pending`, `running`, `success`, …). */
export type JobStatus = string

/** A job as a pass reads it: its status, and the pipeline it belongs to. */
export interface JobState {
  readonly status: JobStatus
  readonly pipeline: number | undefined
}

/** The statuses of a job that will not run on: its script and after_script are over. */
const FINISHED_JOB = new Set(['success', 'failed', 'canceled', 'skipped'])

/** Whether a job's status says it has finished (whatever its result). */
export function jobFinished(status: JobStatus): boolean {
  return FINISHED_JOB.has(status)
}

/** A pipeline as GitLab lists a merge request's (the fields read). */
export interface ListedPipeline {
  readonly id: number
  readonly sha: string
  readonly status: string
}

/** A commit as compare lists it (the fields read). */
export interface ComparedCommit {
  readonly id: string
  readonly title: string
}

/** A project's numeric ID or its path (`group/sub/app`), as a path segment GitLab takes. */
export function projectSegment(project: string): string {
  return encodeURIComponent(project)
}

/** GitLab's REST API over one token: a call under a deadline, retried after a 5xx. */
export class GitLabApi {
  readonly #access: GitLabAccess
  readonly #options: GitLabApiOptions

  constructor(access: GitLabAccess, options: GitLabApiOptions = {}) {
    this.#access = access
    this.#options = options
  }

  /** A job's status and its pipeline: `GET /projects/:id/jobs/:job_id`. */
  async job(project: string, jobId: string): Promise<JobState> {
    const { json } = await this.call('GET', `/projects/${projectSegment(project)}/jobs/${jobId}`)
    const job = json as { status?: unknown; pipeline?: { id?: unknown } } | undefined
    const status = job?.status
    if (typeof status !== 'string') throw new GitLabFailure(`job ${jobId} came back with no status`)
    const pipeline = job?.pipeline?.id
    return {
      status,
      pipeline:
        typeof pipeline === 'number' && Number.isSafeInteger(pipeline) && pipeline > 0
          ? pipeline
          : undefined,
    }
  }

  /** A merge request's pipelines, newest first (one page of 20). */
  async mergeRequestPipelines(project: string, iid: number): Promise<ListedPipeline[]> {
    const { json } = await this.call(
      'GET',
      `/projects/${projectSegment(project)}/merge_requests/${iid}/pipelines?per_page=20`,
    )
    if (!Array.isArray(json)) return []
    return (json as Array<Partial<ListedPipeline>>).flatMap((pipeline) =>
      typeof pipeline.id === 'number'
        ? [
            {
              id: pipeline.id,
              sha: String(pipeline.sha ?? ''),
              status: String(pipeline.status ?? ''),
            },
          ]
        : [],
    )
  }

  /** The merge base of two commits: `GET /projects/:id/repository/merge_base`. */
  async mergeBase(project: string, a: string, b: string): Promise<string | undefined> {
    const query = `refs[]=${encodeURIComponent(a)}&refs[]=${encodeURIComponent(b)}`
    const { json } = await this.call(
      'GET',
      `/projects/${projectSegment(project)}/repository/merge_base?${query}`,
    )
    const id = (json as { id?: unknown } | undefined)?.id
    return typeof id === 'string' ? id : undefined
  }

  /** The commits from `from` to `to`, oldest first: `GET /projects/:id/repository/compare`. */
  async compare(project: string, from: string, to: string): Promise<ComparedCommit[]> {
    const query = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&straight=true`
    const { json } = await this.call(
      'GET',
      `/projects/${projectSegment(project)}/repository/compare?${query}`,
    )
    const commits = (json as { commits?: unknown } | undefined)?.commits
    if (!Array.isArray(commits)) return []
    return (commits as Array<{ id?: unknown; title?: unknown }>).flatMap((commit) =>
      typeof commit.id === 'string'
        ? [{ id: commit.id, title: typeof commit.title === 'string' ? commit.title : '' }]
        : [],
    )
  }

  /**
   * One call under one deadline: after a 5xx or a broken connection it is asked again, after
   * each pause, while the deadline allows. A redirect is not followed: the token stays with
   * CI_API_V4_URL.
   */
  async call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: unknown,
  ): Promise<{ json: unknown; headers: Headers }> {
    const deadlineMs = this.#options.callDeadlineMs ?? GITLAB_LIMITS.callMs
    const signal = AbortSignal.timeout(deadlineMs)
    const pauses = [...GITLAB_LIMITS.transientPausesMs]
    const fetcher = this.#options.fetch ?? fetch
    for (;;) {
      let failure: GitLabFailure
      try {
        const response = await fetcher(`${this.#access.apiUrl}${path}`, {
          method,
          headers: {
            'private-token': this.#access.token,
            accept: 'application/json',
            'user-agent': USER_AGENT,
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: payload === undefined ? undefined : JSON.stringify(payload),
          redirect: 'manual',
          signal,
        })
        const text = await response.text()
        if (response.ok) return { json: parseJson(text), headers: response.headers }
        failure = refusal(method, path, response.status, text, response.headers)
        if (response.status < 500) throw failure
      } catch (error) {
        if (error instanceof GitLabFailure) throw error
        if (signal.aborted) {
          throw new GitLabFailure(`${method} ${path} had no answer within ${seconds(deadlineMs)}`)
        }
        failure = new GitLabFailure(`${method} ${path} failed: ${causeOf(error)}`)
      }
      const pause = pauses.shift()
      if (pause === undefined) throw failure
      if (!(await pauseUnlessAborted(pause, signal))) throw failure
    }
  }
}

/** A call GitLab failed or refused; `status` when it answered. */
export class GitLabFailure extends Error {
  readonly status: number | undefined

  constructor(message: string, status?: number) {
    super(message)
    this.name = 'GitLabFailure'
    this.status = status
  }
}

/** Why a GitLab call failed, for one line of the log. */
export function gitlabReason(error: unknown): string {
  return safeForLog(error instanceof GitLabFailure ? error.message : causeOf(error), 300)
}

/** `GET /user → 401 Unauthorized`, with GitLab's own message when it gives one. */
function refusal(
  method: string,
  path: string,
  status: number,
  text: string,
  headers: Headers,
): GitLabFailure {
  if (status >= 300 && status < 400) {
    const location = safeForLog(headers.get('location') ?? '', 200)
    return new GitLabFailure(
      `${method} ${path} answered ${status} with a redirect to ${location}, which is not followed so the token stays with CI_API_V4_URL`,
      status,
    )
  }
  const message = (parseJson(text) as { message?: unknown; error?: unknown } | undefined) ?? {}
  const said = message.message ?? message.error
  const words = typeof said === 'string' ? said : said === undefined ? '' : JSON.stringify(said)
  const shown = words.startsWith(String(status)) ? words : `${status} ${words}`.trim()
  return new GitLabFailure(`${method} ${path} → ${safeForLog(shown, 200)}`, status)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause
  const code = typeof cause?.code === 'string' ? cause.code : undefined
  const message = error instanceof Error ? error.message : String(error)
  return code ? `${message} (${code})` : message
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}

/** Waits `ms`; false, at once, when the signal aborts first (or already has). */
function pauseUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
