/**
 * One row of the ledger per run: what the service's own record of the run says of where it
 * belongs (the action's tags), how it ended and what it cost. Pure.
 */
import { cancelledEnding } from '../model/limits.ts'
import { costOf, type RunCost } from '../agent/cost.ts'
import type { RunItem } from '../api/types.ts'
import { homeOfTag } from '../model/home.ts'
import { HANDOFF_KEYS, STEP_KEYS } from '../model/handoff.ts'
import { pullRequestUrlOf } from '../model/run-item.ts'
import { meaningOf } from '../model/states.ts'
import { isChildRun, rootIdOf } from '../model/tree.ts'
import { INVOCATION_KEY } from '../run/create.ts'
import type { Forge } from '../world.ts'

export interface LedgerRow {
  readonly runId: string
  /** The run's title, as the service shows it; '' when it has none. */
  readonly title: string
  /** RFC 3339. */
  readonly created: string
  /** RFC 3339, once the run has ended; '' while it goes. */
  readonly ended: string
  readonly forge: Forge | undefined
  readonly project: string
  /** The pull request, issue or merge request; undefined for a run about none. */
  readonly thread: number | undefined
  /** The GitHub workflow, or the pipeline, that started it. */
  readonly workflow: string
  /** The step's key (`name`, or its workflow and job). */
  readonly key: string
  /** How the run stands: succeeded, failed, cancelled, blocked, error, running. */
  readonly outcome: string
  /** What it used, in credits: the figure the budgets add up, so far for a run still going. */
  readonly credits: number
  /** What the service billed for it in US dollars; undefined when it reports no dollars. */
  readonly costUsd: number | undefined
  /** The pull or merge request it opened (its PULL_REQUEST artifact); undefined for none. */
  readonly pullRequest: OpenedChange | undefined
  /** The run's session, when the service gives it. */
  readonly link: string
  /** Made with `previous_run: steer`: later pushes steered it instead of starting runs. */
  readonly steered: boolean
  /** The top of its tree: its own ID, or the run whose agent started it (orchestration). */
  readonly rootRunId: string
  /** The run whose agent started it; '' for a run of its own. */
  readonly parentRunId: string
}

/** A pull or merge request a run opened: its page, and its number where it is of the run's project. */
export interface OpenedChange {
  readonly url: string
  readonly number: number | undefined
}

/** Whether the action (or the command) made the run: it carries the action's tag. */
export function madeByTheAction(run: RunItem): boolean {
  return typeof run.metadata?.[INVOCATION_KEY] === 'string'
}

/** The ledger's row for a run the action made. */
export function rowOf(run: RunItem): LedgerRow {
  const metadata = stringsOf(run.metadata)
  const home = homeOfTag(metadata)
  const cost = costOf(run.request_usage)
  const outcome = outcomeOf(run, cost)
  const ended = outcome === 'working' ? '' : (run.updated_at ?? '')
  const opened = pullRequestUrlOf(run)
  return {
    runId: run.run_id,
    title: typeof run.title === 'string' ? run.title : '',
    created: run.created_at ?? '',
    ended,
    forge: home.forge,
    project: home.project ?? '',
    thread: home.thread,
    workflow: metadata[STEP_KEYS.workflow] ?? '',
    key: metadata[HANDOFF_KEYS.key] ?? run.agent_config?.name ?? '',
    outcome,
    credits: cost.credits ?? 0,
    costUsd: cost.usd,
    pullRequest: opened ? { url: opened, number: numberOf(opened, home.project) } : undefined,
    link: typeof run.session_link === 'string' ? run.session_link : '',
    steered: metadata[HANDOFF_KEYS.steer] === 'true',
    rootRunId: rootIdOf(run),
    parentRunId: isChildRun(run) ? (run.parent_run_id ?? rootIdOf(run)) : '',
  }
}

/**
 * The run's ending as the ledger's word: the service's state, and for a CANCELLED run, its step's
 * limits (`timed_out`, `over_budget`) where its tag carries them.
 */
function outcomeOf(run: RunItem, cost: RunCost): string {
  const { state } = run
  if (state === 'CANCELLED') return cancelledEnding(run, cost)
  if (state === 'ERROR') return 'error'
  const meaning = meaningOf(state)
  if (meaning === 'active') return 'working'
  return meaning === 'unknown' ? state.toLowerCase() : meaning
}

/**
 * The number of the pull or merge request at `url` when it is of `project` (any host: GHES,
 * self-managed GitLab): `/owner/repo/pull/7`, `/group/app/-/merge_requests/7`. Linear.
 */
function numberOf(url: string, project: string | undefined): number | undefined {
  if (!project) return undefined
  const path = new URL(url).pathname.toLowerCase().replace(/\/+$/, '')
  const match = /\/(?:pull|-\/merge_requests)\/(\d{1,9})$/.exec(path)
  if (!match?.[1]) return undefined
  const of = path.slice(0, match.index)
  return of.endsWith(`/${project.toLowerCase()}`) ? Number(match[1]) : undefined
}

function stringsOf(metadata: unknown): Record<string, string> {
  if (typeof metadata !== 'object' || metadata === null) return {}
  const strings: Record<string, string> = {}
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value === 'string') strings[key] = value
  }
  return strings
}
