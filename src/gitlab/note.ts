/**
 * The command's note on a GitLab merge request: one note per key, updated in place, as the
 * action keeps one comment on a pull request. Its hidden marker, first in the note, is trusted
 * only on a note the token's own user wrote: anyone can type a marker. GitLab can never fail
 * or hold the job: every call has a deadline, and a failure is one warning.
 */
import {
  mergeRuns,
  mergeSets,
  type KeyHistory,
  type RunEntry,
  type SetEntry,
} from '../model/key-history.ts'
import { safeForLog } from '../text/log.ts'
import { GitLabApi, GitLabFailure, gitlabReason } from './api.ts'
import { noteBody, noteMarkerOf, setIdOf, type NoteRecord } from './note-text.ts'

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
  /** The CI job's page (`CI_JOB_URL`), which the key's history links the job's report to. */
  readonly jobUrl?: string
  readonly now?: () => number
}

/**
 * What the key's history keeps of the job's report once it has one: its run, or its set (the
 * job's tasks). The note adds when the job first wrote it and the job's link.
 */
export type NoteEntry =
  | { readonly run: Omit<RunEntry, 'startedAt' | 'workflowRun'>; readonly set?: never }
  | { readonly set: Omit<SetEntry, 'set' | 'startedAt' | 'workflowRun'>; readonly run?: never }

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
 * Calls run one after the other, in order, so the last text given is the one shown. The note
 * keeps the key's history, whichever kind of job (one run, a set) wrote it before: the earlier
 * reports, collapsed under the text, as the action's pull request comment keeps them.
 */
export class MergeRequestNote {
  readonly #target: MergeRequestTarget
  readonly #options: MergeRequestNoteOptions
  readonly #api: GitLabApi
  #noteId: number | undefined
  #me: number | undefined
  /** The key's runs and sets, as the note last read or written records them. */
  #history: KeyHistory = { runs: [], sets: [] }
  /** When this job first wrote the note: its report's place in the history. */
  readonly #startedAt: string
  /** After a 401 or 403 the token will not do: nothing more is sent. */
  #refused = false
  /** Whether the last write failed and said so: a failure in a row warns once. */
  #failing = false
  #queue: Promise<void> = Promise.resolve()

  constructor(target: MergeRequestTarget, options: MergeRequestNoteOptions) {
    this.#target = target
    this.#options = options
    this.#api = new GitLabApi(target, options)
    this.#startedAt = new Date((options.now ?? Date.now)()).toISOString()
  }

  /**
   * Writes the note's text, with what it records of the run (its ID, the head it works on, the
   * job awaiting it, whether it ended); never throws, and a failure is a warning (one for a row).
   * With `entry`, the job's report goes into the key's history, read from GitLab just before.
   */
  upsert(markdown: string, record: NoteRecord = {}, entry?: NoteEntry): Promise<boolean> {
    const written = this.#queue.then(() => this.#upsertOnce(markdown, record, entry))
    this.#queue = written.then(() => undefined)
    return written
  }

  /**
   * What this key's note records now (the run, the head it works on): read from GitLab, after
   * every write queued before. Undefined when there is no note or GitLab could not say.
   */
  recorded(): Promise<NoteRecord | undefined> {
    const read = this.#queue.then(async () => {
      if (this.#refused) return undefined
      try {
        return (await this.#ours()).find((note) => note.key === this.#options.key)?.record
      } catch {
        return undefined
      }
    })
    this.#queue = read.then(() => undefined)
    return read
  }

  /**
   * The note on this merge request that records `runId` (whatever its key), for a reconcile
   * pass: its key and record; undefined when none does. Throws when GitLab could not say.
   */
  static async ofRun(
    target: MergeRequestTarget,
    runId: string,
    options: Omit<MergeRequestNoteOptions, 'key'>,
  ): Promise<{ note: MergeRequestNote; record: NoteRecord } | undefined> {
    const reader = new MergeRequestNote(target, { ...options, key: '' })
    const found = (await reader.#ours()).find((note) => note.record.run === runId)
    if (!found) return undefined
    const note = new MergeRequestNote(target, { ...options, key: found.key })
    note.#noteId = found.id
    note.#me = reader.#me
    note.#history = found.history
    return { note, record: found.record }
  }

  async #upsertOnce(markdown: string, record: NoteRecord, entry?: NoteEntry): Promise<boolean> {
    if (this.#refused) return false
    try {
      if (this.#noteId === undefined || entry) await this.#read()
      if (entry) this.#history = this.#withEntry(entry, record)
      const body = noteBody(this.#options.key, markdown, record, this.#history)
      if (this.#noteId !== undefined && (await this.#update(this.#noteId, body))) {
        this.#succeeded()
        return true
      }
      const created = await this.#create(body)
      this.#noteId = await this.#oldestAfterCreate(created, body)
      this.#succeeded()
      return true
    } catch (error) {
      this.#failed(error)
      return false
    }
  }

  /**
   * Two jobs of one key that start together may each create a note: the oldest wins. Once ours
   * is made, the key's notes are read again; when an older one shows, ours is deleted and the
   * text goes to the older one. The other job does the same, so one note is left.
   */
  async #oldestAfterCreate(created: number, body: string): Promise<number> {
    const oldest = await this.#find()
    if (oldest === undefined || oldest >= created) return created
    await this.#call('DELETE', `${this.#notesPath()}/${created}`).catch(() => undefined)
    return (await this.#update(oldest, body)) ? oldest : created
  }

  /** The oldest note of the token's user that carries this key's marker. */
  async #find(): Promise<number | undefined> {
    return (await this.#ours()).find((note) => note.key === this.#options.key)?.id
  }

  /** This key's note, when there is one: the note to write (when none is chosen yet), its history. */
  async #read(): Promise<void> {
    const found = (await this.#ours()).find((note) => note.key === this.#options.key)
    if (!found) return
    this.#noteId ??= found.id
    this.#history = found.history
  }

  /** The key's history with this job's report put in, in place of its earlier record. */
  #withEntry(entry: NoteEntry, record: NoteRecord): KeyHistory {
    const { runs, sets } = this.#history
    const shown = { startedAt: this.#startedAt, workflowRun: this.#options.jobUrl }
    if (entry.run) {
      // A writer with no job of its own (a reconcile pass) keeps the link to the job that ran it.
      const earlier = runs.find((one) => one.runId === entry.run.runId)
      const workflowRun = shown.workflowRun ?? earlier?.workflowRun
      return { runs: mergeRuns(runs, { ...entry.run, ...shown, workflowRun }), sets }
    }
    return { runs, sets: mergeSets(sets, { ...entry.set, ...shown, set: setIdOf(record) }) }
  }

  /** Every note of the token's user that opens with a marker, oldest first. */
  async #ours(): Promise<
    Array<{ id: number; key: string; record: NoteRecord; history: KeyHistory }>
  > {
    const me = await this.#whoAmI()
    const found: Array<{ id: number; key: string; record: NoteRecord; history: KeyHistory }> = []
    let page = 1
    for (let read = 0; read < GITLAB_NOTE_PAGES; read++) {
      const answer = await this.#call(
        'GET',
        `${this.#notesPath()}?per_page=100&page=${page}&sort=asc&order_by=created_at`,
      )
      const notes = Array.isArray(answer.json) ? (answer.json as ListedNote[]) : []
      for (const note of notes) {
        if (note.system || note.author?.id !== me) continue
        const marker = noteMarkerOf(note.body ?? '')
        if (marker) found.push({ id: note.id, ...marker })
      }
      const next = Number(answer.headers.get('x-next-page') ?? '')
      if (!Number.isInteger(next) || next <= page) break
      page = next
    }
    return found.sort((a, b) => a.id - b.id)
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

  #call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: unknown,
  ): Promise<{ json: unknown; headers: Headers }> {
    return this.#api.call(method, path, payload)
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
    const why = gitlabReason(error)
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
