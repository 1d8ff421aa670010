/**
 * A fake of the few GitLab REST v4 endpoints the command's merge-request note uses, on real
 * loopback HTTP: GET /user; list (paged), create and update a merge request's notes. Answers
 * are shaped like GitLab's: the token in a `PRIVATE-TOKEN` header, `{"message": "401
 * Unauthorized"}` errors, pages with `x-page`, `x-next-page` (empty on the last page),
 * `x-per-page`, `x-total` and `x-total-pages`, and notes with their author and `system` flag.
 */
import { createServer, STATUS_CODES } from 'node:http'
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { FakeProjects } from './projects.ts'

export interface FakeGitLabOptions {
  /** The one token the fake accepts. Default `glpat-fake`. */
  token?: string
  /** Who the token belongs to. Default `{ id: 101, username: 'ci-bot' }`. */
  user?: { id: number; username: string }
}

export interface GitLabUser {
  id: number
  username: string
  name: string
  state: 'active'
}

export interface Note {
  id: number
  type: null
  body: string
  author: GitLabUser
  created_at: string
  updated_at: string
  system: boolean
  noteable_id: number
  noteable_type: 'MergeRequest'
  noteable_iid: number
  project_id: number
  resolvable: boolean
  confidential: boolean
  internal: boolean
}

export interface RecordedGitLabRequest {
  method: string
  /** The path without the query, e.g. `/api/v4/projects/42/merge_requests/7/notes`. */
  path: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  body: string
  /** The parsed body; undefined when it is empty or not JSON. */
  json: unknown
}

export interface GitLabFailOptions {
  /** The `message` of the error body. Default: GitLab's, e.g. `500 Internal Server Error`. */
  message?: string
  /** How many matching requests fail. Default 1. */
  times?: number
  /** Extra response headers, e.g. a `location` for a redirect a proxy answers in GitLab's place. */
  headers?: Record<string, string>
}

interface StoredNote {
  id: number
  projectId: number
  iid: number
  body: string
  author: GitLabUser
  system: boolean
  createdAt: Date
  updatedAt: Date
}

interface Fault {
  method: string
  path: RegExp | string
  status: number
  message: string | undefined
  headers: Record<string, string>
  remaining: number
}

interface Reply {
  status: number
  headers: Record<string, string>
  body: string
}

/** GitLab refuses a note longer than this many characters. */
export const MAX_NOTE_BODY = 1_000_000
const DEFAULT_PER_PAGE = 20
const MAX_PER_PAGE = 100
const API = '/api/v4'
const NOTES_PATH = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/([1-9]\d*)\/notes$/
const NOTE_PATH = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/([1-9]\d*)\/notes\/([1-9]\d*)$/
const JOB_PATH = /^\/api\/v4\/projects\/([^/]+)\/jobs\/([1-9]\d*)$/
const PIPELINES_PATH = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/([1-9]\d*)\/pipelines$/
const COMPARE_PATH = /^\/api\/v4\/projects\/([^/]+)\/repository\/compare$/
const MERGE_BASE_PATH = /^\/api\/v4\/projects\/([^/]+)\/repository\/merge_base$/

export class FakeGitLab {
  /** The API root, as GitLab CI's `CI_API_V4_URL` gives it: `http://127.0.0.1:PORT/api/v4`. */
  readonly apiUrl: string
  /** Every request in arrival order, recorded before faults and auth apply. */
  readonly requests: RecordedGitLabRequest[] = []
  /** The token's user: the author of every note created with it. */
  readonly tokenUser: GitLabUser
  /** Projects' paths, jobs, merge request pipelines and commits (projects.ts). */
  readonly projects = new FakeProjects()

  readonly #server: Server
  readonly #token: string
  readonly #notes = new Map<number, StoredNote>()
  readonly #users = new Map<string, GitLabUser>()
  #faults: Fault[] = []
  /** Requests matching these are read and never answered (a GitLab that stopped answering). */
  #hangs: Array<{ method: string; path: RegExp | string }> = []
  #nextNoteId = 500_000_001
  #nextUserId = 2001
  #closing: Promise<void> | undefined

  private constructor(server: Server, origin: string, options: FakeGitLabOptions) {
    this.#server = server
    this.apiUrl = `${origin}${API}`
    this.#token = options.token ?? 'glpat-fake'
    const user = options.user ?? { id: 101, username: 'ci-bot' }
    this.tokenUser = userOf(user.id, user.username)
    this.#users.set(user.username, this.tokenUser)
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.#onRequest(req, res).catch(() => req.socket.destroy())
    })
  }

  static async start(options: FakeGitLabOptions = {}): Promise<FakeGitLab> {
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
    const { port } = server.address() as AddressInfo
    return new FakeGitLab(server, `http://127.0.0.1:${port}`, options)
  }

  /**
   * Seeds a note by anyone, without HTTP: `author` is a username (the token's own, or another
   * user's); `system` makes it one of GitLab's own notes ("added 1 commit").
   */
  addNote(
    projectId: number,
    iid: number,
    body: string,
    author: string,
    options: { system?: boolean } = {},
  ): Note {
    let user = this.#users.get(author)
    if (!user) {
      user = userOf(this.#nextUserId++, author)
      this.#users.set(author, user)
    }
    return view(this.#store(projectId, iid, body, user, options.system ?? false))
  }

  /** A merge request's notes, oldest first. */
  notes(projectId: number, iid: number): Note[] {
    return this.#thread(projectId, iid).map(view)
  }

  /**
   * Makes the next `options.times` (default 1) requests matching `method` (`*` for any) and
   * `path` (a RegExp tested on the path without the query, or an exact path) answer `status`
   * with GitLab's error body, without acting on them.
   */
  failNext(
    method: string,
    path: RegExp | string,
    status: number,
    options: GitLabFailOptions = {},
  ): void {
    const times = options.times ?? 1
    if (!(times > 0)) throw new Error(`times must be positive, got ${times}`)
    this.#faults.push({
      method,
      path,
      status,
      message: options.message,
      headers: options.headers ?? {},
      remaining: times,
    })
  }

  /**
   * From now on, requests matching `method` and `path` (default: every request) are read and
   * never answered; the socket stays open until the fake closes.
   */
  stopAnswering(method = '*', path: RegExp | string = /.*/): void {
    this.#hangs.push({ method, path })
  }

  requestsTo(method: string, path: RegExp | string): RecordedGitLabRequest[] {
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
    const url = new URL(req.url ?? '/', 'http://gitlab.invalid')
    const request: RecordedGitLabRequest = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json: parseJson(body),
    }
    this.requests.push(request)
    if (this.#hangs.some((hang) => matches(request, hang.method, hang.path))) return
    const fault = this.#takeFault(request)
    if (fault) {
      const reply = error(fault.status, fault.message)
      return send(res, { ...reply, headers: { ...reply.headers, ...fault.headers } })
    }
    send(res, this.#authenticate(request) ?? this.#route(request, url))
  }

  #takeFault(request: RecordedGitLabRequest): Fault | undefined {
    const fault = this.#faults.find((f) => matches(request, f.method, f.path))
    if (!fault) return undefined
    fault.remaining -= 1
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault)
    return fault
  }

  /** GitLab takes a personal, project or group access token as `PRIVATE-TOKEN`, or as Bearer. */
  #authenticate(request: RecordedGitLabRequest): Reply | undefined {
    const header = request.headers['private-token']
    const bearer = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1]
    if ((typeof header === 'string' ? header : bearer) === this.#token) return undefined
    return error(401)
  }

  #route(request: RecordedGitLabRequest, url: URL): Reply {
    if (request.path === `${API}/user`) {
      return request.method === 'GET' ? ok(200, this.tokenUser) : error(405)
    }
    const project = this.#projectRoute(request, url)
    if (project) return project
    const list = NOTES_PATH.exec(request.path)
    if (list) {
      const projectId = this.projects.projectId(decodeURIComponent(list[1] ?? ''))
      const iid = Number(list[2])
      if (projectId === undefined) return error(404, '404 Project Not Found')
      if (request.method === 'GET') return this.#list(projectId, iid, url.searchParams)
      if (request.method === 'POST') return this.#create(projectId, iid, request.json)
      return error(405)
    }
    const one = NOTE_PATH.exec(request.path)
    if (one) {
      const note = this.#notes.get(Number(one[3]))
      const projectId = this.projects.projectId(decodeURIComponent(one[1] ?? ''))
      if (!note || note.projectId !== projectId || note.iid !== Number(one[2])) {
        return error(404, '404 Not found')
      }
      if (request.method === 'GET') return ok(200, view(note))
      if (request.method === 'PUT') return this.#update(note, request.json)
      if (request.method === 'DELETE') {
        if (note.author.id !== this.tokenUser.id) return error(403)
        this.#notes.delete(note.id)
        return { status: 204, headers: {}, body: '' }
      }
      return error(405)
    }
    return error(404, '404 Not Found')
  }

  /** Jobs, a merge request's pipelines, compare and merge_base (GET only). */
  #projectRoute(request: RecordedGitLabRequest, url: URL): Reply | undefined {
    const routes = [JOB_PATH, PIPELINES_PATH, COMPARE_PATH, MERGE_BASE_PATH]
    const route = routes.find((path) => path.test(request.path))
    const match = route?.exec(request.path)
    if (!route || !match) return undefined
    if (request.method !== 'GET') return error(405)
    const projectId = this.projects.projectId(decodeURIComponent(match[1] ?? ''))
    if (projectId === undefined) return error(404, '404 Project Not Found')
    const query = url.searchParams
    const reply = (answer: { status: number; value: unknown }) =>
      answer.status === 200
        ? ok(200, answer.value)
        : error(answer.status, String((answer.value as { message?: unknown }).message))
    switch (route) {
      case JOB_PATH: {
        const job = this.projects.job(projectId, Number(match[2]))
        return job ? ok(200, job) : error(404, '404 Not found')
      }
      case PIPELINES_PATH:
        return ok(200, this.projects.pipelines(projectId, Number(match[2])))
      case COMPARE_PATH:
        return reply(
          this.projects.compare(projectId, query.get('from') ?? '', query.get('to') ?? ''),
        )
      default:
        return reply(this.projects.mergeBase(projectId, query.getAll('refs[]')))
    }
  }

  #list(projectId: number, iid: number, query: URLSearchParams): Reply {
    const perPage = Math.min(positiveInt(query.get('per_page')) ?? DEFAULT_PER_PAGE, MAX_PER_PAGE)
    const page = positiveInt(query.get('page')) ?? 1
    const sort = query.get('sort') === 'asc' ? 'asc' : 'desc'
    const all = this.#thread(projectId, iid)
    if (sort === 'desc') all.reverse()
    const pages = Math.max(1, Math.ceil(all.length / perPage))
    const items = all.slice((page - 1) * perPage, page * perPage).map(view)
    return ok(200, items, {
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-next-page': page < pages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
      'x-total': String(all.length),
      'x-total-pages': String(pages),
    })
  }

  #create(projectId: number, iid: number, json: unknown): Reply {
    const body = noteText(json)
    if (typeof body !== 'string') return body
    return ok(201, view(this.#store(projectId, iid, body, this.tokenUser, false)))
  }

  /** GitLab lets only a note's author edit it (admins aside): 403 for anyone else's. */
  #update(note: StoredNote, json: unknown): Reply {
    if (note.author.id !== this.tokenUser.id) return error(403)
    const body = noteText(json)
    if (typeof body !== 'string') return body
    note.body = body
    note.updatedAt = new Date()
    return ok(200, view(note))
  }

  #store(
    projectId: number,
    iid: number,
    body: string,
    author: GitLabUser,
    system: boolean,
  ): StoredNote {
    const now = new Date()
    const note: StoredNote = {
      id: this.#nextNoteId++,
      projectId,
      iid,
      body,
      author,
      system,
      createdAt: now,
      updatedAt: now,
    }
    this.#notes.set(note.id, note)
    return note
  }

  #thread(projectId: number, iid: number): StoredNote[] {
    return [...this.#notes.values()]
      .filter((note) => note.projectId === projectId && note.iid === iid)
      .sort((a, b) => a.id - b.id)
  }
}

/** The `body` of a create or an update, or GitLab's 400 for a missing or too long one. */
function noteText(json: unknown): string | Reply {
  const body = (json as { body?: unknown } | undefined)?.body
  if (typeof body !== 'string' || body.trim() === '') {
    return { ...error(400), body: JSON.stringify({ error: 'body is missing' }) }
  }
  if (body.length > MAX_NOTE_BODY) {
    return {
      ...error(400),
      body: JSON.stringify({
        message: { note: [`is too long (maximum is ${MAX_NOTE_BODY} characters)`] },
      }),
    }
  }
  return body
}

function userOf(id: number, username: string): GitLabUser {
  return { id, username, name: username, state: 'active' }
}

function view(note: StoredNote): Note {
  return {
    id: note.id,
    type: null,
    body: note.body,
    author: { ...note.author },
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString(),
    system: note.system,
    noteable_id: note.iid + 9_000_000,
    noteable_type: 'MergeRequest',
    noteable_iid: note.iid,
    project_id: note.projectId,
    resolvable: false,
    confidential: false,
    internal: false,
  }
}

function matches(request: RecordedGitLabRequest, method: string, path: RegExp | string): boolean {
  if (method !== '*' && method.toUpperCase() !== request.method) return false
  return typeof path === 'string' ? path === request.path : path.test(request.path)
}

function positiveInt(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value)) return undefined
  const n = Number(value)
  return n >= 1 ? n : undefined
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function ok(status: number, value: unknown, extra: Record<string, string> = {}): Reply {
  return {
    status,
    headers: { 'content-type': 'application/json', ...extra },
    body: JSON.stringify(value),
  }
}

/** GitLab's error body: `{"message": "401 Unauthorized"}`, the status first. */
function error(status: number, message?: string): Reply {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: message ?? `${status} ${STATUS_CODES[status] ?? 'Error'}` }),
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
