/**
 * A fake of the few GitHub REST endpoints the action uses on real loopback HTTP: GET /user;
 * list/create issue comments (a thread's, or a repository's), get/update/delete an issue
 * comment; a collaborator's permission; commit statuses; pull requests whose head a test can
 * move, their files and reviews; check runs (create, update, get, list a commit's); workflow
 * runs. Answers are
 * shaped like GitHub's (pagination with a Link header, `{message, documentation_url}` errors),
 * so the action's GitHub client (`createOctokit(token, fake.apiUrl)`) works against it as is.
 */
import { randomUUID } from 'node:crypto'
import { createServer, STATUS_CODES } from 'node:http'
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type UserType = 'User' | 'Bot'

export interface FakeGitHubOptions {
  /** The one token the fake accepts, as `token X` or `Bearer X`. Default `gh-token`. */
  token?: string
  /**
   * Who the token belongs to. `'integration'` (the default) behaves like a workflow's
   * GITHUB_TOKEN: GET /user answers 403 "Resource not accessible by integration", and comments
   * created with the token are written by `botLogin`.
   */
  identity?: { login: string; type?: UserType } | 'integration'
  /** The author of comments created with an `'integration'` token. Default `github-actions[bot]`. */
  botLogin?: string
  /** The web host used in `html_url`s. Default `https://github.com`. */
  serverUrl?: string
  /** Default true. False: the token lacks `checks: write`, so check runs answer 403. */
  checksWrite?: boolean
}

export interface GitHubUser {
  login: string
  id: number
  node_id: string
  type: UserType
  site_admin: boolean
  url: string
  html_url: string
}

export interface Comment {
  id: number
  node_id: string
  url: string
  html_url: string
  issue_url: string
  body: string
  user: GitHubUser
  author_association: string
  created_at: string
  updated_at: string
}

export interface RecordedGitHubRequest {
  method: string
  /** The path without the query, e.g. `/repos/o/r/issues/1/comments`. */
  path: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  body: string
  /** The parsed body; undefined when it is empty or not JSON. */
  json: unknown
  /** `performance.now()` when the body had been read (monotonic, this process's clock). */
  receivedAt: number
}

export interface FailOptions {
  /** The `message` of the error body. Default: GitHub's usual one for the status. */
  message?: string
  /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
  headers?: Record<string, string>
  /** How many matching requests fail. Default 1. */
  times?: number
  /** How many matching requests pass before the first that fails. Default 0. */
  after?: number
  /**
   * The request takes effect, and then its answer is lost: GitHub made the review or updated
   * the check run, and a gateway answers the error in its place (a 502 after the write).
   */
  afterEffect?: boolean
}

interface StoredComment {
  id: number
  owner: string
  repo: string
  issueNumber: number
  body: string
  author: GitHubUser
  association: string
  createdAt: Date
  updatedAt: Date
}

/** A repository role, as `role_name` reports it; `none` for a user without access. */
export type RepositoryRole = 'none' | 'read' | 'triage' | 'write' | 'maintain' | 'admin'

export type CommitState = 'pending' | 'success' | 'failure' | 'error'

export interface CommitStatus {
  id: number
  url: string
  state: CommitState
  description: string | null
  target_url: string | null
  context: string
  created_at: string
  updated_at: string
  creator: GitHubUser
}

/** An issue as the fake answers it. */
export interface IssueSeed {
  title: string
  body: string | null
  author: string
  state?: 'open' | 'closed'
}

export interface PullRequestSeed {
  headSha: string
  headRef?: string
  baseRef?: string
  /** The head's repository, `owner/repo`; default the pull request's own (not a fork). */
  headRepo?: string
  state?: 'open' | 'closed'
  /** Who opened it (`user.login`); default `octocat`. */
  author?: string
  /** A draft (`draft: true`); default false. */
  draft?: boolean
  /** When it was opened, ISO 8601; default the fake's clock when it is set. */
  createdAt?: string
  /** When it was merged (it is then closed); undefined for never. */
  mergedAt?: string
  /** When it was closed; for a merged one, its merge time when not given. */
  closedAt?: string
}

/** A workflow run as GET /repos/{owner}/{repo}/actions/runs/{id} shows it (its latest attempt). */
export interface WorkflowRunSeed {
  status: 'queued' | 'in_progress' | 'completed'
  conclusion?: 'success' | 'failure' | 'cancelled' | 'timed_out' | null
  /** Default 1. */
  runAttempt?: number
  /** The workflow it is a run of (`workflow_id`); default 1001. */
  workflowId?: number
  /** The pull requests it runs for (`pull_requests`, by number); default none. */
  pullRequests?: number[]
}

interface StoredPullRequest extends Required<PullRequestSeed> {
  owner: string
  repo: string
  number: number
}

/** A commit of a repository's history (see `FakeGitHub.setHistory`). */
export interface HistoryCommit {
  sha: string
  message: string
}

/** A changed file of a pull request, as GET .../pulls/{n}/files lists it. */
export interface PullRequestFile {
  filename: string
  /** The unified diff of the file; GitHub leaves it out for binary and huge files. */
  patch?: string
  status?: 'added' | 'modified' | 'removed' | 'renamed'
}

export interface ReviewCommentView {
  path: string
  line: number
  side: 'LEFT' | 'RIGHT'
  start_line?: number
  body: string
}

export interface Review {
  id: number
  user: GitHubUser
  body: string
  state: 'COMMENTED' | 'CHANGES_REQUESTED' | 'APPROVED'
  html_url: string
  commit_id: string
  submitted_at: string
  comments: ReviewCommentView[]
}

export interface Annotation {
  path: string
  start_line: number
  end_line: number
  annotation_level: string
  message: string
}

export interface CheckRun {
  id: number
  name: string
  head_sha: string
  external_id: string | null
  status: string
  conclusion: string | null
  details_url: string | null
  output: { title: string | null; summary: string | null }
  annotations: Annotation[]
  /** Every write, in order: the create, then each update's body. */
  writes: unknown[]
}

interface Barrier {
  method: string
  path: RegExp | string
  count: number
  waiting: Array<() => void>
}

interface Fault {
  method: string
  path: RegExp | string
  status: number
  options: FailOptions
  remaining: number
  passing: number
}

interface Reply {
  status: number
  headers: Record<string, string>
  body: string
}

const DOCS = 'https://docs.github.com/rest'
const DEFAULT_PER_PAGE = 30
const MAX_PER_PAGE = 100
/** GitHub refuses comment bodies longer than this many characters. */
export const MAX_COMMENT_BODY = 65536
const GITHUB_ACTIONS_BOT_ID = 41898282
const REPO_COMMENTS_PATH = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments$/
const COMMENTS_PATH = /^\/repos\/([^/]+)\/([^/]+)\/issues\/([1-9]\d*)\/comments$/
const COMMENT_PATH = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/([1-9]\d*)$/
const PERMISSION_PATH = /^\/repos\/([^/]+)\/([^/]+)\/collaborators\/([^/]+)\/permission$/
const STATUSES_PATH = /^\/repos\/([^/]+)\/([^/]+)\/statuses\/([^/]+)$/
const COMMIT_STATUSES_PATH = /^\/repos\/([^/]+)\/([^/]+)\/commits\/([^/]+)\/statuses$/
const WORKFLOW_RUN_PATH = /^\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/([1-9]\d*)$/
const WORKFLOW_RUNS_OF_PATH = /^\/repos\/([^/]+)\/([^/]+)\/actions\/workflows\/([1-9]\d*)\/runs$/
const PULL_PATH = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/([1-9]\d*)$/
const ISSUE_PATH = /^\/repos\/([^/]+)\/([^/]+)\/issues\/([1-9]\d*)$/
const COMPARE_PATH = /^\/repos\/([^/]+)\/([^/]+)\/compare\/([0-9a-f]{7,64})\.\.\.([0-9a-f]{7,64})$/
const PULL_FILES_PATH = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/([1-9]\d*)\/files$/
const REVIEWS_PATH = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/([1-9]\d*)\/reviews$/
const REVIEW_PATH = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/([1-9]\d*)\/reviews\/([1-9]\d*)$/
const CHECK_RUNS_PATH = /^\/repos\/([^/]+)\/([^/]+)\/check-runs$/
const CHECK_RUN_PATH = /^\/repos\/([^/]+)\/([^/]+)\/check-runs\/([1-9]\d*)$/
const COMMIT_CHECK_RUNS_PATH = /^\/repos\/([^/]+)\/([^/]+)\/commits\/([^/]+)\/check-runs$/
/** GitHub takes at most 50 annotations in one request. */
export const MAX_ANNOTATIONS_PER_REQUEST = 50
/** GitHub refuses a commit status description longer than this. */
export const MAX_STATUS_DESCRIPTION = 140
const COMMIT_STATES: readonly string[] = ['pending', 'success', 'failure', 'error']
/** `permission` as GitHub reports it next to `role_name`: the legacy levels only. */
const LEGACY_PERMISSION: Record<RepositoryRole, string> = {
  none: 'none',
  read: 'read',
  triage: 'read',
  write: 'write',
  maintain: 'write',
  admin: 'admin',
}

const DEFAULT_MESSAGES: Readonly<Record<number, string>> = {
  401: 'Bad credentials',
  403: 'Resource not accessible by integration',
  404: 'Not Found',
  422: 'Validation Failed',
  500: 'Server Error',
  502: 'Server Error',
  503: 'Service Unavailable',
}

export class FakeGitHub {
  /** GitHub's API root, e.g. `http://127.0.0.1:PORT`, without a trailing slash. */
  readonly apiUrl: string
  /** Every request in arrival order, recorded before faults and auth apply. */
  readonly requests: RecordedGitHubRequest[] = []
  /** The author of comments created with the token. */
  readonly tokenUser: GitHubUser

  readonly #server: Server
  readonly #token: string
  readonly #integration: boolean
  readonly #serverUrl: string
  readonly #comments = new Map<number, StoredComment>()
  readonly #userIds = new Map<string, number>()
  readonly #roles = new Map<string, RepositoryRole>()
  readonly #statuses: Array<CommitStatus & { owner: string; repo: string; sha: string }> = []
  readonly #pulls = new Map<string, StoredPullRequest>()
  /** Each repository's history, as chains of commits, oldest first (see `setHistory`). */
  readonly #histories = new Map<string, Array<readonly HistoryCommit[]>>()
  readonly #files = new Map<string, PullRequestFile[]>()
  readonly #reviews: Array<Review & { key: string }> = []
  readonly #checkRuns: Array<CheckRun & { owner: string; repo: string }> = []
  readonly #checksWrite: boolean
  #nextReviewId = 3_000_000_001
  #nextCheckRunId = 4_000_000_001
  readonly #workflowRuns = new Map<string, WorkflowRunSeed>()
  readonly #issues = new Map<string, IssueSeed & { updatedAt: Date }>()
  /** How far the fake's clock runs ahead of the machine's: `advance` moves it, never back. */
  #aheadMs = 0
  #defaultRole: RepositoryRole = 'read'
  #faults: Fault[] = []
  #barriers: Barrier[] = []
  #nextStatusId = 20_000_000_001
  /** Requests matching these are read and never answered (a GitHub that stopped answering). */
  #hangs: Array<{ method: string; path: RegExp | string }> = []
  #nextCommentId = 1_000_000_001
  #nextUserId = 1001
  #closing: Promise<void> | undefined

  private constructor(server: Server, apiUrl: string, options: FakeGitHubOptions) {
    this.#server = server
    this.apiUrl = apiUrl
    this.#token = options.token ?? 'gh-token'
    this.#serverUrl = (options.serverUrl ?? 'https://github.com').replace(/\/+$/, '')
    this.#checksWrite = options.checksWrite ?? true
    const identity = options.identity ?? 'integration'
    this.#integration = identity === 'integration'
    this.tokenUser =
      identity === 'integration'
        ? this.#user(options.botLogin ?? 'github-actions[bot]', 'Bot')
        : this.#user(identity.login, identity.type ?? 'User')
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.#onRequest(req, res).catch(() => req.socket.destroy())
    })
  }

  static async start(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
    const { port } = server.address() as AddressInfo
    return new FakeGitHub(server, `http://127.0.0.1:${port}`, options)
  }

  /**
   * Seeds a comment by anyone, without HTTP. `author` is a login (a `[bot]` suffix makes it a
   * Bot) or a user. `association` defaults to OWNER when the login is the repo's owner, else NONE.
   */
  addComment(
    owner: string,
    repo: string,
    issueNumber: number,
    body: string,
    author: string | { login: string; type: UserType },
    options: { createdAt?: Date | string; association?: string } = {},
  ): Comment {
    const user =
      typeof author === 'string'
        ? this.#user(author, author.endsWith('[bot]') ? 'Bot' : 'User')
        : this.#user(author.login, author.type)
    const createdAt = options.createdAt === undefined ? this.#now() : new Date(options.createdAt)
    if (Number.isNaN(createdAt.getTime()))
      throw new Error(`invalid createdAt: ${String(options.createdAt)}`)
    const stored = this.#store(owner, repo, issueNumber, body, user, createdAt, options.association)
    return this.#view(stored)
  }

  /** A person edits a comment, without HTTP: its text changes and its updated_at moves. */
  editComment(commentId: number, body: string): void {
    const stored = this.#comments.get(commentId)
    if (!stored) throw new Error(`no comment ${commentId}`)
    stored.body = body
    stored.updatedAt = this.#now()
  }

  /** A person deletes a comment, without HTTP. */
  deleteComment(commentId: number): void {
    this.#comments.delete(commentId)
  }

  /** The comments on an issue or pull request, oldest first (ascending ID, as GitHub lists them). */
  comments(owner: string, repo: string, issueNumber: number): Comment[] {
    return this.#thread(owner, repo, issueNumber).map((c) => this.#view(c))
  }

  /** One comment by ID, wherever it is, or undefined. */
  comment(commentId: number): Comment | undefined {
    const stored = this.#comments.get(commentId)
    return stored ? this.#view(stored) : undefined
  }

  /**
   * Makes the next `options.times` (default 1) requests matching `method` (case-insensitive; `*`
   * for any) and `path` (a RegExp tested on the path without the query, or an exact path) answer
   * `status` with a GitHub-style error body, without acting on them (with `afterEffect`, after
   * acting on them: the answer of a write that took effect is lost).
   */
  failNext(method: string, path: RegExp | string, status: number, options: FailOptions = {}): void {
    const times = options.times ?? 1
    if (!(times > 0)) throw new Error(`times must be positive, got ${times}`)
    this.#faults.push({
      method,
      path,
      status,
      options,
      remaining: times,
      passing: options.after ?? 0,
    })
  }

  /**
   * Makes the next `times` requests matching `method` and `path` answer as GitHub's secondary
   * rate limit does: 403, "You have exceeded a secondary rate limit", and a `retry-after`.
   */
  secondaryRateLimitNext(
    method: string,
    path: RegExp | string,
    retryAfterSeconds: number,
    times = 1,
  ): void {
    this.failNext(method, path, 403, {
      message:
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      headers: { 'retry-after': String(retryAfterSeconds) },
      times,
    })
  }

  /**
   * From now on, requests matching `method` and `path` (default: every request) are read and
   * never answered; the socket stays open until the fake closes.
   */
  stopAnswering(method = '*', path: RegExp | string = /.*/): void {
    this.#hangs.push({ method, path })
  }

  clearFaults(): void {
    this.#faults = []
    this.#hangs = []
  }

  /**
   * Holds the next `count` requests matching `method` and `path` until all of them have
   * arrived, then lets them through together: two steps racing to create a comment, for sure.
   */
  holdUntil(method: string, path: RegExp | string, count: number): void {
    if (!(count > 1)) throw new Error(`count must be at least 2, got ${count}`)
    this.#barriers.push({ method, path, count, waiting: [] })
  }

  /**
   * A user's role on a repository, for GET .../collaborators/{user}/permission. Users never
   * given one have `defaultRole` (`read` unless changed: anyone can read a public repository).
   */
  setRole(owner: string, repo: string, login: string, role: RepositoryRole): void {
    this.#roles.set(roleKey(owner, repo, login), role)
  }

  set defaultRole(role: RepositoryRole) {
    this.#defaultRole = role
  }

  /** Opens (or replaces) a pull request; GET .../pulls/{number} answers it. */
  setPullRequest(owner: string, repo: string, number: number, seed: PullRequestSeed): void {
    this.#pulls.set(pullKey(owner, repo, number), {
      owner,
      repo,
      number,
      headRef: 'feature',
      baseRef: 'main',
      headRepo: `${owner}/${repo}`,
      state: seed.mergedAt ? 'closed' : 'open',
      author: 'octocat',
      draft: false,
      createdAt: iso(this.#now()),
      mergedAt: '',
      closedAt: seed.mergedAt ?? '',
      ...seed,
    })
  }

  /** The pull request as the fake holds it, or undefined. */
  pullRequest(owner: string, repo: string, number: number): Readonly<PullRequestSeed> | undefined {
    const found = this.#pulls.get(pullKey(owner, repo, number))
    return found ? { ...found } : undefined
  }

  /** Adds a finished (or queued) check run to a commit, as another app would. */
  addCheckRun(
    owner: string,
    repo: string,
    run: { name: string; headSha: string; status?: string; conclusion?: string | null },
  ): void {
    this.#checkRuns.push({
      owner,
      repo,
      id: this.#nextCheckRunId++,
      name: run.name,
      head_sha: run.headSha,
      external_id: null,
      status: run.status ?? 'completed',
      conclusion: run.conclusion === undefined ? 'success' : run.conclusion,
      details_url: null,
      output: { title: null, summary: null },
      annotations: [],
      writes: [],
    })
  }

  /** Now, to the second, as GitHub's timestamps are, on the fake's clock. */
  #now(): Date {
    return secondsOf(Date.now() + this.#aheadMs)
  }

  /**
   * Moves the fake's clock on by `ms` (virtual time): what GitHub writes after this is that much
   * later, so a test orders two events a second apart without waiting a second.
   */
  advance(ms: number): void {
    this.#aheadMs += ms
  }

  /** The fake's clock now, to the second (ISO 8601), as its next write would stamp it. */
  nowIso(): string {
    return iso(this.#now())
  }

  /**
   * Sets (or replaces) an issue as GitHub answers GET .../issues/{number}: its title, text,
   * author and state. Setting it again is an edit (its updated_at moves).
   */
  setIssue(owner: string, repo: string, number: number, seed: IssueSeed): void {
    this.#issues.set(pullKey(owner, repo, number), { ...seed, updatedAt: this.#now() })
  }

  /** Sets (or replaces) a workflow run; GET .../actions/runs/{id} answers it, else 404. */
  setWorkflowRun(owner: string, repo: string, id: number | string, seed: WorkflowRunSeed): void {
    this.#workflowRuns.set(pullKey(owner, repo, Number(id)), seed)
  }

  /**
   * A line of history in the repository, oldest commit first: GET .../compare/{base}...{head}
   * answers `ahead` with the commits after `base` when both are on one line, `identical`,
   * `behind`, or `diverged` when they are on different lines (a force push), else 404.
   */
  setHistory(owner: string, repo: string, commits: readonly HistoryCommit[]): void {
    const key = `${owner}/${repo}`.toLowerCase()
    this.#histories.set(key, [...(this.#histories.get(key) ?? []), commits])
  }

  /** A push to the pull request's branch: its head moves to `sha`. */
  moveHead(owner: string, repo: string, number: number, sha: string): void {
    const pull = this.#pulls.get(pullKey(owner, repo, number))
    if (!pull) throw new Error(`no pull request ${owner}/${repo}#${number}`)
    pull.headSha = sha
  }

  /** The pull request's changed files, with their patches, for GET .../pulls/{n}/files. */
  setPullRequestFiles(owner: string, repo: string, number: number, files: PullRequestFile[]): void {
    this.#files.set(pullKey(owner, repo, number), structuredClone(files))
  }

  /**
   * Seeds a review by anyone, without HTTP (a person's approval, say): `commitId` defaults to
   * the pull request's head now. A `[bot]` login makes a Bot.
   */
  addReview(
    owner: string,
    repo: string,
    number: number,
    review: { login: string; state: Review['state']; commitId?: string; body?: string },
  ): Review {
    const key = pullKey(owner, repo, number)
    const id = this.#nextReviewId++
    const stored = {
      key,
      id,
      user: this.#user(review.login, review.login.endsWith('[bot]') ? 'Bot' : 'User'),
      body: review.body ?? '',
      state: review.state,
      html_url: `${this.#serverUrl}/${owner}/${repo}/pull/${number}#pullrequestreview-${id}`,
      commit_id: review.commitId ?? this.#pulls.get(key)?.headSha ?? '',
      submitted_at: iso(this.#now()),
      comments: [],
    }
    this.#reviews.push(stored)
    return { ...reviewView(stored), comments: [] }
  }

  /** The reviews on a pull request, oldest first. */
  reviews(owner: string, repo: string, number: number): Review[] {
    const key = pullKey(owner, repo, number)
    return this.#reviews
      .filter((review) => review.key === key)
      .map((review) => ({ ...reviewView(review), comments: structuredClone(review.comments) }))
  }

  /** The check runs on a commit, oldest first. */
  checkRuns(owner: string, repo: string, sha: string): CheckRun[] {
    return this.#checkRuns
      .filter((run) => run.head_sha === sha && sameRepo(run, owner, repo))
      .map((run) => ({
        id: run.id,
        name: run.name,
        head_sha: run.head_sha,
        external_id: run.external_id,
        status: run.status,
        conclusion: run.conclusion,
        details_url: run.details_url,
        output: { ...run.output },
        annotations: structuredClone(run.annotations),
        writes: structuredClone(run.writes),
      }))
  }

  /** The statuses set on a commit, oldest first. */
  statuses(owner: string, repo: string, sha: string): CommitStatus[] {
    return this.#statuses
      .filter((s) => s.sha === sha && sameRepo(s, owner, repo))
      .map((s): CommitStatus => ({
        id: s.id,
        url: s.url,
        state: s.state,
        description: s.description,
        target_url: s.target_url,
        context: s.context,
        created_at: s.created_at,
        updated_at: s.updated_at,
        creator: { ...s.creator },
      }))
  }

  requestsTo(method: string, path: RegExp | string): RecordedGitHubRequest[] {
    return this.requests.filter((r) => matches(r, method, path))
  }

  /** Stops listening and drops open connections at once. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeAllConnections()
    })
    return this.#closing
  }

  async #onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk)
    const body = Buffer.concat(chunks).toString('utf8')
    const url = new URL(req.url ?? '/', this.apiUrl)
    const request: RecordedGitHubRequest = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json: parseJson(body),
      receivedAt: performance.now(),
    }
    this.requests.push(request)
    await this.#barrier(request)
    if (this.#hangs.some((hang) => matches(request, hang.method, hang.path))) return
    const fault = this.#takeFault(request)
    if (fault && !fault.options.afterEffect) return send(res, faultReply(fault))
    const reply = this.#authenticate(request) ?? this.#route(request, url)
    send(res, fault ? faultReply(fault) : reply)
  }

  async #barrier(request: RecordedGitHubRequest): Promise<void> {
    const barrier = this.#barriers.find((b) => matches(request, b.method, b.path))
    if (!barrier) return
    const released = new Promise<void>((resolve) => barrier.waiting.push(resolve))
    if (barrier.waiting.length >= barrier.count) {
      this.#barriers = this.#barriers.filter((b) => b !== barrier)
      for (const release of barrier.waiting) release()
    }
    await released
  }

  #takeFault(request: RecordedGitHubRequest): Fault | undefined {
    const fault = this.#faults.find((f) => matches(request, f.method, f.path))
    if (!fault) return undefined
    if (fault.passing > 0) {
      fault.passing -= 1
      return undefined
    }
    fault.remaining -= 1
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault)
    return fault
  }

  #authenticate(request: RecordedGitHubRequest): Reply | undefined {
    const header = request.headers.authorization ?? ''
    const match = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(header)
    if (match?.[1] === this.#token) return undefined
    return error(401, 'Bad credentials')
  }

  #route(request: RecordedGitHubRequest, url: URL): Reply {
    const { method, path } = request
    if (path === '/user' && method === 'GET') {
      if (this.#integration) {
        return error(
          403,
          'Resource not accessible by integration',
          'users/users#get-the-authenticated-user',
        )
      }
      return ok(200, this.tokenUser)
    }
    const repoComments = REPO_COMMENTS_PATH.exec(path)
    if (repoComments && method === 'GET') {
      const [, owner = '', repo = ''] = repoComments
      const all = [...this.#comments.values()]
        .filter((c) => sameRepo(c, owner, repo))
        .sort((a, b) => a.id - b.id)
      return this.#page(this.#since(all, url), url, (c) => this.#view(c))
    }
    const thread = COMMENTS_PATH.exec(path)
    if (thread) {
      const [, owner = '', repo = '', number = ''] = thread
      if (method === 'GET') return this.#list(owner, repo, Number(number), url)
      if (method === 'POST') return this.#create(request, owner, repo, Number(number))
    }
    const single = COMMENT_PATH.exec(path)
    if (single) {
      const [, owner = '', repo = '', id = ''] = single
      const stored = this.#comments.get(Number(id))
      const found = stored && sameRepo(stored, owner, repo) ? stored : undefined
      if (method === 'GET' && found) return ok(200, this.#view(found))
      if (method === 'PATCH' && found) return this.#update(request, found)
      if (method === 'DELETE' && found) {
        this.#comments.delete(found.id)
        return { status: 204, headers: headers(), body: '' }
      }
      if (method === 'GET' || method === 'PATCH' || method === 'DELETE') {
        return error(404, 'Not Found', 'issues/comments#update-an-issue-comment')
      }
    }
    const permission = PERMISSION_PATH.exec(path)
    if (permission && method === 'GET') {
      const [, owner = '', repo = '', login = ''] = permission
      return this.#permission(owner, repo, decodeURIComponent(login))
    }
    const statuses = STATUSES_PATH.exec(path)
    if (statuses && method === 'POST') {
      const [, owner = '', repo = '', sha = ''] = statuses
      return this.#createStatus(request, owner, repo, sha)
    }
    const commitStatuses = COMMIT_STATUSES_PATH.exec(path)
    if (commitStatuses && method === 'GET') {
      const [, owner = '', repo = '', sha = ''] = commitStatuses
      return ok(200, this.statuses(owner, repo, sha).reverse())
    }
    const files = PULL_FILES_PATH.exec(path)
    if (files && method === 'GET') {
      const [, owner = '', repo = '', number = ''] = files
      const key = pullKey(owner, repo, Number(number))
      if (!this.#pulls.has(key))
        return error(404, 'Not Found', 'pulls/pulls#list-pull-requests-files')
      return this.#page(this.#files.get(key) ?? [], url, (file) => ({
        sha: '0'.repeat(40),
        filename: file.filename,
        status: file.status ?? 'modified',
        additions: 0,
        deletions: 0,
        changes: 0,
        ...(file.patch === undefined ? {} : { patch: file.patch }),
      }))
    }
    const reviews = REVIEWS_PATH.exec(path)
    if (reviews) {
      const [, owner = '', repo = '', number = ''] = reviews
      const key = pullKey(owner, repo, Number(number))
      if (!this.#pulls.has(key)) return error(404, 'Not Found', 'pulls/reviews')
      if (method === 'GET') {
        return this.#page(this.reviews(owner, repo, Number(number)), url, reviewView)
      }
      if (method === 'POST') return this.#createReview(request, owner, repo, Number(number))
    }
    const review = REVIEW_PATH.exec(path)
    if (review && method === 'PUT') {
      const [, owner = '', repo = '', number = '', id = ''] = review
      const stored = this.#reviews.find(
        (r) => r.id === Number(id) && r.key === pullKey(owner, repo, Number(number)),
      )
      const body = (request.json as { body?: unknown } | undefined)?.body
      if (!stored)
        return error(404, 'Not Found', 'pulls/reviews#update-a-review-for-a-pull-request')
      if (stored.user.login !== this.tokenUser.login) {
        return error(403, 'Resource not accessible by integration')
      }
      if (typeof body !== 'string' || body === '') {
        return validation('pulls/reviews', {
          resource: 'PullRequestReview',
          code: 'missing_field',
          field: 'body',
        })
      }
      stored.body = body
      return ok(200, reviewView(stored))
    }
    const checkRuns = CHECK_RUNS_PATH.exec(path)
    if (checkRuns && method === 'POST') {
      const [, owner = '', repo = ''] = checkRuns
      return this.#createCheckRun(request, owner, repo)
    }
    const checkRun = CHECK_RUN_PATH.exec(path)
    if (checkRun && method === 'PATCH') {
      const [, owner = '', repo = '', id = ''] = checkRun
      return this.#updateCheckRun(request, owner, repo, Number(id))
    }
    if (checkRun && method === 'GET') {
      const [, owner = '', repo = '', id = ''] = checkRun
      const found = this.#checkRuns.find((r) => r.id === Number(id) && sameRepo(r, owner, repo))
      return found
        ? ok(200, this.#checkRunView(found))
        : error(404, 'Not Found', 'checks/runs#get-a-check-run')
    }
    const commitCheckRuns = COMMIT_CHECK_RUNS_PATH.exec(path)
    if (commitCheckRuns && method === 'GET') {
      const [, owner = '', repo = '', ref = ''] = commitCheckRuns
      return this.#listCheckRuns(owner, repo, decodeURIComponent(ref), url)
    }
    const workflowRun = WORKFLOW_RUN_PATH.exec(path)
    if (workflowRun && method === 'GET') {
      const [, owner = '', repo = '', id = ''] = workflowRun
      const found = this.#workflowRuns.get(pullKey(owner, repo, Number(id)))
      return found
        ? ok(200, this.#workflowRunView(owner, repo, Number(id), found))
        : error(404, 'Not Found', 'actions/workflow-runs#get-a-workflow-run')
    }
    const workflowRuns = WORKFLOW_RUNS_OF_PATH.exec(path)
    if (workflowRuns && method === 'GET') {
      const [, owner = '', repo = '', workflowId = ''] = workflowRuns
      return this.#listWorkflowRuns(owner, repo, Number(workflowId), url)
    }
    const compare = COMPARE_PATH.exec(path)
    if (compare && method === 'GET') {
      const [, owner = '', repo = '', base = '', head = ''] = compare
      return this.#compare(owner, repo, base, head)
    }
    const issue = ISSUE_PATH.exec(path)
    if (issue && method === 'GET') {
      const [, owner = '', repo = '', number = ''] = issue
      const found = this.#issues.get(pullKey(owner, repo, Number(number)))
      if (!found) return error(404, 'Not Found', 'issues/issues#get-an-issue')
      return ok(200, {
        number: Number(number),
        title: found.title,
        body: found.body,
        state: found.state ?? 'open',
        user: this.#user(found.author, found.author.endsWith('[bot]') ? 'Bot' : 'User'),
        updated_at: iso(found.updatedAt),
      })
    }
    const pull = PULL_PATH.exec(path)
    if (pull && (method === 'GET' || method === 'PATCH')) {
      const [, owner = '', repo = '', number = ''] = pull
      const found = this.#pulls.get(pullKey(owner, repo, Number(number)))
      if (!found) return error(404, 'Not Found', 'pulls/pulls#get-a-pull-request')
      if (method === 'PATCH') return this.#updatePull(request, found)
      return ok(200, this.#pullView(found))
    }
    return error(404, 'Not Found')
  }

  #compare(owner: string, repo: string, base: string, head: string): Reply {
    const lines = this.#histories.get(`${owner}/${repo}`.toLowerCase()) ?? []
    const find = (sha: string) => {
      for (const [line, commits] of lines.entries()) {
        const index = commits.findIndex((commit) => commit.sha === sha)
        if (index >= 0) return { line, index, commits }
      }
      return undefined
    }
    const [from, to] = [find(base), find(head)]
    if (!from || !to) return error(404, 'Not Found', 'commits/commits#compare-two-commits')
    const view = (commit: HistoryCommit) => ({
      sha: commit.sha,
      commit: { message: commit.message },
    })
    if (from.line !== to.line) {
      return ok(200, { status: 'diverged', ahead_by: to.index + 1, behind_by: 1, commits: [] })
    }
    const status =
      from.index === to.index ? 'identical' : from.index < to.index ? 'ahead' : 'behind'
    const commits = status === 'ahead' ? to.commits.slice(from.index + 1, to.index + 1) : []
    return ok(200, {
      status,
      ahead_by: Math.max(0, to.index - from.index),
      behind_by: Math.max(0, from.index - to.index),
      total_commits: commits.length,
      commits: commits.map(view),
    })
  }

  /**
   * A page of `items` as GitHub pages a list: `per_page`, `page`, and a Link header whose
   * links keep the request's other parameters (`since`).
   */
  #page<T>(items: readonly T[], url: URL, view: (item: T) => unknown): Reply {
    const perPage = Math.min(
      positiveInt(url.searchParams.get('per_page')) ?? DEFAULT_PER_PAGE,
      MAX_PER_PAGE,
    )
    const page = positiveInt(url.searchParams.get('page')) ?? 1
    const reply = ok(200, items.slice((page - 1) * perPage, page * perPage).map(view))
    const lastPage = Math.ceil(items.length / perPage)
    if (lastPage > 1) {
      const link = (p: number, rel: string): string => {
        const target = new URL(url.pathname, this.apiUrl)
        for (const [key, value] of url.searchParams) {
          if (key !== 'page' && key !== 'per_page') target.searchParams.append(key, value)
        }
        target.searchParams.set('per_page', String(perPage))
        target.searchParams.set('page', String(p))
        return `<${target.href}>; rel="${rel}"`
      }
      const links: string[] = []
      if (page > 1) links.push(link(Math.min(page - 1, lastPage), 'prev'))
      if (page < lastPage) links.push(link(page + 1, 'next'), link(lastPage, 'last'))
      if (page > 1) links.push(link(1, 'first'))
      reply.headers['link'] = links.join(', ')
    }
    return reply
  }

  /**
   * A review, as GitHub takes it: every inline comment must be on a line of the diff (a
   * `line` on its `side`, a `start_line` in the same hunk), else the whole review is refused
   * with 422 and nothing is written.
   */
  #createReview(
    request: RecordedGitHubRequest,
    owner: string,
    repo: string,
    number: number,
  ): Reply {
    const docs = 'pulls/reviews#create-a-review-for-a-pull-request'
    const body = request.json as
      { commit_id?: unknown; body?: unknown; event?: unknown; comments?: unknown } | undefined
    if (!body || typeof body !== 'object') return error(400, 'Problems parsing JSON', docs)
    const event = body.event ?? 'PENDING'
    const states: Record<string, Review['state']> = {
      COMMENT: 'COMMENTED',
      REQUEST_CHANGES: 'CHANGES_REQUESTED',
      APPROVE: 'APPROVED',
    }
    const state = typeof event === 'string' ? states[event] : undefined
    if (!state)
      return validation(docs, { resource: 'PullRequestReview', code: 'invalid', field: 'event' })
    const text = typeof body.body === 'string' ? body.body : ''
    if (state !== 'APPROVED' && text === '') {
      return unprocessable(docs, [`Review body is required for ${String(event)}`])
    }
    if (text.length > MAX_COMMENT_BODY) return unprocessable(docs, ['Body is too long'])
    const key = pullKey(owner, repo, number)
    const diff = new Map(
      (this.#files.get(key) ?? []).map((file) => [file.filename, hunksOf(file.patch)]),
    )
    const comments: ReviewCommentView[] = []
    for (const comment of Array.isArray(body.comments) ? (body.comments as unknown[]) : []) {
      const c = comment as Record<string, unknown>
      const side = c.side === 'LEFT' ? 'LEFT' : 'RIGHT'
      const lines = typeof c.path === 'string' ? diff.get(c.path)?.[side] : undefined
      if (!lines) return unprocessable(docs, ['Path could not be resolved'])
      const hunk = typeof c.line === 'number' ? lines.get(c.line) : undefined
      if (hunk === undefined) {
        return unprocessable(docs, ['pull_request_review_thread.line must be part of the diff'])
      }
      if (c.start_line !== undefined && lines.get(c.start_line as number) !== hunk) {
        return unprocessable(docs, [
          'pull_request_review_thread.start_line must be part of the same hunk as the line.',
        ])
      }
      if (typeof c.body !== 'string' || c.body === '' || c.body.length > MAX_COMMENT_BODY) {
        return unprocessable(docs, ['Comment body is invalid'])
      }
      comments.push({
        path: c.path as string,
        line: c.line as number,
        side,
        ...(c.start_line === undefined ? {} : { start_line: c.start_line as number }),
        body: c.body,
      })
    }
    const pull = this.#pulls.get(key)
    const id = this.#nextReviewId++
    const review = {
      key,
      id,
      user: { ...this.tokenUser },
      body: text,
      state,
      html_url: `${this.#serverUrl}/${owner}/${repo}/pull/${number}#pullrequestreview-${id}`,
      commit_id: typeof body.commit_id === 'string' ? body.commit_id : (pull?.headSha ?? ''),
      submitted_at: iso(this.#now()),
      comments,
    }
    this.#reviews.push(review)
    return ok(200, reviewView(review))
  }

  #createCheckRun(request: RecordedGitHubRequest, owner: string, repo: string): Reply {
    if (!this.#checksWrite)
      return error(403, 'Resource not accessible by integration', 'checks/runs#create-a-check-run')
    const body = (request.json ?? {}) as Record<string, unknown>
    if (typeof body.name !== 'string' || typeof body.head_sha !== 'string') {
      return validation('checks/runs', {
        resource: 'CheckRun',
        code: 'missing_field',
        field: 'name',
      })
    }
    const run = {
      owner,
      repo,
      id: this.#nextCheckRunId++,
      name: body.name,
      head_sha: body.head_sha,
      external_id: typeof body.external_id === 'string' ? body.external_id : null,
      status: typeof body.status === 'string' ? body.status : 'queued',
      conclusion: null,
      details_url: typeof body.details_url === 'string' ? body.details_url : null,
      output: { title: null, summary: null },
      annotations: [],
      writes: [structuredClone(body)],
    }
    this.#checkRuns.push(run)
    return ok(201, this.#checkRunView(run))
  }

  #updateCheckRun(request: RecordedGitHubRequest, owner: string, repo: string, id: number): Reply {
    const docs = 'checks/runs#update-a-check-run'
    const run = this.#checkRuns.find((r) => r.id === id && sameRepo(r, owner, repo))
    if (!run) return error(404, 'Not Found', docs)
    if (!this.#checksWrite) return error(403, 'Resource not accessible by integration', docs)
    const body = (request.json ?? {}) as Record<string, unknown>
    const output = (body.output ?? undefined) as Record<string, unknown> | undefined
    const annotations = Array.isArray(output?.annotations)
      ? (output.annotations as Annotation[])
      : []
    if (annotations.length > MAX_ANNOTATIONS_PER_REQUEST) {
      return unprocessable(docs, ['Only 50 annotations are allowed per request'])
    }
    if (typeof output?.summary === 'string' && output.summary.length > 65_535) {
      return unprocessable(docs, ['output.summary is too long (maximum is 65535 characters)'])
    }
    run.writes.push(structuredClone(body))
    if (typeof body.status === 'string') run.status = body.status
    if (typeof body.conclusion === 'string') {
      run.conclusion = body.conclusion
      run.status = 'completed'
    }
    if (output) {
      run.output = {
        title: typeof output.title === 'string' ? output.title : run.output.title,
        summary: typeof output.summary === 'string' ? output.summary : run.output.summary,
      }
    }
    run.annotations.push(...annotations)
    return ok(200, this.#checkRunView(run))
  }

  /**
   * GET .../commits/{ref}/check-runs: `check_name` and `status` filter; `filter=latest` (the
   * default) keeps the newest run of each name, `all` every one; newest first, paged, and the
   * list under `check_runs` next to `total_count`, as GitHub answers it.
   */
  #listCheckRuns(owner: string, repo: string, ref: string, url: URL): Reply {
    const name = url.searchParams.get('check_name')
    const status = url.searchParams.get('status')
    const filter = url.searchParams.get('filter') ?? 'latest'
    if (filter !== 'latest' && filter !== 'all') {
      return validation('checks/runs#list-check-runs-for-a-git-reference', {
        resource: 'CheckRun',
        code: 'invalid',
        field: 'filter',
      })
    }
    const seen = new Set<string>()
    const runs = this.#checkRuns
      .filter((run) => run.head_sha === ref && sameRepo(run, owner, repo))
      .filter((run) => (name === null || run.name === name) && (!status || run.status === status))
      .sort((a, b) => b.id - a.id)
      .filter((run) => filter === 'all' || (!seen.has(run.name) && seen.add(run.name)))
    const reply = this.#page(runs, url, (run) => this.#checkRunView(run))
    const page = JSON.parse(reply.body) as unknown[]
    return { ...reply, body: JSON.stringify({ total_count: runs.length, check_runs: page }) }
  }

  #checkRunView(run: CheckRun & { owner: string; repo: string }): unknown {
    return {
      id: run.id,
      name: run.name,
      head_sha: run.head_sha,
      external_id: run.external_id,
      status: run.status,
      conclusion: run.conclusion,
      details_url: run.details_url,
      html_url: `${this.#serverUrl}/${run.owner}/${run.repo}/runs/${run.id}`,
      output: { ...run.output, annotations_count: run.annotations.length },
    }
  }

  #permission(owner: string, repo: string, login: string): Reply {
    const docs = 'collaborators/collaborators#get-repository-permissions-for-a-user'
    if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/.test(login)) {
      return error(404, 'Not Found', docs)
    }
    const role = this.#roles.get(roleKey(owner, repo, login)) ?? this.#defaultRole
    const user = this.#user(login, login.endsWith('[bot]') ? 'Bot' : 'User')
    return ok(200, {
      permission: LEGACY_PERMISSION[role],
      role_name: role,
      user: {
        ...user,
        permissions: {
          admin: role === 'admin',
          maintain: ['maintain', 'admin'].includes(role),
          push: ['write', 'maintain', 'admin'].includes(role),
          triage: ['triage', 'write', 'maintain', 'admin'].includes(role),
          pull: role !== 'none',
        },
        role_name: role,
      },
    })
  }

  #createStatus(request: RecordedGitHubRequest, owner: string, repo: string, sha: string): Reply {
    const docs = 'commits/statuses#create-a-commit-status'
    if (!/^[0-9a-f]{40}$/.test(sha)) {
      return validation(docs, {
        resource: 'Status',
        code: 'custom',
        field: 'sha',
        message: `No commit found for SHA: ${sha}`,
      })
    }
    const body = request.json as Record<string, unknown> | undefined
    if (body === undefined || typeof body !== 'object' || body === null) {
      return error(400, 'Problems parsing JSON', docs)
    }
    const { state, description, target_url: targetUrl, context } = body
    if (typeof state !== 'string' || !COMMIT_STATES.includes(state)) {
      return validation(docs, {
        resource: 'Status',
        code: 'custom',
        field: 'state',
        message: 'state is not included in the list',
      })
    }
    if (description !== undefined && description !== null && typeof description !== 'string') {
      return validation(docs, { resource: 'Status', code: 'invalid', field: 'description' })
    }
    if (typeof description === 'string' && description.length > MAX_STATUS_DESCRIPTION) {
      return validation(docs, {
        resource: 'Status',
        code: 'custom',
        field: 'description',
        message: `description is too long (maximum is ${MAX_STATUS_DESCRIPTION} characters)`,
      })
    }
    if (
      targetUrl !== undefined &&
      targetUrl !== null &&
      (typeof targetUrl !== 'string' || !/^https?:\/\//.test(targetUrl))
    ) {
      return validation(docs, {
        resource: 'Status',
        code: 'custom',
        field: 'target_url',
        message: 'target_url must use http(s) scheme',
      })
    }
    const time = iso(this.#now())
    const id = this.#nextStatusId++
    const status: CommitStatus = {
      id,
      url: `${this.apiUrl}/repos/${owner}/${repo}/statuses/${sha}`,
      state: state as CommitState,
      description: typeof description === 'string' ? description : null,
      target_url: typeof targetUrl === 'string' ? targetUrl : null,
      context: typeof context === 'string' && context !== '' ? context : 'default',
      created_at: time,
      updated_at: time,
      creator: { ...this.tokenUser },
    }
    this.#statuses.push({ ...status, owner, repo, sha })
    return ok(201, status)
  }

  /**
   * GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs: a workflow's runs, newest
   * first, `{ total_count, workflow_runs }`, filtered by `status` and paged by `per_page` and `page`.
   */
  #listWorkflowRuns(owner: string, repo: string, workflowId: number, url: URL): Reply {
    const status = url.searchParams.get('status')
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30) || 30)
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1)
    const prefix = `${owner}/${repo}#`.toLowerCase()
    const runs = [...this.#workflowRuns.entries()]
      .filter(([key, run]) => key.startsWith(prefix) && (run.workflowId ?? 1001) === workflowId)
      .map(([key, run]) => ({ id: Number(key.slice(prefix.length)), run }))
      .filter(({ run }) => !status || run.status === status)
      .sort((a, b) => b.id - a.id)
    return ok(200, {
      total_count: runs.length,
      workflow_runs: runs
        .slice((page - 1) * perPage, page * perPage)
        .map(({ id, run }) => this.#workflowRunView(owner, repo, id, run)),
    })
  }

  #workflowRunView(owner: string, repo: string, id: number, run: WorkflowRunSeed): unknown {
    return {
      id,
      workflow_id: run.workflowId ?? 1001,
      pull_requests: (run.pullRequests ?? []).map((number) => ({
        id: number,
        number,
        url: `${this.apiUrl}/repos/${owner}/${repo}/pulls/${number}`,
      })),
      name: 'Agent review',
      run_attempt: run.runAttempt ?? 1,
      status: run.status,
      conclusion: run.status === 'completed' ? (run.conclusion ?? 'success') : null,
      url: `${this.apiUrl}/repos/${owner}/${repo}/actions/runs/${id}`,
      html_url: `${this.#serverUrl}/${owner}/${repo}/actions/runs/${id}`,
      repository: { full_name: `${owner}/${repo}` },
    }
  }

  /** PATCH .../pulls/{n}: `state` closes (or reopens) it; a merged one cannot change. */
  #updatePull(request: RecordedGitHubRequest, pull: StoredPullRequest): Reply {
    const state = (request.json as { state?: unknown } | undefined)?.state
    if (state !== undefined && state !== 'open' && state !== 'closed') {
      return validation('pulls/pulls#update-a-pull-request', {
        resource: 'PullRequest',
        code: 'invalid',
        field: 'state',
      })
    }
    if (pull.mergedAt) {
      return validation('pulls/pulls#update-a-pull-request', {
        resource: 'PullRequest',
        code: 'custom',
        field: 'state',
      })
    }
    if (state === 'closed' && pull.state === 'open') pull.closedAt = iso(this.#now())
    if (state === 'open') pull.closedAt = ''
    if (state) pull.state = state
    return ok(200, this.#pullView(pull))
  }

  #pullView(pull: StoredPullRequest): unknown {
    const [headOwner = pull.owner] = pull.headRepo.split('/')
    return {
      url: `${this.apiUrl}/repos/${pull.owner}/${pull.repo}/pulls/${pull.number}`,
      html_url: `${this.#serverUrl}/${pull.owner}/${pull.repo}/pull/${pull.number}`,
      number: pull.number,
      state: pull.state,
      draft: pull.draft,
      merged: pull.mergedAt !== '',
      created_at: pull.createdAt,
      closed_at: pull.closedAt || null,
      merged_at: pull.mergedAt || null,
      user: this.#user(pull.author, pull.author.endsWith('[bot]') ? 'Bot' : 'User'),
      head: {
        label: `${headOwner}:${pull.headRef}`,
        ref: pull.headRef,
        sha: pull.headSha,
        repo: { full_name: pull.headRepo },
      },
      base: {
        label: `${pull.owner}:${pull.baseRef}`,
        ref: pull.baseRef,
        repo: { full_name: `${pull.owner}/${pull.repo}` },
      },
    }
  }

  #list(owner: string, repo: string, issueNumber: number, url: URL): Reply {
    return this.#page(this.#since(this.#thread(owner, repo, issueNumber), url), url, (c) =>
      this.#view(c),
    )
  }

  /** The comments after `since`, when the request gives one (GitHub's `since`: updated at or after). */
  #since(comments: readonly StoredComment[], url: URL): StoredComment[] {
    const since = Date.parse(url.searchParams.get('since') ?? '')
    return comments.filter((c) => Number.isNaN(since) || c.updatedAt.getTime() >= since)
  }

  #create(request: RecordedGitHubRequest, owner: string, repo: string, issueNumber: number): Reply {
    const body = commentBody(request, 'issues/comments#create-an-issue-comment')
    if (typeof body !== 'string') return body
    const view = this.#view(
      this.#store(owner, repo, issueNumber, body, this.tokenUser, this.#now()),
    )
    return ok(201, view, { location: view.url })
  }

  #update(request: RecordedGitHubRequest, stored: StoredComment): Reply {
    const body = commentBody(request, 'issues/comments#update-an-issue-comment')
    if (typeof body !== 'string') return body
    stored.body = body
    const time = this.#now()
    stored.updatedAt = time > stored.createdAt ? time : stored.createdAt
    return ok(200, this.#view(stored))
  }

  #store(
    owner: string,
    repo: string,
    issueNumber: number,
    body: string,
    author: GitHubUser,
    createdAt: Date,
    association?: string,
  ): StoredComment {
    if (!Number.isInteger(issueNumber) || issueNumber < 1) {
      throw new Error(`invalid issue number: ${issueNumber}`)
    }
    const stored: StoredComment = {
      id: this.#nextCommentId++,
      owner,
      repo,
      issueNumber,
      body,
      author,
      association:
        association ?? (author.login.toLowerCase() === owner.toLowerCase() ? 'OWNER' : 'NONE'),
      createdAt,
      updatedAt: createdAt,
    }
    this.#comments.set(stored.id, stored)
    return stored
  }

  #thread(owner: string, repo: string, issueNumber: number): StoredComment[] {
    return [...this.#comments.values()]
      .filter((c) => c.issueNumber === issueNumber && sameRepo(c, owner, repo))
      .sort((a, b) => a.id - b.id)
  }

  #view(c: StoredComment): Comment {
    const issueUrl = `${this.apiUrl}/repos/${c.owner}/${c.repo}/issues/${c.issueNumber}`
    return {
      id: c.id,
      node_id: `IC_kwDO${Buffer.from(String(c.id)).toString('base64url')}`,
      url: `${this.apiUrl}/repos/${c.owner}/${c.repo}/issues/comments/${c.id}`,
      html_url: `${this.#serverUrl}/${c.owner}/${c.repo}/issues/${c.issueNumber}#issuecomment-${c.id}`,
      issue_url: issueUrl,
      body: c.body,
      user: { ...c.author },
      author_association: c.association,
      created_at: iso(c.createdAt),
      updated_at: iso(c.updatedAt),
    }
  }

  #user(login: string, type: UserType): GitHubUser {
    let id = this.#userIds.get(login.toLowerCase())
    if (id === undefined) {
      id = login === 'github-actions[bot]' ? GITHUB_ACTIONS_BOT_ID : this.#nextUserId++
      this.#userIds.set(login.toLowerCase(), id)
    }
    const slug = login.replace(/\[bot\]$/, '')
    return {
      login,
      id,
      node_id: `${type === 'Bot' ? 'BOT' : 'U'}_kgDO${Buffer.from(String(id)).toString('base64url')}`,
      type,
      site_admin: false,
      url: `${this.apiUrl}/users/${encodeURIComponent(login)}`,
      html_url: type === 'Bot' ? `${this.#serverUrl}/apps/${slug}` : `${this.#serverUrl}/${login}`,
    }
  }
}

/** The comment body of a create or update request, or the 400/422 GitHub would answer. */
function commentBody(request: RecordedGitHubRequest, docs: string): string | Reply {
  if (request.json === undefined) return error(400, 'Problems parsing JSON', docs)
  const body: unknown = (request.json as { body?: unknown } | null)?.body
  if (typeof body !== 'string' || body === '') {
    return validation(docs, { resource: 'IssueComment', code: 'missing_field', field: 'body' })
  }
  if (body.length > MAX_COMMENT_BODY) {
    return validation(docs, {
      resource: 'IssueComment',
      code: 'custom',
      field: 'body',
      message: `body is too long (maximum is ${MAX_COMMENT_BODY} characters)`,
    })
  }
  return body
}

/** A review as GitHub shows it, without its comments (listed apart). */
function reviewView(review: Review): Omit<Review, 'comments'> {
  return {
    id: review.id,
    user: { ...review.user },
    body: review.body,
    state: review.state,
    html_url: review.html_url,
    commit_id: review.commit_id,
    submitted_at: review.submitted_at,
  }
}

/** The lines a review comment may be on, per side, each with its hunk: the fake's own reading. */
function hunksOf(patch: string | undefined): Record<'LEFT' | 'RIGHT', Map<number, number>> {
  const sides = { LEFT: new Map<number, number>(), RIGHT: new Map<number, number>() }
  let hunk = -1
  let left = 0
  let right = 0
  for (const line of (patch ?? '').split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line)
    if (header) {
      hunk += 1
      left = Number(header[1])
      right = Number(header[2])
    } else if (hunk >= 0 && line.startsWith('+')) {
      sides.RIGHT.set(right++, hunk)
    } else if (hunk >= 0 && line.startsWith('-')) {
      sides.LEFT.set(left++, hunk)
    } else if (hunk >= 0 && !line.startsWith('\\')) {
      sides.RIGHT.set(right++, hunk)
      sides.LEFT.set(left++, hunk)
    }
  }
  return sides
}

/** The error a fault answers, with GitHub's usual message for its status unless it names one. */
function faultReply(fault: Fault): Reply {
  const message =
    fault.options.message ?? DEFAULT_MESSAGES[fault.status] ?? STATUS_CODES[fault.status] ?? 'Error'
  const reply = error(fault.status, message)
  return { ...reply, headers: { ...reply.headers, ...fault.options.headers } }
}

/** GitHub's 422 for a review it cannot take: a message and plain-text errors. */
function unprocessable(docs: string, errors: string[]): Reply {
  return {
    ...error(422, 'Unprocessable Entity', docs),
    body: JSON.stringify({
      message: 'Unprocessable Entity',
      errors,
      documentation_url: `${DOCS}/${docs}`,
      status: '422',
    }),
  }
}

function validation(docs: string, detail: Record<string, string>): Reply {
  return {
    ...error(422, 'Validation Failed', docs),
    body: JSON.stringify({
      message: 'Validation Failed',
      errors: [detail],
      documentation_url: `${DOCS}/${docs}`,
      status: '422',
    }),
  }
}

function roleKey(owner: string, repo: string, login: string): string {
  return `${owner}/${repo}/${login}`.toLowerCase()
}

function pullKey(owner: string, repo: string, number: number): string {
  return `${owner}/${repo}#${number}`.toLowerCase()
}

function matches(request: RecordedGitHubRequest, method: string, path: RegExp | string): boolean {
  if (method !== '*' && method.toUpperCase() !== request.method) return false
  return typeof path === 'string' ? path === request.path : path.test(request.path)
}

function sameRepo(c: { owner: string; repo: string }, owner: string, repo: string): boolean {
  return (
    c.owner.toLowerCase() === owner.toLowerCase() && c.repo.toLowerCase() === repo.toLowerCase()
  )
}

function positiveInt(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value)) return undefined
  const n = Number(value)
  return n >= 1 ? n : undefined
}

/** Now, to the second, as GitHub's timestamps are. */
function secondsOf(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000)
}

function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function headers(): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'x-github-media-type': 'github.v3; format=json',
    'x-github-request-id': randomUUID().toUpperCase(),
  }
}

function ok(status: number, value: unknown, extra: Record<string, string> = {}): Reply {
  return { status, headers: { ...headers(), ...extra }, body: JSON.stringify(value) }
}

function error(status: number, message: string, docs = ''): Reply {
  return {
    status,
    headers: headers(),
    body: JSON.stringify({
      message,
      documentation_url: docs === '' ? DOCS : `${DOCS}/${docs}`,
      status: String(status),
    }),
  }
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) return
  res.writeHead(reply.status, {
    ...reply.headers,
    'content-length': String(Buffer.byteLength(reply.body)),
  })
  res.end(reply.body)
}
