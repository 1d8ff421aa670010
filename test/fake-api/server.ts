/**
 * An in-repo fake of the Cloud Agent Runs API on real loopback HTTP, for integration, end-to-end
 * and load tests and for the demo. Behaviour follows /work/shared/spec (the spec plus the
 * service facts); faults, rate limits and run scripts make the awkward cases reproducible.
 */
import { readFileSync } from 'node:fs'
import { createServer, STATUS_CODES } from 'node:http'
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { CreateRunRequest, RunItem, RunArtifact } from '../../src/api/types.ts'
import type { components } from '../../src/api/wire.gen.ts'
import { DownloadOrigin } from './downloads.ts'
import {
  appendToPrompt,
  cancelRun,
  conversationAt,
  defaultScript,
  hasChildrenToStart,
  hasNotStarted,
  interruptRun,
  isSessionGone,
  makeStoredRun,
  newRunId,
  restartRun,
  rfc3339,
  TERMINAL_STATES,
  viewRun,
  viewRunShared,
  markSeen,
  takeDueChildren,
} from './store.ts'
import type {
  FakeRunItem,
  FollowupScriptFactory,
  RunScript,
  RunStep,
  ScriptFactory,
  StoredRun,
} from './store.ts'

export type {
  ChildRun,
  FakeRunItem,
  FollowupScriptFactory,
  RunScript,
  RunStep,
  ScriptFactory,
} from './store.ts'
export { conversationStep, defaultScript, isoDuration, TERMINAL_STATES } from './store.ts'
export type { DownloadOrigin, DownloadRequest } from './downloads.ts'

export type FaultSpec =
  /** `act: true` carries the request out before answering, as a gateway that failed late would. */
  | {
      kind: 'status'
      status: number
      headers?: Record<string, string>
      body?: string | object
      act?: boolean
    }
  | { kind: 'reset' }
  | { kind: 'reset-after-acting' }
  | { kind: 'delay'; ms: number }
  | { kind: 'malformed'; body?: string; contentType?: string; status?: number; act?: boolean }
  | { kind: 'huge-body'; bytes: number }
  /** Never answers: the request is read, and the socket held open until the fake closes. */
  | { kind: 'hang' }
  /** A 200 whose body never ends: a space every `intervalMs` (default 1000), forever. */
  | { kind: 'trickle'; intervalMs?: number }
  /**
   * Acts as usual, then answers with `rewrite` applied to the decoded JSON body (the real
   * answer's status). `undefined` from `rewrite` sends an empty body. E.g. another run's
   * `run_id`, `null`, a state that is not a string, a state that holds a workflow command.
   */
  | { kind: 'rewrite-body'; rewrite: (body: unknown) => unknown }
  /**
   * An HTML error page (default 502) that echoes the request's Authorization header, as a
   * debugging proxy might: the key appears past the first `prefixChars` (default 150).
   */
  | { kind: 'echo-key'; status?: number; prefixChars?: number }

export interface FaultRule {
  /** Case-insensitive; omitted or `*` matches any method. */
  method?: string
  /** See `PathPattern`. Omitted matches any path. */
  path?: PathPattern
  /** Requests the rule applies to before it is spent. Default 1; `Infinity` never expires. */
  times?: number
  fault: FaultSpec
}

/**
 * A string matches the request path exactly, either in full (`/api/v1/agent/runs`) or
 * relative to the base URL (`/agent/runs`). A RegExp is tested against the full path.
 */
export type PathPattern = string | RegExp

export interface RecordedRequest {
  method: string
  /** Full path without the query, e.g. `/api/v1/agent/runs/run_abc`. */
  path: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  body: string
  /** The parsed body; undefined when it is empty or not JSON. */
  json: unknown
  /** `performance.now()` when the body had been read (monotonic, this process's clock). */
  receivedAt: number
  /** What the fake answered, once the answer has been sent in full (absent for a reset). */
  response?: RecordedResponse
}

export interface RecordedResponse {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  /** The body as text, cut at 1 MiB. */
  body: string
}

/**
 * What a cancel request does. `cancel` cancels (200), `already-terminal` answers 400,
 * `conflict` 409 and `not-supported` 422.
 */
export type CancelOutcome = 'cancel' | 'already-terminal' | 'conflict' | 'not-supported'

/** How the service says it routed a follow-up (the answer's `outcome`). */
export type FollowupOutcome = components['schemas']['FollowupOutcome']

/**
 * What a follow-up's answer says: an outcome, or `unstated` for an older deployment's answer,
 * `{}`, without `followup_id` or `outcome`.
 */
export type FollowupAnswer = FollowupOutcome | 'unstated'

export interface FakeApiOptions {
  /** Default `test-key`. */
  apiKey?: string
  /** Default 127.0.0.1. */
  host?: string
  /** Default 0: a free port. */
  port?: number
  /** How each new run evolves. Default: QUEUED@0, INPROGRESS@200ms, SUCCEEDED@600ms. */
  script?: ScriptFactory
  /** How a run evolves after a follow-up. Default: its script again. */
  followupScript?: FollowupScriptFactory
  /**
   * A follow-up's new pass reaches its last step only once a GET of the run has shown the step
   * before it (`afterSeen`): a step awaiting the pass sees it at work, however loaded the
   * machine, where a pass quicker than its polls leaves it to wait out the grace for a pass never
   * seen (NEW_PASS_GRACE_MS). Default false: the pass keeps its script's own times.
   */
  followupPassSeen?: boolean
  /**
   * Overrides the cancel rules for a run; return undefined to keep them. The rules: terminal
   * => 400, PENDING => 409, `is_run_type_cancellable: false` => 422, otherwise cancelled.
   */
  cancelBehaviour?: (run: RunItem) => CancelOutcome | undefined
  /**
   * Overrides what a follow-up's answer says (the run as it was when the follow-up came);
   * return undefined to keep the rule: `queued_prompt` for a run not started (the message joins
   * its prompt), `handoff_execution` for an ended one and `live_session` otherwise (each a new
   * pass). Only the answer changes: the run takes the message by its state all the same, so
   * `queue_pending` is a message delivered at once, and `unstated` an older service's `{}`.
   */
  followupAnswer?: (run: RunItem) => FollowupAnswer | undefined
  /** A token bucket over every request; an empty bucket answers 429 with Retry-After. */
  rateLimit?: {
    capacity: number
    refillPerSecond: number
    retryAfterSeconds?: number
    /** The bucket's clock in ms, performance.now by default: a test moves it instead of waiting. */
    now?: () => number
  }
  /** Default 'both'. With '/agent/runs', POST /agent/run answers 404, as older servers did not. */
  createPath?: '/agent/run' | '/agent/runs' | 'both'
  /**
   * Default true. False: a list filtered by metadata answers 403 `feature_not_available`.
   * 'ignored': the filter is taken and ignored, as an older deployment does (every run listed).
   */
  metadataFilter?: boolean | 'ignored'
  /** Whether a create answer says `at_capacity: true` (the run waits in the service's queue). */
  atCapacity?: boolean | ((create: CreateRunRequest) => boolean)
  /**
   * Chaos for soak tests: each request not caught by an injected fault gets one of `faults`
   * with this probability, drawn from a PRNG seeded with `seed`, so a failure can be replayed.
   */
  randomFaults?: { probability: number; seed: number; faults: FaultSpec[] }
  /** How far the service's index lags behind its writes: a run is listed this long after its create. */
  listLagMs?: number
  /**
   * How far the service's clock is off the runner's (negative: behind). It moves every time the
   * service shows (`created_at`, `updated_at`, `started_at`, the list's `Date` header) and what
   * `created_after` / `created_before` are compared with.
   */
  clockSkewMs?: number
  /** Default true. False: runs are shown without their `metadata`, as an older service would. */
  showMetadata?: boolean
  /**
   * The credits each run spends once, when it first starts working (its sandbox and the context
   * it builds), shown as `platform_cost`; a follow-up's new pass of the same run does not pay
   * them again. Default 0.
   */
  setupCredits?: number
  /**
   * An account on dollar billing: each usage figure is also shown in US dollars
   * (`compute_cost_usd`, `inference_cost_usd`, `platform_cost_usd`), at this many dollars a
   * credit. Default: none, an account on credit billing, whose runs report no dollars.
   */
  usdPerCredit?: number
  /**
   * The self-hosted workers the team connected: a create naming another `config.worker_host`
   * answers 400. Default: any host is connected.
   */
  workerHosts?: readonly string[]
}

export interface SeedRunOptions {
  script?: RunScript
  /** When the run was created (epoch ms or RFC 3339); its script is evaluated from then. */
  createdAt?: number | string
  runId?: string
}

interface Reply {
  status: number
  headers: Record<string, string>
  body: string
}

interface ActiveFault {
  rule: FaultRule
  remaining: number
}

interface Waiter {
  method: string
  pattern: PathPattern
  resolve: (request: RecordedRequest) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout
}

const API_PREFIX = '/api/v1'
const ERROR_TYPE_BASE = 'https://errors.example.test/'
const MAX_BODY_BYTES = 10 * 1024 * 1024
const DEFAULT_PAGE_SIZE = 20
const MAX_PAGE_SIZE = 500
const MAX_RECORDED_RESPONSE_BYTES = 1024 * 1024
const MAX_METADATA_KEYS = 20
const MAX_METADATA_FILTERS = 5
const MAX_METADATA_VALUE_BYTES = 256
const METADATA_KEY = /^[a-zA-Z0-9._-]{1,64}$/
const DEFAULT_MALFORMED_BODY =
  '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>'

/** The schema's `PlatformErrorCode` for a status the fake answers with. */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'authentication_required',
  402: 'insufficient_credits',
  403: 'not_authorized',
  404: 'resource_not_found',
  405: 'invalid_request',
  409: 'conflict',
  410: 'resource_unavailable',
  413: 'invalid_request',
  422: 'operation_not_supported',
  429: 'resource_unavailable',
  500: 'internal_error',
  502: 'resource_unavailable',
  503: 'resource_unavailable',
  504: 'resource_unavailable',
}

const LIST_PARAMETERS: ReadonlySet<string> = new Set([
  'limit',
  'cursor',
  'sort_by',
  'sort_order',
  'state',
  'name',
  'model_id',
  'creator',
  'source',
  'execution_location',
  'created_after',
  'created_before',
  'updated_after',
  'environment_id',
  'skill',
  'skill_spec',
  'schedule_id',
  'ancestor_run_id',
  'artifact_type',
  'q',
])
/**
 * The values the list filters take, read from the service's own schema (vendored under
 * test/contract/): not from the client's types, so the fake cannot share the client's mistakes.
 */
const SERVICE_FACTS = JSON.parse(
  readFileSync(new URL('../contract/service-openapi.facts.json', import.meta.url), 'utf8'),
) as {
  components: { schemas: Record<string, { enum?: string[] }> }
  paths: Record<string, { get?: { parameters?: { name: string; schema?: { enum?: string[] } }[] } }>
}
const schemaEnum = (name: string): ReadonlySet<string> =>
  new Set(SERVICE_FACTS.components.schemas[name]?.enum ?? [])
const RUN_STATES = schemaEnum('RunState')
/** The harnesses the schema names (`Harness.type`): the fake, like the service, refuses others. */
const HARNESSES: ReadonlySet<string> = new Set(
  (
    SERVICE_FACTS.components.schemas['Harness'] as
      { properties?: { type?: { enum?: string[] } } } | undefined
  )?.properties?.type?.enum ?? [],
)
const RUN_SOURCES = schemaEnum('RunSourceType')
const EXECUTION_LOCATIONS = schemaEnum('RunExecutionLocation')
const ARTIFACT_TYPES: ReadonlySet<string> = new Set(
  SERVICE_FACTS.paths['/api/v1/agent/runs']?.get?.parameters?.find(
    (parameter) => parameter.name === 'artifact_type',
  )?.schema?.enum ?? [],
)
type SortBy = 'updated_at' | 'created_at' | 'title' | 'agent'
const SORT_KEYS: ReadonlySet<string> = new Set(['updated_at', 'created_at', 'title', 'agent'])

export class FakeAgentApi {
  readonly baseUrl: string
  /** Every request in arrival order, recorded before faults, rate limit and auth apply. */
  readonly requests: RecordedRequest[] = []

  readonly #server: Server
  readonly #apiKey: string
  readonly #script: ScriptFactory
  readonly #followupScript: FollowupScriptFactory | undefined
  readonly #followupPassSeen: boolean
  readonly #cancelBehaviour: FakeApiOptions['cancelBehaviour']
  readonly #followupAnswer: FakeApiOptions['followupAnswer']
  readonly #rateLimit: FakeApiOptions['rateLimit']
  readonly #createPath: NonNullable<FakeApiOptions['createPath']>
  readonly #metadataFilter: boolean | 'ignored'
  readonly #randomFaults: FakeApiOptions['randomFaults']
  readonly #atCapacity: FakeApiOptions['atCapacity']
  readonly #listLagMs: number
  /** A lag the test scripts: while it says so of a run, the list leaves the run out. */
  #unlisted: ((run: FakeRunItem) => boolean) | undefined
  readonly #clockSkewMs: number
  readonly #showMetadata: boolean
  readonly #setupCredits: number
  readonly #usdPerCredit: number | undefined
  readonly #workerHosts: readonly string[] | undefined
  readonly #random: () => number
  /** The second origin, standing in for object storage: signed artifact and transcript URLs. */
  readonly downloads: DownloadOrigin
  readonly #artifactContents = new Map<string, string | Buffer>()
  readonly #recordedFor = new WeakMap<IncomingMessage, RecordedRequest>()
  /** Random faults handed out so far, for the soak test's report. */
  randomFaultsServed = 0
  readonly #runs = new Map<string, StoredRun>()
  /** Runs whose agent has children still to start (a script step with `spawn`). */
  readonly #orchestrating = new Set<StoredRun>()
  readonly #timers = new Set<NodeJS.Timeout>()
  readonly #waiters = new Set<Waiter>()
  #faults: ActiveFault[] = []
  #seq = 0
  #followupSeq = 0
  #traceSeq = 0
  #tokens = 0
  #tokensAt = 0
  #closing: Promise<void> | undefined

  private constructor(
    server: Server,
    baseUrl: string,
    options: FakeApiOptions,
    downloads: DownloadOrigin,
  ) {
    this.#server = server
    this.baseUrl = baseUrl
    this.downloads = downloads
    this.#atCapacity = options.atCapacity
    this.#apiKey = options.apiKey ?? 'test-key'
    this.#script = options.script ?? defaultScript
    this.#followupScript = options.followupScript
    this.#followupPassSeen = options.followupPassSeen ?? false
    this.#cancelBehaviour = options.cancelBehaviour
    this.#followupAnswer = options.followupAnswer
    this.#rateLimit = options.rateLimit
    this.#createPath = options.createPath ?? 'both'
    this.#metadataFilter = options.metadataFilter ?? true
    this.#randomFaults = options.randomFaults
    this.#listLagMs = options.listLagMs ?? 0
    this.#clockSkewMs = options.clockSkewMs ?? 0
    this.#showMetadata = options.showMetadata ?? true
    this.#setupCredits = options.setupCredits ?? 0
    this.#usdPerCredit = options.usdPerCredit
    this.#workerHosts = options.workerHosts
    this.#random = seededRandom(options.randomFaults?.seed ?? 1)
    if (this.#rateLimit) {
      this.#tokens = this.#rateLimit.capacity
      this.#tokensAt = (this.#rateLimit.now ?? performance.now.bind(performance))()
    }
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      recordResponse(res, (response) => {
        const recorded = this.#recordedFor.get(req)
        if (recorded) recorded.response = response
      })
      this.#onRequest(req, res).catch(() => req.socket.destroy())
    })
  }

  static async start(options: FakeApiOptions = {}): Promise<FakeAgentApi> {
    const server = createServer()
    const host = options.host ?? '127.0.0.1'
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
    const { port } = server.address() as AddressInfo
    const urlHost = host.includes(':') ? `[${host}]` : host
    const downloads = await DownloadOrigin.start(host)
    return new FakeAgentApi(server, `http://${urlHost}:${port}${API_PREFIX}`, options, downloads)
  }

  /** Every request with the answer it got, in arrival order: what the contract test validates. */
  exchanges(): (RecordedRequest & { response: RecordedResponse })[] {
    return this.requests.filter(
      (request): request is RecordedRequest & { response: RecordedResponse } =>
        request.response !== undefined,
    )
  }

  /** What a `FILE`, `SCREENSHOT` or `PLAN` artifact's download (or inline plan) holds. */
  setArtifactContent(artifactUid: string, content: string | Buffer): void {
    this.#artifactContents.set(artifactUid, content)
  }

  injectFault(rule: FaultRule): void {
    const times = rule.times ?? 1
    if (!(times > 0)) throw new Error(`fault times must be positive, got ${times}`)
    this.#faults.push({ rule, remaining: times })
  }

  clearFaults(): void {
    this.#faults = []
  }

  /** The run as GET would show it now, or undefined. */
  run(runId: string): FakeRunItem | undefined {
    this.#startChildren()
    const stored = this.#runs.get(runId)
    return stored ? viewRun(stored) : undefined
  }

  /** Every run, newest first. */
  allRuns(): FakeRunItem[] {
    this.#startChildren()
    const now = performance.now()
    return this.#sortedRuns('desc').map((run) => viewRun(run, now))
  }

  /**
   * Every run's state as GET would show it now, newest first: for a wait that checks often
   * (every 10 ms, hundreds of runs), which allRuns' copies would make a load of its own.
   */
  runStates(): string[] {
    this.#startChildren()
    const now = performance.now()
    return this.#sortedRuns('desc').map((run) => viewRunShared(run, now).state)
  }

  /** Creates a run without HTTP, e.g. to fill the list before a test. */
  seedRun(create: CreateRunRequest, options: SeedRunOptions = {}): FakeRunItem {
    const createdAt =
      typeof options.createdAt === 'string' ? Date.parse(options.createdAt) : options.createdAt
    if (createdAt !== undefined && Number.isNaN(createdAt)) {
      throw new Error(`invalid createdAt: ${String(options.createdAt)}`)
    }
    const runId = options.runId ?? newRunId()
    if (this.#runs.has(runId)) throw new Error(`run ${runId} already exists`)
    const parentId = create.parent_run_id
    const parent = parentId === undefined ? undefined : this.#runs.get(parentId)
    if (parentId !== undefined && !parent) throw new Error(`no parent run ${parentId}`)
    // A child inherits its parent's metadata; the keys of its own request win.
    const request: CreateRunRequest = parent?.request.metadata
      ? { ...create, metadata: { ...parent.request.metadata, ...create.metadata } }
      : create
    const script = options.script ?? this.#script(request, runId)
    const stored = makeStoredRun(runId, ++this.#seq, request, script, createdAt, parent?.rootId)
    stored.setupCredits = this.#setupCredits
    stored.usdPerCredit = this.#usdPerCredit
    this.#runs.set(runId, stored)
    if (hasChildrenToStart(stored)) this.#orchestrating.add(stored)
    return viewRun(stored)
  }

  /** The runs of a tree (its root and every run under it), oldest first. */
  tree(rootId: string): FakeRunItem[] {
    this.#startChildren()
    return this.#sortedRuns('asc')
      .filter((run) => run.rootId === rootId)
      .map((run) => viewRun(run))
  }

  /**
   * Starts the children the agents have started by now, as if the service had: state is never
   * advanced by timers, so each request (and each look a test takes) brings the trees up to date.
   */
  #startChildren(): void {
    for (const parent of this.#orchestrating) {
      for (const { child, startedWall } of takeDueChildren(parent)) {
        const runId = newRunId()
        const script = typeof child.script === 'function' ? child.script(runId) : child.script
        this.seedRun(
          {
            prompt: child.prompt ?? `Work for ${parent.id}`,
            parent_run_id: parent.id,
            ...(child.metadata ? { metadata: child.metadata } : {}),
            ...(child.config ? { config: child.config } : {}),
          },
          { runId, createdAt: startedWall, ...(script ? { script } : {}) },
        )
      }
      if (!hasChildrenToStart(parent)) this.#orchestrating.delete(parent)
    }
  }

  /**
   * Sets fields on a run that win over its script, e.g. `{ is_run_type_cancellable: false }`.
   * `run_id` and `state` cannot be patched: use a script, a follow-up or a cancel.
   */
  patchRun(runId: string, patch: Partial<RunItem>): void {
    const stored = this.#runs.get(runId)
    if (!stored) throw new Error(`no run ${runId}`)
    const rest = { ...patch }
    delete rest.run_id
    delete rest.state
    Object.assign(stored.overrides, rest)
  }

  /** The follow-up messages a run has accepted, oldest first. */
  followups(runId: string): string[] {
    return [...(this.#runs.get(runId)?.followups ?? [])]
  }

  /**
   * Read-after-write lag, as long as a test wants it: while `unlisted` says so of a run, the
   * list leaves it out (a GET still shows it). Undefined lists every run again (the index caught up).
   */
  lagList(unlisted: ((run: FakeRunItem) => boolean) | undefined): void {
    this.#unlisted = unlisted
  }

  /** How many interrupts a run has accepted (answered 202). */
  interrupts(runId: string): number {
    return this.#runs.get(runId)?.interrupts ?? 0
  }

  requestsTo(method: string, pathPattern: PathPattern): RecordedRequest[] {
    return this.requests.filter((r) => matches(r, method, pathPattern))
  }

  /**
   * Resolves with the first matching request, which may have arrived before the call. The
   * timeout only ends a wait for a request that never comes: a step starved of the CPU on a
   * loaded machine may take many seconds to send it (5 s failed tests under load).
   */
  waitForRequest(
    method: string,
    pathPattern: PathPattern,
    timeoutMs = 40_000,
  ): Promise<RecordedRequest> {
    const seen = this.requests.find((r) => matches(r, method, pathPattern))
    if (seen) return Promise.resolve(seen)
    if (this.#closing) return Promise.reject(new Error('the fake API is closed'))
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        method,
        pattern: pathPattern,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter)
          const seenSoFar = this.requests.map((r) => `${r.method} ${r.path}`).join(', ')
          reject(
            new Error(
              `no ${method} ${String(pathPattern)} within ${timeoutMs} ms; saw: ${seenSoFar || 'nothing'}`,
            ),
          )
        }, timeoutMs),
      }
      this.#waiters.add(waiter)
    })
  }

  /** Stops listening and destroys open sockets at once, even mid-response. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      for (const timer of this.#timers) clearTimeout(timer)
      this.#timers.clear()
      for (const waiter of this.#waiters) {
        clearTimeout(waiter.timer)
        waiter.reject(new Error('the fake API was closed'))
      }
      this.#waiters.clear()
      let open = 2
      const done = (): void => {
        if (--open === 0) resolve()
      }
      this.#server.close(done)
      this.#server.closeAllConnections()
      this.downloads.close().then(done, done)
    })
    return this.#closing
  }

  async #onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { text, tooLarge } = await readBody(req)
    const recorded = this.#record(req, text)
    const fault = this.#takeFault(recorded)
    if (!fault) {
      send(res, tooLarge ? this.#tooLarge(recorded) : this.#process(recorded))
      return
    }
    switch (fault.kind) {
      case 'status':
        if (fault.act) this.#process(recorded)
        send(res, this.#faultReply(fault, recorded))
        return
      case 'reset':
        req.socket.destroy()
        return
      case 'reset-after-acting':
        this.#process(recorded)
        req.socket.destroy()
        return
      case 'delay':
        // The request is acted on after the delay, even if the client has given up by then,
        // as a slow server would: a retried create can then start two runs.
        await this.#sleep(fault.ms)
        if (this.#closing) return
        send(res, this.#process(recorded))
        return
      case 'malformed':
        if (fault.act) this.#process(recorded)
        send(res, {
          status: fault.status ?? 200,
          headers: { 'content-type': fault.contentType ?? 'text/html; charset=utf-8' },
          body: fault.body ?? DEFAULT_MALFORMED_BODY,
        })
        return
      case 'huge-body':
        await sendHuge(res, fault.bytes)
        return
      case 'hang':
        return
      case 'trickle':
        this.#trickle(res, fault.intervalMs ?? 1000)
        return
      case 'rewrite-body': {
        const reply = this.#process(recorded)
        const decoded = parseJson(reply.body)
        const rewritten = fault.rewrite(decoded.ok ? decoded.value : undefined)
        send(res, {
          ...reply,
          headers: { ...reply.headers, 'content-type': 'application/json' },
          body: rewritten === undefined ? '' : JSON.stringify(rewritten),
        })
        return
      }
      case 'echo-key': {
        const status = fault.status ?? 502
        const preamble = 'x'.repeat(fault.prefixChars ?? 150)
        const authorization = String(req.headers.authorization ?? '')
        send(res, {
          status,
          headers: { 'content-type': 'text/html; charset=utf-8' },
          body: `<html><body><h1>${status} ${STATUS_CODES[status] ?? 'Error'}</h1><p>${preamble}</p><pre>Authorization: ${authorization}</pre></body></html>`,
        })
        return
      }
    }
  }

  #record(req: IncomingMessage, body: string): RecordedRequest {
    const url = req.url ?? '/'
    const queryStart = url.indexOf('?')
    const path = queryStart === -1 ? url : url.slice(0, queryStart)
    const query = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1))
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      query,
      headers: req.headers,
      body,
      json: parseJson(body).value,
      receivedAt: performance.now(),
    }
    this.#recordedFor.set(req, recorded)
    this.requests.push(recorded)
    for (const waiter of this.#waiters) {
      if (matches(recorded, waiter.method, waiter.pattern)) {
        clearTimeout(waiter.timer)
        this.#waiters.delete(waiter)
        waiter.resolve(recorded)
      }
    }
    return recorded
  }

  #takeFault(request: RecordedRequest): FaultSpec | undefined {
    const active = this.#faults.find(({ rule }) => matches(request, rule.method ?? '*', rule.path))
    if (!active) return this.#takeRandomFault()
    active.remaining -= 1
    if (active.remaining <= 0) this.#faults = this.#faults.filter((other) => other !== active)
    return active.rule.fault
  }

  #takeRandomFault(): FaultSpec | undefined {
    const chaos = this.#randomFaults
    if (!chaos || chaos.faults.length === 0 || this.#random() >= chaos.probability) return undefined
    this.randomFaultsServed += 1
    return chaos.faults[Math.floor(this.#random() * chaos.faults.length)]
  }

  #faultReply(fault: Extract<FaultSpec, { kind: 'status' }>, request: RecordedRequest): Reply {
    const base =
      fault.body === undefined
        ? this.#problem(
            request,
            fault.status,
            CODE_BY_STATUS[fault.status] ?? 'internal_error',
            'Injected fault.',
          )
        : typeof fault.body === 'string'
          ? {
              status: fault.status,
              headers: { 'content-type': 'text/plain; charset=utf-8' },
              body: fault.body,
            }
          : {
              status: fault.status,
              headers: { 'content-type': 'application/problem+json' },
              body: JSON.stringify(fault.body),
            }
    return { ...base, headers: { ...base.headers, ...fault.headers } }
  }

  /** Headers at once, then one space at a time: a body that never completes. */
  #trickle(res: ServerResponse, intervalMs: number): void {
    res.writeHead(200, { 'content-type': 'application/json' })
    const tick = (): void => {
      if (res.destroyed || this.#closing) return
      res.write(' ')
      const timer = setTimeout(() => {
        this.#timers.delete(timer)
        tick()
      }, intervalMs)
      this.#timers.add(timer)
    }
    tick()
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer)
        resolve()
      }, ms)
      this.#timers.add(timer)
    })
  }

  /** Rate limit, auth and routing: everything a request goes through when no fault fires. */
  #process(request: RecordedRequest): Reply {
    try {
      this.#startChildren()
      return this.#limit(request) ?? this.#authenticate(request) ?? this.#route(request)
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error)
      return this.#problem(request, 500, 'internal_error', `The fake API failed: ${detail}`)
    }
  }

  #limit(request: RecordedRequest): Reply | undefined {
    const limit = this.#rateLimit
    if (!limit) return undefined
    const now = (limit.now ?? performance.now.bind(performance))()
    const refilled = this.#tokens + ((now - this.#tokensAt) / 1000) * limit.refillPerSecond
    this.#tokens = Math.min(limit.capacity, refilled)
    this.#tokensAt = now
    if (this.#tokens >= 1) {
      this.#tokens -= 1
      return undefined
    }
    const untilToken =
      limit.refillPerSecond > 0 ? Math.ceil((1 - this.#tokens) / limit.refillPerSecond) : 1
    const retryAfter = limit.retryAfterSeconds ?? Math.max(1, untilToken)
    const reply = this.#problem(request, 429, 'resource_unavailable', 'Too many requests.', {
      retryable: true,
    })
    reply.headers['retry-after'] = String(retryAfter)
    return reply
  }

  #authenticate(request: RecordedRequest): Reply | undefined {
    const header = request.headers.authorization
    if (header === `Bearer ${this.#apiKey}`) return undefined
    const detail = header
      ? 'The API key is not valid.'
      : 'Send the API key as `Authorization: Bearer <key>`.'
    return this.#problem(request, 401, 'authentication_required', detail)
  }

  #route(request: RecordedRequest): Reply {
    const notFound = (): Reply =>
      this.#problem(request, 404, 'resource_not_found', `No route for ${request.path}.`)
    if (!request.path.startsWith(`${API_PREFIX}/`)) return notFound()
    const segments = request.path.slice(API_PREFIX.length + 1).split('/')
    if (segments[0] !== 'agent') return notFound()

    const method = request.method.toUpperCase()
    const allow = (methods: string[], handle: () => Reply): Reply =>
      methods.includes(method) ? handle() : this.#methodNotAllowed(request, methods)

    const createHere = (path: '/agent/run' | '/agent/runs'): boolean =>
      this.#createPath === 'both' || this.#createPath === path

    if (segments.length === 3 && segments[1] === 'artifacts') {
      const artifactUid = decodeSegment(segments[2] ?? '')
      if (!artifactUid) return notFound()
      return allow(['GET'], () => this.#artifact(request, artifactUid))
    }
    if (segments.length === 2 && segments[1] === 'run') {
      return createHere('/agent/run') ? allow(['POST'], () => this.#create(request)) : notFound()
    }
    if (segments[1] !== 'runs') return notFound()
    if (segments.length === 2) {
      const methods = createHere('/agent/runs') ? ['GET', 'POST'] : ['GET']
      return allow(methods, () => (method === 'GET' ? this.#list(request) : this.#create(request)))
    }
    const runId = decodeSegment(segments[2] ?? '')
    if (!runId) return notFound()
    if (segments.length === 3) return allow(['GET'], () => this.#get(request, runId))
    if (segments.length === 4 && segments[3] === 'followups') {
      return allow(['POST'], () => this.#followup(request, runId))
    }
    if (segments.length === 4 && segments[3] === 'interrupt') {
      return allow(['POST'], () => this.#interrupt(request, runId))
    }
    if (segments.length === 4 && segments[3] === 'cancel') {
      return allow(['POST'], () => this.#cancel(request, runId))
    }
    if (segments.length === 4 && segments[3] === 'conversation') {
      return allow(['GET'], () => this.#conversation(request, runId))
    }
    if (segments.length === 4 && segments[3] === 'transcript') {
      return allow(['GET'], () => this.#transcript(request, runId))
    }
    return notFound()
  }

  #create(request: RecordedRequest): Reply {
    const parsed = parseJson(request.body)
    if (!parsed.ok) {
      return this.#problem(request, 400, 'invalid_request', 'The body is not valid JSON.')
    }
    const invalid = validateCreate(parsed.value) ?? this.#unknownWorker(parsed.value)
    if (invalid !== undefined) return this.#problem(request, 400, 'invalid_request', invalid)
    const create = parsed.value as CreateRunRequest
    if (create.parent_run_id !== undefined && !this.#runs.has(create.parent_run_id)) {
      return this.#problem(
        request,
        400,
        'invalid_request',
        `No run ${create.parent_run_id} to be the parent.`,
      )
    }
    const run = this.seedRun(create)
    const atCapacity =
      typeof this.#atCapacity === 'function' ? this.#atCapacity(create) : this.#atCapacity
    return json(200, {
      run_id: run.run_id,
      task_id: run.run_id,
      state: run.state,
      ...(atCapacity === undefined ? {} : { at_capacity: atCapacity }),
    })
  }

  /** A `config.worker_host` the team has not connected (see FakeApiOptions.workerHosts). */
  #unknownWorker(body: unknown): string | undefined {
    const config = isObject(body) ? body['config'] : undefined
    const host = isObject(config) ? config['worker_host'] : undefined
    if (typeof host !== 'string' || !this.#workerHosts || this.#workerHosts.includes(host)) {
      return undefined
    }
    return `No worker is connected as host ${host}: connect one, or leave worker_host out to run on the service's machines.`
  }

  #conversation(request: RecordedRequest, runId: string): Reply {
    const stored = this.#runs.get(runId)
    if (!stored) return this.#runNotFound(request, runId)
    const conversation = conversationAt(stored)
    if (!conversation) {
      return this.#problem(
        request,
        404,
        'resource_not_found',
        `Run ${runId} has no conversation yet.`,
      )
    }
    if (conversation.unsupported) {
      return this.#problem(
        request,
        422,
        'operation_not_supported',
        `The conversation format of run ${runId} is not supported by this endpoint yet.`,
      )
    }
    const { conversation_id } = viewRunShared(stored)
    return json(200, { conversation_id, steps: conversation.steps })
  }

  #transcript(request: RecordedRequest, runId: string): Reply {
    const stored = this.#runs.get(runId)
    if (!stored) return this.#runNotFound(request, runId)
    const transcript = JSON.stringify({ run_id: runId, steps: conversationAt(stored)?.steps ?? [] })
    const { url } = this.downloads.put(`/transcripts/${runId}.json`, transcript, 'application/json')
    return { status: 302, headers: { location: url }, body: '' }
  }

  #artifact(request: RecordedRequest, artifactUid: string): Reply {
    const found = this.#findArtifact(artifactUid)
    const notFound = (): Reply =>
      this.#problem(request, 404, 'resource_not_found', `Artifact ${artifactUid} was not found.`)
    if (!found) return notFound()
    const { artifact } = found
    const content = this.#artifactContents.get(artifactUid)
    switch (artifact.artifact_type) {
      case 'PLAN': {
        const { data } = artifact
        return json(200, {
          artifact_uid: artifactUid,
          artifact_type: 'PLAN',
          created_at: artifact.created_at,
          data: {
            document_uid: data.document_uid,
            notebook_uid: data.notebook_uid ?? `nb_${data.document_uid}`,
            ...(data.url ? { url: data.url } : {}),
            ...(data.title ? { title: data.title } : {}),
            content: String(content ?? `# ${data.title ?? 'Plan'}\n\n1. Read the code.\n`),
            content_type: 'text/markdown',
          },
        })
      }
      case 'FILE': {
        const { data } = artifact
        const body = content ?? `Contents of ${data.filepath}\n`
        const signed = this.downloads.put(
          `/artifacts/${artifactUid}/${encodeURIComponent(data.filename)}`,
          body,
          data.mime_type,
        )
        return json(200, {
          artifact_uid: artifactUid,
          artifact_type: 'FILE',
          created_at: artifact.created_at,
          data: {
            download_url: signed.url,
            expires_at: signed.expiresAt,
            content_type: data.mime_type,
            filename: data.filename,
            filepath: data.filepath,
            size_bytes: Buffer.byteLength(body),
          },
        })
      }
      case 'SCREENSHOT': {
        const { data } = artifact
        const body = content ?? Buffer.from('89504e470d0a1a0a', 'hex')
        const signed = this.downloads.put(
          `/artifacts/${artifactUid}/screenshot`,
          body,
          data.mime_type,
        )
        return json(200, {
          artifact_uid: artifactUid,
          artifact_type: 'SCREENSHOT',
          created_at: artifact.created_at,
          data: {
            download_url: signed.url,
            expires_at: signed.expiresAt,
            content_type: data.mime_type,
          },
        })
      }
      case 'PULL_REQUEST':
        // The endpoint does not serve this type.
        return notFound()
    }
  }

  #findArtifact(artifactUid: string): { artifact: RunArtifact } | undefined {
    const now = performance.now()
    for (const stored of this.#runs.values()) {
      for (const artifact of viewRunShared(stored, now).artifacts ?? []) {
        const data = artifact.data as { artifact_uid?: string; document_uid?: string }
        if (data.artifact_uid === artifactUid || data.document_uid === artifactUid) {
          return { artifact }
        }
      }
    }
    return undefined
  }

  #get(request: RecordedRequest, runId: string): Reply {
    const stored = this.#runs.get(runId)
    if (!stored) return this.#runNotFound(request, runId)
    const now = performance.now()
    const reply = json(200, this.#onTheWire(viewRunShared(stored, now)))
    markSeen(stored, now)
    return reply
  }

  /** A run as the service shows it over HTTP: by its own clock, with or without metadata. */
  #onTheWire(view: FakeRunItem): FakeRunItem {
    if (this.#clockSkewMs === 0 && this.#showMetadata) return view
    const shown: FakeRunItem = { ...view }
    if (!this.#showMetadata) delete shown.metadata
    for (const field of ['created_at', 'updated_at', 'started_at'] as const) {
      const time = Date.parse(shown[field] ?? '')
      if (!Number.isNaN(time)) shown[field] = rfc3339(time + this.#clockSkewMs)
    }
    return shown
  }

  #list(request: RecordedRequest): Reply {
    const { query } = request
    const bad = (detail: string): Reply => this.#problem(request, 400, 'invalid_request', detail)

    // Every filter the schema names is honoured; anything else is refused, never ignored.
    for (const key of new Set(query.keys())) {
      if (!LIST_PARAMETERS.has(key) && !/^metadata\[.*\]$/.test(key)) {
        return bad(`Unknown query parameter: ${key}.`)
      }
      if (key !== 'state' && query.getAll(key).length > 1) return bad(`${key} is given twice.`)
    }

    let limit = DEFAULT_PAGE_SIZE
    const rawLimit = query.get('limit')
    if (rawLimit !== null) {
      limit = Number(rawLimit)
      if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > MAX_PAGE_SIZE) {
        return bad(`Invalid limit: ${rawLimit}; use 1 to ${MAX_PAGE_SIZE}.`)
      }
    }

    const sortOrder = query.get('sort_order') ?? 'desc'
    if (sortOrder !== 'asc' && sortOrder !== 'desc') return bad(`Invalid sort_order: ${sortOrder}.`)
    const sortBy = query.get('sort_by') ?? 'updated_at'
    if (!SORT_KEYS.has(sortBy)) return bad(`Invalid sort_by: ${sortBy}.`)

    let after: Cursor | undefined
    const rawCursor = query.get('cursor')
    if (rawCursor !== null && rawCursor !== '') {
      after = decodeCursor(rawCursor)
      if (!after || after.order !== sortOrder || after.by !== sortBy) return bad('Invalid cursor.')
    }

    const times: Record<string, number | undefined> = {}
    for (const key of ['created_after', 'created_before', 'updated_after']) {
      const raw = query.get(key)
      times[key] = parseTime(raw)
      if (Number.isNaN(times[key])) return bad(`Invalid ${key}: use RFC 3339.`)
    }

    const metadata: [string, string][] = []
    for (const [key, value] of query) {
      const match = /^metadata\[(.*)\]$/.exec(key)
      if (match?.[1] !== undefined) metadata.push([match[1], value])
    }
    if (metadata.length > 0 && !this.#metadataFilter) {
      return this.#problem(
        request,
        403,
        'feature_not_available',
        'Filtering runs by metadata is not available on this plan.',
      )
    }
    if (metadata.length > MAX_METADATA_FILTERS) {
      return bad(`At most ${MAX_METADATA_FILTERS} metadata filters are allowed.`)
    }
    const badKey = metadata.find(([key]) => !METADATA_KEY.test(key))
    if (badKey) return bad(`Invalid metadata key: ${badKey[0]}.`)

    const states = new Set(query.getAll('state'))
    const unknownState = [...states].find((state) => !RUN_STATES.has(state))
    if (unknownState !== undefined) return bad(`Invalid state: ${unknownState}.`)
    const enums: [string, ReadonlySet<string>][] = [
      ['source', RUN_SOURCES],
      ['execution_location', EXECUTION_LOCATIONS],
      ['artifact_type', ARTIFACT_TYPES],
    ]
    for (const [key, allowed] of enums) {
      const value = query.get(key)
      if (value !== null && !allowed.has(value)) return bad(`Invalid ${key}: ${value}.`)
    }

    const equals = (key: string, actual: string | undefined): boolean => {
      const wanted = query.get(key)
      return wanted === null || actual === wanted
    }
    const text = query.get('q')?.toLowerCase()
    const ancestor = query.get('ancestor_run_id')
    const artifactType = query.get('artifact_type')
    const creator = query.get('creator')

    const now = performance.now()
    const indexedUntil = Date.now() - this.#listLagMs
    const matching: { stored: StoredRun; view: FakeRunItem; key: SortKey }[] = []
    for (const stored of this.#runs.values()) {
      if (this.#listLagMs > 0 && stored.createdWall > indexedUntil) continue
      const created = stored.createdWall + this.#clockSkewMs
      if (times['created_after'] !== undefined && !(created > times['created_after'])) continue
      if (times['created_before'] !== undefined && !(created < times['created_before'])) continue
      // Metadata is fixed at creation, so it can be checked before building the view.
      const runMetadata = stored.request.metadata
      const filtered = this.#metadataFilter !== 'ignored'
      if (filtered && metadata.some(([key, value]) => runMetadata?.[key] !== value)) continue
      const view = viewRunShared(stored, now)
      if (this.#unlisted?.(view)) continue
      const config = view.agent_config
      if (states.size > 0 && !states.has(view.state)) continue
      if (
        !equals('name', config?.name) ||
        !equals('model_id', config?.model_id) ||
        !equals('environment_id', config?.environment_id) ||
        !equals('skill_spec', config?.skill_spec) ||
        !equals('skill', stored.request.skill ?? view.agent_skill?.name) ||
        !equals('schedule_id', view.schedule?.schedule_id) ||
        !equals('source', view.source) ||
        !equals('execution_location', view.execution_location)
      ) {
        continue
      }
      if (creator !== null && view.creator?.uid !== creator && view.creator?.email !== creator) {
        continue
      }
      const updated = Date.parse(view.updated_at ?? '')
      if (times['updated_after'] !== undefined && !(updated > times['updated_after'])) continue
      if (ancestor !== null && !this.#descendsFrom(view, ancestor)) continue
      if (artifactType !== null && !view.artifacts?.some((a) => a.artifact_type === artifactType)) {
        continue
      }
      if (text !== undefined && !matchesText(view, text)) continue
      const key = sortKeyOf(sortBy as SortBy, stored, view)
      if (after && !isAfterCursor(key, stored.seq, after)) continue
      matching.push({ stored, view, key })
    }
    const sign = sortOrder === 'desc' ? -1 : 1
    matching.sort((a, b) => sign * (compareKeys(a.key, b.key) || a.stored.seq - b.stored.seq))

    const hasNext = matching.length > limit
    const page = matching.slice(0, limit)
    const last = page.at(-1)
    const reply = json(200, {
      runs: page.map((entry) => this.#onTheWire(entry.view)),
      page_info: {
        has_next_page: hasNext,
        ...(hasNext && last
          ? { next_cursor: encodeCursor(last.key, last.stored.seq, sortBy as SortBy, sortOrder) }
          : {}),
      },
    })
    if (this.#clockSkewMs !== 0) {
      reply.headers['date'] = new Date(Date.now() + this.#clockSkewMs).toUTCString()
    }
    return reply
  }

  /** Whether `run` was started, directly or through others, by `ancestorId`. */
  #descendsFrom(run: FakeRunItem, ancestorId: string): boolean {
    const seen = new Set<string>()
    let parent = run.parent_run_id
    while (parent !== undefined && !seen.has(parent)) {
      if (parent === ancestorId) return true
      seen.add(parent)
      parent = this.#runs.get(parent)?.request.parent_run_id
    }
    return false
  }

  #followup(request: RecordedRequest, runId: string): Reply {
    const parsed = parseJson(request.body)
    if (!parsed.ok) {
      return this.#problem(request, 400, 'invalid_request', 'The body is not valid JSON.')
    }
    const stored = this.#runs.get(runId)
    if (!stored) return this.#runNotFound(request, runId)
    if (!isObject(parsed.value)) {
      return this.#problem(request, 400, 'invalid_request', 'The body must be a JSON object.')
    }
    // The service's client makes both optional: `{ message?, mode? }`.
    const { message, mode } = parsed.value
    if (message !== undefined && typeof message !== 'string') {
      return this.#problem(request, 400, 'invalid_request', '`message` must be a string.')
    }
    if (mode !== undefined && typeof mode !== 'string') {
      return this.#problem(request, 400, 'invalid_request', '`mode` must be a string.')
    }
    if (isSessionGone(stored)) {
      return this.#problem(
        request,
        410,
        'resource_unavailable',
        `The session of run ${runId} is gone; start a new run with its conversation_id to carry the conversation on.`,
      )
    }
    const view = viewRun(stored)
    const started = !hasNotStarted(view.state)
    const routed: FollowupOutcome = !started
      ? 'queued_prompt'
      : TERMINAL_STATES.has(view.state)
        ? 'handoff_execution'
        : 'live_session'
    // The hook gets a copy, so it cannot corrupt the stored run.
    const answer = this.#followupAnswer?.(view) ?? routed
    if (started) {
      const next = this.#followupScript?.({
        runId,
        message: message ?? '',
        pass: stored.passes + 1,
      })
      restartRun(stored, message ?? '', next)
      if (this.#followupPassSeen) stored.script = endsOnceSeen(stored.script)
      if (hasChildrenToStart(stored)) this.#orchestrating.add(stored)
    } else {
      appendToPrompt(stored, message ?? '')
    }
    if (answer === 'unstated') return json(200, {})
    return json(200, {
      followup_id: answer === 'queued_prompt' ? null : `fu_${++this.#followupSeq}`,
      outcome: answer,
    })
  }

  /**
   * As the service: only a live (INPROGRESS) run on Warp's own harness can be interrupted, and
   * it stays INPROGRESS, its agent idle, until a follow-up. Another state answers 409; another
   * harness (the run's `agent_config.harness.type`, from its create or a patch) answers 422.
   */
  #interrupt(request: RecordedRequest, runId: string): Reply {
    const stored = this.#runs.get(runId)
    if (!stored) return this.#runNotFound(request, runId)
    const view = viewRun(stored)
    if (view.state !== 'INPROGRESS') {
      return this.#problem(
        request,
        409,
        'conflict',
        `Run ${runId} is ${view.state}; only a live run can be interrupted.`,
      )
    }
    const harness = view.agent_config?.harness?.type ?? 'oz'
    if (harness !== 'oz') {
      return this.#problem(
        request,
        422,
        'operation_not_supported',
        `Run ${runId} runs on the ${harness} harness, which cannot be interrupted.`,
      )
    }
    interruptRun(stored)
    return json(202, {})
  }

  #cancel(request: RecordedRequest, runId: string): Reply {
    const stored = this.#runs.get(runId)
    if (!stored) return this.#runNotFound(request, runId)
    const view = viewRun(stored)
    // The hook gets a copy, so it cannot corrupt the stored run.
    const outcome = this.#cancelBehaviour?.(view) ?? defaultCancelOutcome(view)
    switch (outcome) {
      case 'cancel':
        cancelRun(stored)
        return json(200, runId)
      case 'already-terminal':
        return this.#problem(
          request,
          400,
          'invalid_request',
          view.state === 'BLOCKED'
            ? `Run ${runId} is BLOCKED and cannot be cancelled.`
            : `Run ${runId} is already ${view.state} and cannot be cancelled.`,
        )
      case 'conflict':
        return this.#problem(
          request,
          409,
          'conflict',
          `Run ${runId} is ${view.state}; retry the cancel in a moment.`,
          { retryable: true },
        )
      case 'not-supported':
        return this.#problem(
          request,
          422,
          'operation_not_supported',
          `Runs of this type cannot be cancelled.`,
        )
    }
  }

  #sortedRuns(order: 'asc' | 'desc'): StoredRun[] {
    const sign = order === 'desc' ? -1 : 1
    return [...this.#runs.values()].sort(
      (a, b) => sign * (a.createdWall - b.createdWall || a.seq - b.seq),
    )
  }

  #runNotFound(request: RecordedRequest, runId: string): Reply {
    return this.#problem(request, 404, 'resource_not_found', `Run ${runId} was not found.`)
  }

  #methodNotAllowed(request: RecordedRequest, methods: string[]): Reply {
    const reply = this.#problem(
      request,
      405,
      'invalid_request',
      `${request.method} is not allowed on ${request.path}.`,
    )
    reply.headers['allow'] = methods.join(', ')
    return reply
  }

  #tooLarge(request: RecordedRequest): Reply {
    return this.#problem(request, 413, 'invalid_request', 'The request body is too large.')
  }

  #problem(
    request: RecordedRequest,
    status: number,
    code: string,
    detail: string,
    extra: Record<string, unknown> = {},
  ): Reply {
    const traceId = `trace_${String(++this.#traceSeq).padStart(6, '0')}`
    const body = {
      type: `${ERROR_TYPE_BASE}${code}`,
      title: STATUS_CODES[status] ?? 'Error',
      status,
      detail,
      instance: request.path,
      error: detail,
      trace_id: traceId,
      ...(status >= 500 ? { retryable: true } : {}),
      ...extra,
    }
    return {
      status,
      headers: { 'content-type': 'application/problem+json', 'x-trace-id': traceId },
      body: JSON.stringify(body),
    }
  }
}

function defaultCancelOutcome(run: RunItem): CancelOutcome {
  // As the service: a BLOCKED run waits for a person and cannot be cancelled either.
  if (TERMINAL_STATES.has(run.state) || run.state === 'BLOCKED') return 'already-terminal'
  if (run.is_run_type_cancellable === false) return 'not-supported'
  if (run.state === 'PENDING') return 'conflict'
  return 'cancel'
}

/** Returns an error message, or undefined when the body is a valid create request. */
function validateCreate(body: unknown): string | undefined {
  if (!isObject(body)) return 'The body must be a JSON object.'
  const { prompt, title, config, metadata } = body
  if (prompt !== undefined && typeof prompt !== 'string') return '`prompt` must be a string.'
  if (title !== undefined && typeof title !== 'string') return '`title` must be a string.'
  if (config !== undefined && !isObject(config)) return '`config` must be an object.'
  for (const field of [
    'name',
    'model_id',
    'base_prompt',
    'environment_id',
    'skill_spec',
    'worker_host',
  ]) {
    const value = config?.[field]
    if (value !== undefined && typeof value !== 'string')
      return `\`config.${field}\` must be a string.`
  }
  const harness = config?.['harness']
  if (harness !== undefined) {
    const type = isObject(harness) ? harness['type'] : undefined
    if (!isObject(harness) || (type !== undefined && typeof type !== 'string')) {
      return '`config.harness` must be an object with a string `type`.'
    }
    if (typeof type === 'string' && !HARNESSES.has(type)) {
      return `Unknown harness ${type}: this service runs ${[...HARNESSES].join(', ')}.`
    }
  }
  const servers = config?.['mcp_servers']
  if (servers !== undefined && !isObject(servers)) {
    return '`config.mcp_servers` must be an object.'
  }
  for (const [name, server] of Object.entries(servers ?? {})) {
    const kinds = ['warp_id', 'command', 'url'].filter((kind) => isObject(server) && kind in server)
    if (kinds.length !== 1) {
      return `MCP server ${name} must have exactly one of warp_id, command or url.`
    }
  }
  const hasSkill = [body['skill'], config?.['skill_spec']].some(
    (skill) => typeof skill === 'string' && skill.trim() !== '',
  )
  if (!hasSkill && (typeof prompt !== 'string' || prompt.trim() === '')) {
    return '`prompt` is required unless a skill is given.'
  }
  if (metadata === undefined) return undefined
  if (!isObject(metadata)) return '`metadata` must be an object of strings.'
  const entries = Object.entries(metadata)
  if (entries.length > MAX_METADATA_KEYS) {
    return `\`metadata\` has ${entries.length} keys; at most ${MAX_METADATA_KEYS} are allowed.`
  }
  for (const [key, value] of entries) {
    if (!METADATA_KEY.test(key)) {
      return `Invalid metadata key ${JSON.stringify(key)}: use 1-64 of [a-zA-Z0-9._-].`
    }
    if (typeof value !== 'string') return `Metadata value for ${key} must be a string.`
    if (Buffer.byteLength(value) > MAX_METADATA_VALUE_BYTES) {
      return `Metadata value for ${key} exceeds ${MAX_METADATA_VALUE_BYTES} bytes.`
    }
    if (value.includes('\0')) return `Metadata value for ${key} contains NUL.`
  }
  return undefined
}

type SortKey = number | string

interface Cursor {
  by: SortBy
  key: SortKey
  seq: number
  order: 'asc' | 'desc'
}

function sortKeyOf(by: SortBy, run: StoredRun, view: FakeRunItem): SortKey {
  switch (by) {
    case 'created_at':
      return run.createdWall
    case 'updated_at':
      return Date.parse(view.updated_at ?? '') || 0
    case 'title':
      return view.title ?? ''
    case 'agent':
      return view.agent_config?.name ?? ''
  }
}

function compareKeys(a: SortKey, b: SortKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0
}

function encodeCursor(key: SortKey, seq: number, by: SortBy, order: 'asc' | 'desc'): string {
  const cursor: Cursor = { by, key, seq, order }
  return Buffer.from(JSON.stringify(cursor)).toString('base64url')
}

function decodeCursor(raw: string): Cursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
    if (
      isObject(value) &&
      typeof value['by'] === 'string' &&
      SORT_KEYS.has(value['by']) &&
      (typeof value['key'] === 'number' || typeof value['key'] === 'string') &&
      typeof value['seq'] === 'number' &&
      (value['order'] === 'asc' || value['order'] === 'desc')
    ) {
      return {
        by: value['by'] as SortBy,
        key: value['key'],
        seq: value['seq'],
        order: value['order'],
      }
    }
  } catch {
    // Falls through: any undecodable cursor is invalid.
  }
  return undefined
}

/** Keyset paging: with `created_at`, runs created or changing while a client pages don't shift. */
function isAfterCursor(key: SortKey, seq: number, cursor: Cursor): boolean {
  const sign = cursor.order === 'desc' ? -1 : 1
  const diff = compareKeys(key, cursor.key) || seq - cursor.seq
  return sign * diff > 0
}

function matchesText(run: FakeRunItem, text: string): boolean {
  return [run.run_id, run.title, run.prompt, run.agent_config?.name].some((field) =>
    field?.toLowerCase().includes(text),
  )
}

function parseTime(raw: string | null): number | undefined {
  return raw === null || raw === '' ? undefined : Date.parse(raw)
}

function matches(
  request: RecordedRequest,
  method: string,
  pattern: PathPattern | undefined,
): boolean {
  if (method !== '*' && request.method.toUpperCase() !== method.toUpperCase()) return false
  if (pattern === undefined) return true
  if (typeof pattern !== 'string') {
    // A global or sticky RegExp keeps lastIndex between calls; reset it for repeatable matches.
    pattern.lastIndex = 0
    return pattern.test(request.path)
  }
  return request.path === pattern || request.path === `${API_PREFIX}${pattern}`
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment) || undefined
  } catch {
    return undefined
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; value: undefined } {
  if (text.trim() === '') return { ok: false, value: undefined }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false, value: undefined }
  }
}

/** The script with its last step held until a GET has shown the step before it. */
function endsOnceSeen(script: readonly RunStep[]): RunStep[] {
  return script.map((step, index) =>
    index > 0 && index === script.length - 1 ? { ...step, afterSeen: true } : step,
  )
}

function json(status: number, value: unknown): Reply {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  }
}

/** Captures what is written to `res`, handing it over once the answer is complete. */
function recordResponse(res: ServerResponse, done: (response: RecordedResponse) => void): void {
  const chunks: Buffer[] = []
  let size = 0
  const keep = (chunk: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    if (size >= MAX_RECORDED_RESPONSE_BYTES) return
    chunks.push(buffer.subarray(0, MAX_RECORDED_RESPONSE_BYTES - size))
    size += buffer.length
  }
  // writeHead's headers bypass getHeaders(), so they are kept as they pass.
  const written: RecordedResponse['headers'] = {}
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.find((arg) => isObject(arg))
    if (headers) {
      for (const [name, value] of Object.entries(headers)) {
        written[name.toLowerCase()] = value as string | string[] | number | undefined
      }
    }
    return writeHead(...args)
  }) as ServerResponse['writeHead']
  const write = res.write.bind(res) as (...args: unknown[]) => boolean
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse
  res.write = ((...args: unknown[]) => {
    keep(args[0])
    return write(...args)
  }) as ServerResponse['write']
  res.end = ((...args: unknown[]) => {
    keep(args[0])
    return end(...args)
  }) as ServerResponse['end']
  res.once('finish', () => {
    done({
      status: res.statusCode,
      headers: { ...res.getHeaders(), ...written },
      body: Buffer.concat(chunks).toString('utf8'),
    })
  })
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) return
  res.writeHead(reply.status, {
    ...reply.headers,
    'content-length': String(Buffer.byteLength(reply.body)),
  })
  res.end(reply.body)
}

async function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  const chunks: Buffer[] = []
  let size = 0
  let tooLarge = false
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    // Keeps draining so the client can read the 413, but stops buffering.
    if (size > MAX_BODY_BYTES) tooLarge = true
    else chunks.push(chunk)
  }
  return { text: Buffer.concat(chunks).toString('utf8'), tooLarge }
}

/** Streams a 200 JSON body of exactly `bytes` bytes without holding it in memory. */
async function sendHuge(res: ServerResponse, bytes: number): Promise<void> {
  const prefix = '{"run_id":"run_huge","state":"QUEUED","padding":"'
  const suffix = '"}'
  const framed = bytes >= prefix.length + suffix.length
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes) })
  let remaining = framed ? bytes - prefix.length - suffix.length : bytes
  if (framed) res.write(prefix)
  const chunk = Buffer.alloc(64 * 1024, 'x')
  while (remaining > 0 && !res.destroyed) {
    const size = Math.min(remaining, chunk.length)
    remaining -= size
    if (!res.write(size === chunk.length ? chunk : chunk.subarray(0, size))) await drained(res)
  }
  if (res.destroyed) return
  res.end(framed ? suffix : undefined)
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/** mulberry32: a small, fast PRNG whose runs repeat for a given seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
