import { safeForLog } from '../text/log.ts'
import { isRunId, readCreatedRun, readFollowupAnswer, readRunItem } from './answers.ts'
import { BadRequestError, MethodNotAllowedError, NotFoundError } from './errors.ts'
import {
  Transport,
  type AnswerReader,
  type ClientOptions,
  type Download,
  type DownloadOptions,
  type RequestOptions,
} from './transport.ts'
import type {
  ArtifactResponse,
  ConversationResponse,
  CreateRunRequest,
  CreateRunResponse,
  FollowupAccepted,
  FollowupRequest,
  ListRunsQuery,
  ListRunsResponse,
  RunItem,
} from './types.ts'

/**
 * What a cancel request can tell by itself; the failures are errors the caller words (a
 * CancelReport, model/cancel.ts).
 */
export type CancelAnswer =
  | { kind: 'cancelled' }
  | { kind: 'already-finished' }
  /** The service refuses to cancel a run that waits for a person; it stays BLOCKED. */
  | { kind: 'blocked' }
  /** Refused (400), and the run could not be read back to say whether it ended or is BLOCKED. */
  | { kind: 'refused' }

/** A page of runs, and when the service says it answered (its `Date` header, by its own clock). */
export interface ListedRuns extends ListRunsResponse {
  servedAt?: number
}

/**
 * The endpoints of the Cloud Agent Runs API: the only code that knows its paths and what
 * its answers mean. How a request travels (the key, deadlines, retries, typed errors) is
 * the transport's.
 */
export class AgentRunsClient {
  readonly #transport: Transport

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options)
  }

  /**
   * Creates a run. Never repeated when the service may have acted on it; the
   * service's newer path is tried once when the spec's path does not exist.
   */
  async createRun(
    body: CreateRunRequest,
    options: RequestOptions = {},
  ): Promise<CreateRunResponse> {
    const send = async (path: string) =>
      (
        await this.#transport.request('POST', path, {
          ...options,
          body,
          retryMode: 'at-most-once',
          read: (data) => {
            const answer = readCreatedRun(data)
            return 'run' in answer ? { value: answer.run } : answer
          },
        })
      ).data
    try {
      return await send('/agent/run')
    } catch (error) {
      // 404 or 405 on the create path means no run was made, so the other path is safe.
      if (error instanceof NotFoundError || error instanceof MethodNotAllowedError) {
        return await send('/agent/runs')
      }
      throw error
    }
  }

  /**
   * The run as the service shows it now. An answer that is not this run (another
   * run's, not an object, a state that is not a string) is a garbled answer,
   * retried like one: it is never taken for the run's state.
   */
  async getRun(runId: string, options: RequestOptions = {}): Promise<RunItem> {
    const read: AnswerReader<RunItem> = (data) => {
      const answer = readRunItem(data, runId)
      return 'run' in answer ? { value: answer.run } : answer
    }
    return (await this.#transport.request('GET', runPath(runId), { ...options, read })).data
  }

  async listRuns(query: ListRunsQuery = {}, options: RequestOptions = {}): Promise<ListedRuns> {
    const { metadata, ...plain } = query
    const flatQuery: Record<string, string | number | readonly string[] | undefined> = { ...plain }
    for (const [key, value] of Object.entries(metadata ?? {})) flatQuery[`metadata[${key}]`] = value
    const { data, headers } = await this.#transport.request<Partial<ListRunsResponse> | undefined>(
      'GET',
      '/agent/runs',
      { ...options, query: flatQuery },
    )
    const servedAt = Date.parse(headers.date ?? '')
    // Entries that are not runs are dropped: a lookup must never act on a garbled one.
    const runs = Array.isArray(data?.runs) ? (data.runs as unknown[]) : []
    return {
      ...data,
      runs: runs.flatMap((entry) => {
        const read = readRunItem(entry)
        return 'run' in read ? [read.run] : []
      }),
      ...(Number.isNaN(servedAt) ? {} : { servedAt }),
    }
  }

  /**
   * Every run matching `query`, following the cursor across pages. Stops when
   * the service hands back a cursor it already gave, which would loop forever.
   * Returns whether it saw the last page: a caller that must count every run
   * (a budget) needs to know when `maxPages` or a broken cursor cut the list short.
   */
  async *iterateRuns(
    query: ListRunsQuery = {},
    options: RequestOptions & { maxPages?: number } = {},
  ): AsyncGenerator<RunItem, { complete: boolean }> {
    let cursor = query.cursor
    const seen = new Set<string>(cursor === undefined ? [] : [cursor])
    for (let page = 0; page < (options.maxPages ?? 50); page += 1) {
      const { runs, page_info } = await this.listRuns({ ...query, cursor }, options)
      yield* runs
      if (!page_info?.has_next_page) return { complete: true }
      const next = page_info.next_cursor
      if (!next || seen.has(next)) return { complete: false }
      seen.add(next)
      cursor = next
    }
    return { complete: false }
  }

  /**
   * Sends a follow-up message to steer a run. Never repeated when it may have
   * arrived. A run whose session is gone answers 410: a SessionGoneError.
   * Resolves with how the service routed it (`outcome`); an older service says
   * nothing of that, and its answer is accepted all the same (both members undefined).
   */
  async sendFollowup(
    runId: string,
    message: string,
    options: RequestOptions = {},
  ): Promise<FollowupAccepted> {
    const body: FollowupRequest = { message }
    const { data } = await this.#transport.request<unknown>('POST', `${runPath(runId)}/followups`, {
      ...options,
      body,
      retryMode: 'at-most-once',
    })
    return readFollowupAnswer(data)
  }

  /**
   * Stops the turn a live run's agent is working on, without ending the run: it stays
   * INPROGRESS with its sandbox, and takes a follow-up. Only a live run on Warp's own harness
   * can be interrupted; the service refuses any other with a 409 (a ConflictError: the run is
   * not live) or a 422 (an UnprocessableEntityError: its harness cannot be interrupted).
   *
   * Repeated like a read (`idempotent`): a second interrupt of an interrupted run stops
   * nothing more, so an answer lost on the way may be asked for again, where a follow-up
   * sent twice would reach the agent twice. A 409 is retried as the service's clients retry
   * it, since a run about to start becomes live; pass `maxRetries: 0` to fall back at once.
   */
  async interruptRun(runId: string, options: RequestOptions = {}): Promise<void> {
    await this.#transport.request('POST', `${runPath(runId)}/interrupt`, {
      ...options,
      retryMode: 'idempotent',
    })
  }

  /**
   * Asks the service to cancel a run. The service refuses (400) a run that has
   * ended and a BLOCKED one alike, so the run is read back to tell them apart.
   * A run still being prepared (409) is retried like any transient failure.
   */
  async cancelRun(runId: string, options: RequestOptions = {}): Promise<CancelAnswer> {
    try {
      await this.#transport.request('POST', `${runPath(runId)}/cancel`, {
        ...options,
        retryMode: 'idempotent',
        urgent: true,
      })
      return { kind: 'cancelled' }
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error
    }
    try {
      const run = await this.getRun(runId, { signal: options.signal, maxRetries: 1 })
      return { kind: run.state === 'BLOCKED' ? 'blocked' : 'already-finished' }
    } catch {
      return { kind: 'refused' }
    }
  }

  /**
   * The run's conversation: what the agent said and did, step by step. Throws
   * NotFoundError while there is none yet and UnprocessableEntityError when the
   * service cannot show this run's format; neither is a failure of the run.
   */
  async getConversation(
    runId: string,
    options: RequestOptions = {},
  ): Promise<ConversationResponse> {
    const { data } = await this.#transport.request<ConversationResponse | undefined>(
      'GET',
      `${runPath(runId)}/conversation`,
      options,
    )
    return { ...data, steps: Array.isArray(data?.steps) ? data.steps : [] } as ConversationResponse
  }

  /** One artifact: FILE and SCREENSHOT carry a signed download URL; a PLAN its Markdown inline. */
  async getArtifact(artifactUid: string, options: RequestOptions = {}): Promise<ArtifactResponse> {
    if (artifactUid.trim() === '') throw new Error('An artifact UID is required')
    const path = `/agent/artifacts/${encodeURIComponent(artifactUid)}`
    return (await this.#transport.request<ArtifactResponse>('GET', path, options)).data
  }

  /** Downloads a signed URL the service handed out, without the key (see Transport.download). */
  async downloadSignedUrl(url: string, options: DownloadOptions = {}): Promise<Download> {
    return await this.#transport.download(url, options)
  }
}

/** A run's path. An ID that could leave its segment (`..`, `/`) is refused: it never reaches a URL. */
function runPath(runId: string): string {
  if (!isRunId(runId)) throw new Error(`${JSON.stringify(safeForLog(runId, 100))} is not a run ID`)
  return `/agent/runs/${encodeURIComponent(runId)}`
}
