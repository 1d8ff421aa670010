import type { AgentRunsClient } from '../api/client.ts'
import { ApiStatusError } from '../api/errors.ts'
import type { CreateRunRequest, RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import { STEP_KEYS } from '../model/handoff.ts'
import { changeName, homeScope, ofHomeForge, type RunHome } from '../model/home.ts'
import type { RunRecord } from '../model/record.ts'
import { safeForLog } from '../text/log.ts'
import { errorMessage } from '../text/plain.ts'
import { ownRuns } from '../model/tree.ts'

/**
 * `continue_from: pull_request`: one more way for a run's life to start. On a pull request made
 * by a run this action started, this step's prompt goes to that run as a follow-up, and the step
 * awaits it as its own, instead of paying a fresh run to rebuild the context it already has.
 */

/** What the step knows of where it runs: the pull or merge request it is about, and its head. */
export interface ContinueSource {
  readonly home: RunHome
  /** The commit the step works on, for the follow-up's words. */
  readonly head?: string
}

/** How the step's run starts: the run that made the pull request, or a create (maybe carrying its conversation). */
export type Continued =
  | { readonly kind: 'run'; readonly run: RunItem }
  | { readonly kind: 'create'; readonly request: CreateRunRequest }

/** What continuing asks of the run's lifecycle: its record, and its one follow-up. */
export interface ContinuationHost {
  readonly record: RunRecord
  /** Sends a follow-up (see FollowUps): the error that refused it, or undefined once sent. */
  send(run: RunItem, message: string, deadline: number): Promise<unknown>
}

export interface ContinuationDeps {
  client: Pick<AgentRunsClient, 'listRuns'>
  log: Log
}

/** At most this many of the project's runs with a pull request are looked through: one page. */
const LOOK_LIMIT = 100

const SAID = 'continue_from: pull_request'

/**
 * The path that names the step's pull or merge request in a PULL_REQUEST artifact's URL, in
 * lower case: `/owner/repo/pull/7` on GitHub, `/group/app/-/merge_requests/7` on GitLab.
 * Undefined when the step is not about one. Pure.
 */
export function changePath(home: RunHome): string | undefined {
  if (home.project === undefined || home.change === undefined) return undefined
  const project = home.project.toLowerCase()
  switch (home.forge) {
    case 'github':
      return `/${project}/pull/${home.change}`
    case 'gitlab':
      return `/${project}/-/merge_requests/${home.change}`
    case undefined:
      return undefined
  }
}

/** Whether an artifact's URL names the pull request at `path` (any host: GHES, self-managed GitLab). Pure. */
export function namesChange(url: unknown, path: string): boolean {
  if (typeof url !== 'string') return false
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  let shown = parsed.pathname.toLowerCase()
  while (shown.endsWith('/')) shown = shown.slice(0, -1)
  return shown === path || shown.endsWith(path)
}

/**
 * The run this action started that made the pull request at `path`: of the listed runs, those
 * of the home's forge and project whose PULL_REQUEST artifact names it, the newest. Pure.
 */
export function runThatMade(
  runs: readonly RunItem[],
  home: RunHome,
  path: string,
): RunItem | undefined {
  const made = ownRuns(runs).filter(
    (run) =>
      ofHomeForge(run, home) &&
      run.metadata?.[STEP_KEYS.repository] === home.project &&
      (run.artifacts ?? []).some(
        (artifact) =>
          artifact.artifact_type === 'PULL_REQUEST' &&
          namesChange((artifact.data as { url?: unknown } | undefined)?.url, path),
      ),
  )
  const time = (run: RunItem) => Date.parse(run.created_at ?? '') || 0
  return made.sort((a, b) => time(b) - time(a))[0]
}

/**
 * Looks up the run this action started that made the home's pull or merge request: one list
 * request (the project's runs with a PULL_REQUEST artifact, newest first). Undefined when the
 * home is on none, or no such run is listed; a failed list throws. `continue_from` follows it
 * up, `pr_credit_budget` counts it, `cancel_only` cancels it.
 */
export async function lookUpRunThatMade(
  client: Pick<AgentRunsClient, 'listRuns'>,
  home: RunHome,
  deadline: number,
): Promise<RunItem | undefined> {
  const path = changePath(home)
  const scope = homeScope(home, { byThread: false })
  if (!path || !scope) return undefined
  const query = {
    artifact_type: 'PULL_REQUEST' as const,
    limit: LOOK_LIMIT,
    sort_by: 'created_at' as const,
  }
  try {
    const { runs } = await client.listRuns({ ...query, metadata: scope }, { deadline })
    return runThatMade(runs, home, path)
  } catch (error) {
    // A plan that cannot filter by metadata: the newest runs with a pull request, checked here.
    if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available') throw error
    const { runs } = await client.listRuns(query, { deadline })
    return runThatMade(runs, home, path)
  }
}

/** The follow-up: this step's prompt, and where it comes from. Pure. */
export function continuationMessage(
  prompt: string,
  change: string,
  head: string | undefined,
): string {
  const at = head ? `, now at ${head}` : ''
  return `${prompt}\n\n---\nThis comes from CI on ${change}, which you made${at}. Keep what you know of this work; change only what this asks.`
}

/**
 * Starts the step's run from the run that made its pull request: found (one list request), it
 * gets this step's prompt as a follow-up; a run whose session is gone (410) continues in a new
 * run with its conversation; no such run, or one that refuses, leaves a create. Each said in one line.
 */
export class PullRequestContinuation {
  readonly #source: ContinueSource
  readonly #host: ContinuationHost
  readonly #deps: ContinuationDeps

  constructor(source: ContinueSource, host: ContinuationHost, deps: ContinuationDeps) {
    this.#source = source
    this.#host = host
    this.#deps = deps
  }

  async start(request: CreateRunRequest, deadline: number): Promise<Continued> {
    const { home, head } = this.#source
    const { log } = this.#deps
    const path = changePath(home)
    const scope = homeScope(home, { byThread: false })
    if (!path || !scope || home.change === undefined) {
      log.info(`${SAID}: this step is not on a pull request; creating a run.`)
      return { kind: 'create', request }
    }
    const change = changeName(home, home.change)
    let made: RunItem | undefined
    try {
      made = await lookUpRunThatMade(this.#deps.client, home, deadline)
    } catch (error) {
      log.info(
        `${SAID}: could not look for the run that made ${change} (${safeForLog(errorMessage(error))}); creating a run.`,
      )
      return { kind: 'create', request }
    }
    if (!made) {
      log.info(`${SAID}: no run this action started made ${change}; creating a run.`)
      return { kind: 'create', request }
    }
    const message = continuationMessage(request.prompt ?? '', change, head)
    return continueRun(
      made,
      { request, message, change, said: SAID },
      this.#host,
      this.#deps,
      deadline,
    )
  }
}

/**
 * A campaign's changed instruction (v1.5): the run that opened the repository's pull request
 * is known from the plan (run/campaign.ts); it gets the instruction as a follow-up, as
 * `continue_from` sends its prompt.
 */
export class KnownRunContinuation {
  readonly #known: KnownRun
  readonly #host: ContinuationHost
  readonly #deps: ContinuationDeps

  constructor(known: KnownRun, host: ContinuationHost, deps: ContinuationDeps) {
    this.#known = known
    this.#host = host
    this.#deps = deps
  }

  start(request: CreateRunRequest, deadline: number): Promise<Continued> {
    const { run, message, change } = this.#known
    return continueRun(
      run,
      { request, message, change, said: 'campaign' },
      this.#host,
      this.#deps,
      deadline,
    )
  }
}

/** A run to continue, known before the step starts, and what to send it. */
export interface KnownRun {
  readonly run: RunItem
  readonly message: string
  /** Its pull request, as the log names it. */
  readonly change: string
}

/**
 * Sends `message` to the run that made `change`, to await it as the step's run; a run whose
 * session is gone (410) continues in a new run with its conversation; one that refuses leaves
 * the create. Each said in one line, after `said`.
 */
async function continueRun(
  made: RunItem,
  what: { request: CreateRunRequest; message: string; change: string; said: string },
  host: ContinuationHost,
  deps: ContinuationDeps,
  deadline: number,
): Promise<Continued> {
  const { request, message, change, said } = what
  const { log } = deps
  const id = safeForLog(made.run_id)
  const refusal = await host.send(made, message, deadline)
  if (refusal === undefined) {
    host.record.runId = made.run_id
    log.info(
      `${said}: run ${id} made ${change} (${safeForLog(made.state, 200)}); sent it this step's prompt as a follow-up, and awaiting it as this step's run.`,
    )
    return { kind: 'run', run: made }
  }
  const conversation = made.conversation_id
  if (refusal instanceof ApiStatusError && refusal.status === 410 && conversation) {
    log.info(
      `${said}: the session of run ${id}, which made ${change}, is gone (410); continuing its conversation ${safeForLog(conversation)} in a new run.`,
    )
    return { kind: 'create', request: { ...request, conversation_id: conversation } }
  }
  log.info(
    `${said}: run ${id} made ${change} but refused the follow-up (${safeForLog(errorMessage(refusal))}); creating a run.`,
  )
  return { kind: 'create', request }
}
