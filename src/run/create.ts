import { randomUUID } from 'node:crypto'
import type { AgentRunsClient } from '../api/client.ts'
import type { Sleep } from '../api/transport.ts'
import { ApiStatusError } from '../api/errors.ts'
import { mayHaveActed } from '../api/retry.ts'
import type { CreateRunRequest, CreateRunResponse, RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import { STEP_KEYS } from '../model/handoff.ts'
import { FORGE_KEY } from '../model/home.ts'
import { CREATE_LOOKUP, MIN_REQUEST_MS } from '../timing.ts'
import { errorMessage } from '../text/plain.ts'
import type { World } from '../world.ts'
import { ownRuns } from '../model/tree.ts'

/**
 * The metadata every run is created with. `invocation` is unique to this
 * execution of the step, so a run found by it is certainly this step's own;
 * the rest says where the run came from, for people and for later attempts.
 */
export interface RunTag {
  readonly invocation: string
  readonly metadata: Readonly<Record<string, string>>
}

export const INVOCATION_KEY = 'gh_invocation'

/**
 * The service takes at most 20 metadata keys, each `[a-zA-Z0-9._-]{1,64}`, with
 * values of at most 256 bytes; the keys below, with the hand-over's four, stay well inside.
 */
export function runTag(
  /** Where the step runs: its forge and project, workflow run (or pipeline), job and step. */
  world: Pick<
    World,
    'forge' | 'projectForge' | 'project' | 'runId' | 'runAttempt' | 'job' | 'action' | 'workflow'
  >,
  newId: () => string = randomUUID,
  /** The commit the run works on: a pull request's head, else GITHUB_SHA. */
  headSha?: string,
  /** What a later reconcile pass needs to finish the run as the step would (model/handoff.ts). */
  handoff: Readonly<Record<string, string>> = {},
): RunTag {
  const invocation = newId()
  const candidates: Record<string, string | undefined> = {
    [INVOCATION_KEY]: invocation,
    [FORGE_KEY]: world.forge ?? world.projectForge ?? 'none',
    gh_repository: world.project,
    gh_run_id: world.runId,
    gh_run_attempt: world.runAttempt,
    gh_job: world.job,
    gh_step: world.action,
    gh_workflow: world.workflow,
    gh_head_sha: headSha,
    ...handoff,
  }
  const metadata: Record<string, string> = {}
  for (const [key, value] of Object.entries(candidates)) {
    // The service takes values of at most 256 bytes; a longer one is cut rather than refused.
    if (value)
      metadata[key] = Buffer.from(value)
        .subarray(0, 256)
        .toString('utf8')
        .replace(/\uFFFD$/, '')
  }
  return { invocation, metadata }
}

/** The metadata key every run of one `tasks` step carries: one list request finds them all. */
export const SET_KEY = STEP_KEYS.set

/**
 * One task's tag: the step's metadata, the set's ID (the step's own
 * invocation), the task's index, and a fresh invocation of its own, so that a
 * lost create answer finds exactly that task's run.
 */
export function taskTag(set: RunTag, index: number, newId: () => string = randomUUID): RunTag {
  const invocation = newId()
  return {
    invocation,
    metadata: {
      ...set.metadata,
      [INVOCATION_KEY]: invocation,
      [SET_KEY]: set.invocation,
      [STEP_KEYS.task]: String(index),
    },
  }
}

export interface CreateDeps {
  client: Pick<AgentRunsClient, 'createRun' | 'listRuns' | 'iterateRuns'>
  now: () => number
  sleep: Sleep
  log: Log
  /**
   * When the step's timeout runs out (on `now`'s clock). The create still gets
   * a fair try, and lookups stop there: a run they did not find is left to the
   * post step, which looks for it by its tag.
   */
  deadline?: number
}

/**
 * The create's outcome is unknown: the service may have made a run that this
 * step could not find. The invocation tag stays saved for the post step, which
 * looks again and cancels what it finds.
 */
export class RunMayExistError extends Error {
  override name = 'RunMayExistError'
}

/**
 * Creates the run exactly once. When the create request's answer is lost or
 * unusable after the service may have acted (a timeout, a reset, a 5xx, a
 * garbled body, a 2xx without a run ID), the request is not repeated: the run
 * it made is looked up by its tag and adopted, or the step fails saying that a
 * run may exist and how to find it.
 */
export async function createRunOnce(
  request: CreateRunRequest,
  tag: RunTag,
  deps: CreateDeps,
): Promise<CreateRunResponse> {
  const sentAt = deps.now()
  let created: CreateRunResponse
  try {
    const deadline =
      deps.deadline === undefined ? undefined : Math.max(deps.deadline, sentAt + MIN_REQUEST_MS)
    created = await deps.client.createRun(
      { ...request, metadata: { ...tag.metadata } },
      { deadline },
    )
  } catch (error) {
    if (!mayHaveActed(error)) throw error
    return await recoverLostCreate(request, tag, sentAt, errorMessage(error), deps, error)
  }
  if (created.at_capacity) {
    deps.log.info(
      `The service is at capacity: run ${created.run_id} waits in its queue and starts when there is room.`,
    )
  }
  return created
}

async function recoverLostCreate(
  request: CreateRunRequest,
  tag: RunTag,
  sentAt: number,
  reason: string,
  deps: CreateDeps,
  cause?: unknown,
): Promise<CreateRunResponse> {
  deps.log.warning(
    `The answer to the create request was lost (${reason}). Looking for the run it may have made, instead of creating a second one.`,
  )
  const search = await searchForCreatedRun(tag.invocation, {
    ...deps,
    pausesMs: CREATE_LOOKUP.delaysMs,
    request,
    sentAt,
  })
  switch (search.kind) {
    case 'found':
      deps.log.info(`Found run ${search.run.run_id}, made by the lost create request; adopting it.`)
      return { run_id: search.run.run_id, state: search.run.state }
    case 'ambiguous':
      throw new RunMayExistError(
        `The create request's answer was lost (${reason}), and ${search.runIds.length} runs (${search.runIds.join(', ')}) match its request, so none can be proven to be this step's; none is adopted or cancelled. ${whereToFind(tag.invocation)}`,
        { cause },
      )
    case 'none':
      throw new RunMayExistError(
        `The create request's answer was lost (${reason}), and the run it may have made was not found (${search.lastProblem}). The action never repeats a create whose outcome is unknown, so as not to start a run twice. ${whereToFind(tag.invocation)}`,
        { cause },
      )
  }
}

export interface SearchDeps {
  client: Pick<AgentRunsClient, 'listRuns' | 'iterateRuns'>
  now: () => number
  sleep: Sleep
  log: Pick<Log, 'info'>
  /** The pause before each lookup: the list can lag behind the service's writes by seconds. */
  pausesMs: Iterable<number>
  /** Lookups stop here (on `now`'s clock); a run not found by then is left to a later look. */
  deadline?: number
  /** The request and when it was sent, to recognise a run the service lists without metadata. */
  request?: CreateRunRequest
  sentAt?: number
}

export type CreatedRunSearch =
  Exclude<InvocationLookup, { kind: 'none' }> | { kind: 'none'; lastProblem: string }

/**
 * The one routine that finds the run a create request may have made without
 * the step learning of it: its answer was lost (the main step), or the main
 * step stopped before it came (the post step). Looks by the request's unique
 * tag, pausing between lookups, until the pauses or the deadline run out.
 */
export async function searchForCreatedRun(
  invocation: string,
  deps: SearchDeps,
): Promise<CreatedRunSearch> {
  let lastProblem = 'no run tagged with it is listed yet'
  for (const pauseMs of deps.pausesMs) {
    if (deps.deadline !== undefined && deps.now() + pauseMs >= deps.deadline) {
      lastProblem = `${lastProblem}; the time to look ran out`
      break
    }
    if (pauseMs > 0) await deps.sleep(pauseMs)
    // The loop is the retry, so each lookup gets one short try: a hung list cannot hold the step.
    const once = {
      timeoutMs: Math.min(
        CREATE_LOOKUP.requestMs,
        Math.max(1_000, (deps.deadline ?? Infinity) - deps.now()),
      ),
      maxRetries: 0,
      deadline: deps.deadline,
    }
    const client: Pick<AgentRunsClient, 'listRuns' | 'iterateRuns'> = {
      listRuns: (query) => deps.client.listRuns(query, once),
      iterateRuns: (query, options) => deps.client.iterateRuns(query, { ...options, ...once }),
    }
    let lookup: InvocationLookup
    try {
      lookup = await lookUpInvocation(client, invocation, {
        request: deps.request,
        // The service's clock bounds the fallback's window, so the two clocks need not agree.
        maxAgeMs:
          deps.sentAt === undefined ? undefined : deps.now() - deps.sentAt + CREATE_LOOKUP.slackMs,
      })
    } catch (error) {
      lastProblem = `the lookup failed: ${errorMessage(error)}`
      deps.log.info(`Could not look for the run yet (${errorMessage(error)}).`)
      continue
    }
    if (lookup.kind !== 'none') return lookup
    lastProblem = 'no run tagged with it is listed yet'
  }
  return { kind: 'none', lastProblem }
}

/** Pauses of `pauseMs` for ever: a search bounded by its deadline alone. */
export function* steadyPauses(pauseMs: number): Generator<number> {
  yield 0
  for (;;) yield pauseMs
}

/** Tells a person how to find a run that may exist, since the step cannot vouch for it. */
export function whereToFind(invocation: string): string {
  return `A run may nonetheless exist: it carries the metadata ${INVOCATION_KEY}=${invocation}. It is looked for again by that metadata and cancelled; if none is reported, search the runs for that metadata before starting another.`
}

/** Pages of the newest runs the fallback reads, where the plan cannot filter by metadata. */
const FALLBACK_PAGES = 2

export type InvocationLookup =
  { kind: 'found'; run: RunItem } | { kind: 'none' } | { kind: 'ambiguous'; runIds: string[] }

export interface LookupOptions {
  /**
   * The request, to recognise a run listed without its metadata by comparing
   * the whole request. Without it, only a run carrying the tag is this step's.
   */
  request?: CreateRunRequest
  /** How old, by the service's own clock, a run matched by its request may be. */
  maxAgeMs?: number
}

/**
 * The run created with this invocation tag. The tag is unique, so the lookup
 * needs no time window, and the clocks of runner and service need not agree.
 * Where the plan cannot filter by metadata, the newest runs are read instead,
 * and a run counts only if it carries the tag, or (listed without metadata)
 * matches the whole request within a window of the service's own clock. Two
 * candidates are an ambiguity, never a guess.
 */
export async function lookUpInvocation(
  client: Pick<AgentRunsClient, 'listRuns' | 'iterateRuns'>,
  invocation: string,
  options: LookupOptions = {},
): Promise<InvocationLookup> {
  let listed: RunItem[]
  let servedAt: number | undefined
  try {
    const answer = await client.listRuns({ metadata: { [INVOCATION_KEY]: invocation }, limit: 10 })
    listed = answer.runs
    servedAt = answer.servedAt
  } catch (error) {
    if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available') throw error
    listed = []
    const pages = client.iterateRuns(
      { sort_by: 'created_at', sort_order: 'desc', limit: 100 },
      { maxPages: FALLBACK_PAGES },
    )
    for await (const run of pages) listed.push(run)
    // iterateRuns hides the pages' dates; a fresh single read supplies the service's "now".
    servedAt = options.request ? await serviceNow(client) : undefined
  }
  // A child an agent started inherits the invocation tag: it is part of the run, never the run.
  const candidates = ownRuns(listed).filter((run) =>
    isProvablyOurs(run, invocation, options, servedAt),
  )
  const unique = [...new Map(candidates.map((run) => [run.run_id, run])).values()]
  if (unique.length === 0) return { kind: 'none' }
  if (unique.length === 1 && unique[0]) return { kind: 'found', run: unique[0] }
  return { kind: 'ambiguous', runIds: unique.map((run) => run.run_id) }
}

async function serviceNow(client: Pick<AgentRunsClient, 'listRuns'>): Promise<number | undefined> {
  return (await client.listRuns({ limit: 1 })).servedAt
}

/** Pure: whether a listed run is certainly the one this step's create request made. */
export function isProvablyOurs(
  run: RunItem,
  invocation: string,
  options: LookupOptions,
  servedAt: number | undefined,
): boolean {
  const metadata = run.metadata
  if (typeof metadata === 'object' && metadata !== null) {
    return metadata[INVOCATION_KEY] === invocation
  }
  const { request, maxAgeMs } = options
  if (!request || servedAt === undefined || maxAgeMs === undefined) return false
  const createdAt = Date.parse(run.created_at ?? '')
  if (Number.isNaN(createdAt) || createdAt < servedAt - maxAgeMs) return false
  return isSameRequest(run, request)
}

/** Pure: the run shows exactly this request: prompt, title and every member of config. */
export function isSameRequest(run: RunItem, request: CreateRunRequest): boolean {
  if ((run.prompt ?? '') !== (request.prompt ?? '')) return false
  if (request.title !== undefined && run.title !== request.title) return false
  const config = request.config ?? {}
  const resolved = (run.agent_config ?? {}) as Record<string, unknown>
  // The service shows the resolved config, which may add defaults; what was asked must all be there.
  return Object.entries(config).every(
    ([key, value]) => value === undefined || isDeepEqual(resolved[key], value),
  )
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  if (keysA.length !== keysB.length) return false
  return keysA.every((key) =>
    isDeepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  )
}

/**
 * On a re-run (attempt > 1), the run the previous attempt of this same step
 * created, found by its tag. Only for the log: a failed lookup changes nothing.
 */
export async function findSupersededRun(
  tag: RunTag,
  deps: { client: Pick<AgentRunsClient, 'listRuns'> },
): Promise<RunItem | undefined> {
  const { gh_run_id: runId, gh_run_attempt: attempt, gh_job: job, gh_step: step } = tag.metadata
  if (!runId || !job || !step || !(Number(attempt) > 1)) return undefined
  const { runs } = await deps.client.listRuns({
    metadata: {
      gh_run_id: runId,
      gh_run_attempt: String(Number(attempt) - 1),
      gh_job: job,
      gh_step: step,
    },
    limit: 10,
  })
  // The previous attempt's run, not a child its agent started (which carries the same tags).
  return ownRuns(runs)[0]
}
