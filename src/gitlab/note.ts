/**
 * The command's note on a GitLab merge request: one note per key, updated in place, as the
 * action keeps one comment on a pull request. Its hidden marker, first in the note, is trusted
 * only on a note the token's own user wrote: anyone can type a marker. GitLab can never fail
 * or hold the job: every call has a deadline, and a failure is one warning.
 */
import { cut } from '../text/plain.ts'
import { safeForLog } from '../text/log.ts'
import { GITLAB_LIMITS } from '../timing.ts'
import { USER_AGENT } from '../version.ts'

/** The merge request of a GitLab CI merge request pipeline, and the token that writes its note. */
export interface MergeRequestTarget {
  /** GitLab's REST API root, `CI_API_V4_URL`, e.g. `https://gitlab.com/api/v4`. */
  readonly apiUrl: string
  /** `CI_PROJECT_ID`: the project's numeric ID. */
  readonly projectId: string
  /** `CI_MERGE_REQUEST_IID`: the merge request's number in its project (`!7`). */
  readonly mergeRequestIid: number
  /** `CI_PROJECT_PATH`, for the log: `group/project`. */
  readonly projectPath?: string
  /** `GITLAB_TOKEN`: a token with the `api` scope. */
  readonly token: string
}

/**
 * Where the note goes (`target`), or, in a merge request pipeline that cannot have one, the
 * line that says why (`reason`), which the caller logs once.
 */
export type MergeRequestFound =
  | { readonly target: MergeRequestTarget; readonly reason?: never }
  | { readonly target?: never; readonly reason: string }

/**
 * The merge request the job runs for, read from GitLab CI's predefined variables and
 * `GITLAB_TOKEN`, as the door hands them over; undefined outside a merge request pipeline.
 */
export function mergeRequestFrom(
  env: Readonly<Record<string, string | undefined>>,
): MergeRequestFound | undefined {
  const iidText = env.CI_MERGE_REQUEST_IID?.trim() ?? ''
  if (iidText === '') return undefined
  const projectId = env.CI_PROJECT_ID?.trim() ?? ''
  const projectPath = env.CI_PROJECT_PATH?.trim() || undefined
  const iid = /^[1-9]\d{0,15}$/.test(iidText) ? Number(iidText) : undefined
  const where = `${projectPath ?? `project ${projectId}`}!${iidText}`
  const apiUrl = apiRoot(env.CI_API_V4_URL)
  if (iid === undefined || projectId === '' || apiUrl === undefined) {
    const why = `CI_MERGE_REQUEST_IID "${iidText}", CI_PROJECT_ID "${projectId}", CI_API_V4_URL "${env.CI_API_V4_URL ?? ''}"`
    return {
      reason: `GitLab: no note on the merge request: GitLab CI's variables do not name one (${safeForLog(why, 300)}).`,
    }
  }
  const token = env.GITLAB_TOKEN?.trim() ?? ''
  if (token === '') {
    return {
      reason: `GitLab: no note on ${safeForLog(where)}: GITLAB_TOKEN is not set. A masked CI/CD variable GITLAB_TOKEN (a token with the api scope) lets the command keep one note there.`,
    }
  }
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(token)) {
    return {
      reason: `GitLab: no note on ${safeForLog(where)}: GITLAB_TOKEN contains whitespace or control characters; check the variable.`,
    }
  }
  return { target: { apiUrl, projectId, mergeRequestIid: iid, projectPath, token } }
}

/** An http(s) URL without its trailing slashes, or undefined. */
function apiRoot(value: string | undefined): string | undefined {
  const text = value?.trim() ?? ''
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    return undefined
  return url.href.replace(/\/+$/, '')
}

export interface MergeRequestNoteOptions {
  /** One note per merge request and key: the `name` input, else the job's name. */
  readonly key: string
  readonly log: { info(message: string): void; warning(message: string): void }
  /** Node's global `fetch` unless a test gives another. */
  readonly fetch?: typeof fetch
  /** How long one call (all its attempts) may last; `GITLAB_LIMITS.callMs` unless a test says. */
  readonly callDeadlineMs?: number
}

/** A note as GitLab lists it (the fields read). */
interface ListedNote {
  id: number
  body?: string
  system?: boolean
  author?: { id?: number } | null
}

/**
 * One note on a merge request per key. `upsert` writes the note's text: it finds the note
 * (the oldest of the token's user with this key's marker) and updates it, else creates it.
 * Calls run one after the other, in order, so the last text given is the one shown.
 */
export class MergeRequestNote {
  readonly #target: MergeRequestTarget
  readonly #options: MergeRequestNoteOptions
  readonly #fetch: typeof fetch
  #noteId: number | undefined
  #me: number | undefined
  /** After a 401 or 403 the token will not do: nothing more is sent. */
  #refused = false
  /** Whether the last write failed and said so: a failure in a row warns once. */
  #failing = false
  #queue: Promise<void> = Promise.resolve()

  constructor(target: MergeRequestTarget, options: MergeRequestNoteOptions) {
    this.#target = target
    this.#options = options
    this.#fetch = options.fetch ?? fetch
  }

  /** Writes the note's text; never throws, and a failure is a warning (one for a row of them). */
  upsert(markdown: string): Promise<void> {
    this.#queue = this.#queue.then(() => this.#upsertOnce(markdown))
    return this.#queue
  }

  async #upsertOnce(markdown: string): Promise<void> {
    if (this.#refused) return
    try {
      const body = noteBody(this.#options.key, markdown)
      if (this.#noteId === undefined) this.#noteId = await this.#find()
      if (this.#noteId !== undefined && (await this.#update(this.#noteId, body))) {
        this.#succeeded()
        return
      }
      this.#noteId = await this.#create(body)
      this.#succeeded()
    } catch (error) {
      this.#failed(error)
    }
  }

  /** The oldest note of the token's user that carries this key's marker. */
  async #find(): Promise<number | undefined> {
    const me = await this.#whoAmI()
    let page = 1
    for (let read = 0; read < GITLAB_NOTE_PAGES; read++) {
      const answer = await this.#call(
        'GET',
        `${this.#notesPath()}?per_page=100&page=${page}&sort=asc&order_by=created_at`,
      )
      const notes = Array.isArray(answer.json) ? (answer.json as ListedNote[]) : []
      const ours = notes
        .filter((note) => !note.system && note.author?.id === me)
        .filter((note) => markerKey(note.body ?? '') === this.#options.key)
        .sort((a, b) => a.id - b.id)
      if (ours[0]) return ours[0].id
      const next = Number(answer.headers.get('x-next-page') ?? '')
      if (!Number.isInteger(next) || next <= page) return undefined
      page = next
    }
    return undefined
  }

  async #whoAmI(): Promise<number> {
    if (this.#me !== undefined) return this.#me
    const { json } = await this.#call('GET', '/user')
    const id = (json as { id?: unknown } | undefined)?.id
    if (typeof id !== 'number') throw new GitLabFailure('GET /user answered no user ID')
    this.#me = id
    return id
  }

  /** False when the note is gone (deleted by a person). */
  async #update(noteId: number, body: string): Promise<boolean> {
    try {
      await this.#call('PUT', `${this.#notesPath()}/${noteId}`, { body })
      return true
    } catch (error) {
      if (error instanceof GitLabFailure && error.status === 404) return false
      throw error
    }
  }

  async #create(body: string): Promise<number> {
    const { json } = await this.#call('POST', this.#notesPath(), { body })
    const id = (json as { id?: unknown } | undefined)?.id
    if (typeof id !== 'number') throw new GitLabFailure('the new note came back without an ID')
    return id
  }

  #notesPath(): string {
    const { projectId, mergeRequestIid } = this.#target
    return `/projects/${encodeURIComponent(projectId)}/merge_requests/${mergeRequestIid}/notes`
  }

  /**
   * One call under one deadline: after a 5xx or a broken connection it is asked again, after
   * each pause, while the deadline allows. A redirect is not followed: the token stays with
   * CI_API_V4_URL.
   */
  async #call(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    payload?: unknown,
  ): Promise<{ json: unknown; headers: Headers }> {
    const deadlineMs = this.#options.callDeadlineMs ?? GITLAB_LIMITS.callMs
    const signal = AbortSignal.timeout(deadlineMs)
    const pauses = [...GITLAB_LIMITS.transientPausesMs]
    for (;;) {
      let failure: GitLabFailure
      try {
        const response = await this.#fetch(`${this.#target.apiUrl}${path}`, {
          method,
          headers: {
            'private-token': this.#target.token,
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

  #succeeded(): void {
    if (this.#failing)
      this.#options.log.info(`GitLab: the note on ${this.#where()} is written again.`)
    this.#failing = false
  }

  #failed(error: unknown): void {
    const status = error instanceof GitLabFailure ? error.status : undefined
    if (status === 401 || status === 403) this.#refused = true
    if (this.#failing && !this.#refused) return
    this.#failing = true
    const where = this.#where()
    const why = safeForLog(error instanceof GitLabFailure ? error.message : causeOf(error), 300)
    const log = this.#options.log
    if (status === 401) {
      log.warning(
        `GitLab: could not write the note on ${where} (${why}). GITLAB_TOKEN is wrong, expired or revoked; no more notes are written. The run is not affected.`,
      )
    } else if (status === 403) {
      log.warning(
        `GitLab: could not write the note on ${where} (${why}). GITLAB_TOKEN needs the api scope and a role that may comment on the merge request; no more notes are written. The run is not affected.`,
      )
    } else {
      log.warning(`GitLab: could not write the note on ${where} (${why}). The run is not affected.`)
    }
  }

  #where(): string {
    const { projectPath, projectId, mergeRequestIid } = this.#target
    return safeForLog(`${projectPath ?? `project ${projectId}`}!${mergeRequestIid}`)
  }
}

/** At most this many pages of 100 notes are read looking for the note. */
const GITLAB_NOTE_PAGES = 50

/** GitLab refuses a note longer than this many characters. */
const GITLAB_NOTE_MAX_CHARS = 1_000_000

const MARKER_PREFIX = '<!-- cloud-agent-run-note: '
const MARKER = /^<!-- cloud-agent-run-note: (\{[^<>\n]*\}) -->/

/**
 * The note's text: the marker first, where no text of the agent can come before it, then the
 * Markdown, with no line GitLab would take for a quick action, cut to GitLab's limit.
 */
export function noteBody(key: string, markdown: string): string {
  // `<` and `>` could end the HTML comment or open a forged one; JSON can spell them otherwise.
  const json = JSON.stringify({ key }).replace(/</g, '\\u003c').replace(/>/g, '\\u003e')
  const marker = `${MARKER_PREFIX}${json} -->`
  const room = GITLAB_NOTE_MAX_CHARS - marker.length - CUT_NOTE.length - 2
  const text = withoutQuickActions(markdown)
  return `${marker}\n${text.length > room ? `${cut(text, room)}${CUT_NOTE}` : text}`
}

const CUT_NOTE = '\n\n… (cut at GitLab’s limit for a note)'

/** The key of a note's marker, when it opens the note. */
export function markerKey(body: string): string | undefined {
  const match = MARKER.exec(body)
  if (!match?.[1]) return undefined
  try {
    const { key } = JSON.parse(match[1]) as { key?: unknown }
    return typeof key === 'string' ? key : undefined
  } catch {
    return undefined
  }
}

/**
 * GitLab runs a line that starts with `/` (`/merge`, `/approve`, `/close`) as a quick action
 * when the note is saved, even one in the agent's text. One space before it keeps the line as
 * it reads in Markdown, and GitLab no longer sees a command. GitLab drops every `\r` first, so
 * a `\r` cannot hide a line's start.
 */
export function withoutQuickActions(markdown: string): string {
  return markdown.replace(/\r\n?/g, '\n').replace(/^\//gm, ' /')
}

/** A call GitLab failed or refused; `status` when it answered. */
class GitLabFailure extends Error {
  readonly status: number | undefined

  constructor(message: string, status?: number) {
    super(message)
    this.name = 'GitLabFailure'
    this.status = status
  }
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
