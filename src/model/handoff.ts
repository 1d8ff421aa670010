import type { PassWhen } from './set.ts'
import { passWhenOf } from './set.ts'

/**
 * What a run carries in its metadata so that a later `reconcile` pass can
 * finish its comment and commit status exactly as its step would have: where
 * they are, and whether the step waited for the run. Metadata is fixed when the
 * run is created, and the service takes at most 20 keys of at most 256 bytes a
 * value; run/create.ts writes the step's other keys (repository, workflow run,
 * attempt, job, head commit), read here too.
 */
export const HANDOFF_KEYS = {
  /** The pull request or issue the step comments on; also what `pr_credit_budget` counts by. */
  thread: 'gh_thread',
  /** The step's key: its comment's, and its commit status's context (`cloud-agent/<key>`). */
  key: 'gh_key',
  /** `true` when the step waits for the run, `false` with `wait: false`. */
  wait: 'gh_wait',
  /** What the step shows on GitHub: `comment`, `status`, both (comma-separated) or ''. */
  report: 'gh_report',
  /** A `tasks` step's runs: how many tasks the set has, so a pass knows when its last run ended. */
  tasks: 'gh_tasks',
  /** A `tasks` step's runs: the set's `pass_when` (`all`, `any` or N), by which a pass judges it. */
  passWhen: 'gh_pass_when',
  /** `true` on a run made by a step with `previous_run: steer`: the ledger counts its follow-ups. */
  steer: 'gh_steer',
} as const

/** The keys run/create.ts tags every run with, which a pass reads. */
export const STEP_KEYS = {
  repository: 'gh_repository',
  workflowRunId: 'gh_run_id',
  /** The workflow's name (a GitHub workflow; `cloud-agent-run` for the command elsewhere). */
  workflow: 'gh_workflow',
  attempt: 'gh_run_attempt',
  headSha: 'gh_head_sha',
  /** The set's ID, on every run of a `tasks` step. */
  set: 'gh_set',
  /** The task's 0-based index, on every run of a `tasks` step. */
  task: 'gh_task',
} as const

export interface HandoffFacts {
  /** The event's pull request or issue number, when it has one. */
  thread: number | undefined
  key: string
  wait: boolean
  comment: boolean
  commitStatus: boolean
  /** A `tasks` step's: the number of tasks and its `pass_when`, as passWhenText writes it. */
  set?: { tasks: number; passWhen: string }
  /** previous_run: steer: later pushes steer the run instead of starting new ones. */
  steer?: boolean
}

/** The metadata that hands the run over, beside the step's tag. */
export function handoffMetadata(facts: HandoffFacts): Record<string, string> {
  const report = [facts.comment ? 'comment' : '', facts.commitStatus ? 'status' : '']
    .filter(Boolean)
    .join(',')
  return {
    ...(facts.thread === undefined ? {} : { [HANDOFF_KEYS.thread]: String(facts.thread) }),
    [HANDOFF_KEYS.key]: facts.key,
    [HANDOFF_KEYS.wait]: String(facts.wait),
    ...(facts.steer ? { [HANDOFF_KEYS.steer]: 'true' } : {}),
    [HANDOFF_KEYS.report]: report,
    ...(facts.set
      ? {
          [HANDOFF_KEYS.tasks]: String(facts.set.tasks),
          [HANDOFF_KEYS.passWhen]: facts.set.passWhen,
        }
      : {}),
  }
}

/** A run's hand-over, as read back from its metadata. */
export interface Handoff {
  /** `owner/repo`. */
  repository: string
  workflowRunId: string | undefined
  attempt: number | undefined
  headSha: string | undefined
  thread: number | undefined
  key: string
  waits: boolean
  comment: boolean
  commitStatus: boolean
  /** The set's ID, when a `tasks` step started the run: its comment and status are the set's. */
  set?: string
  /** A set's run: its task's index, the set's number of tasks and its `pass_when`, when carried. */
  task?: number
  tasks?: number
  passWhen?: PassWhen
}

const SHA = /^[0-9a-f]{40}$/
const REPOSITORY = /^[\w.-]+\/[\w.-]+$/

/**
 * The hand-over in a run's metadata; undefined when the run carries none (a
 * run started by an older version of the action, or not by the action at all).
 * Every value is checked: metadata is text anyone with the key could have set.
 * A run of a `tasks` step without `gh_wait` was awaited (one started before task
 * runs carried a hand-over still has one). An awaited set's comment and status
 * are its step's own; a detached set's (wait: false) are the pass's to finish,
 * once every run of the set has ended.
 */
export function readHandoff(metadata: unknown): Handoff | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined
  const values = metadata as Record<string, unknown>
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] : undefined)
  const repository = text(STEP_KEYS.repository)
  const set = text(STEP_KEYS.set)
  const wait = text(HANDOFF_KEYS.wait) ?? (set ? 'true' : undefined)
  const key = text(HANDOFF_KEYS.key) ?? (set ? '' : undefined)
  if (!repository || !REPOSITORY.test(repository) || key === undefined || (!key && !set)) {
    return undefined
  }
  if (wait !== 'true' && wait !== 'false') return undefined
  // An awaited set's comment and status show the whole set: never a pass's to rewrite.
  const report = set && wait === 'true' ? [] : (text(HANDOFF_KEYS.report) ?? '').split(',')
  const thread = Number(text(HANDOFF_KEYS.thread))
  const attempt = Number(text(STEP_KEYS.attempt))
  const workflowRunId = text(STEP_KEYS.workflowRunId)
  const headSha = text(STEP_KEYS.headSha)
  return {
    repository,
    workflowRunId: workflowRunId && /^\d{1,20}$/.test(workflowRunId) ? workflowRunId : undefined,
    attempt: Number.isSafeInteger(attempt) && attempt > 0 ? attempt : undefined,
    headSha: headSha && SHA.test(headSha) ? headSha : undefined,
    thread: Number.isSafeInteger(thread) && thread > 0 ? thread : undefined,
    key,
    waits: wait === 'true',
    comment: report.includes('comment'),
    commitStatus: report.includes('status'),
    ...(set ? { set, ...setShapeOf(text) } : {}),
  }
}

/** A set's run: its task, and the set's size and rule, each only when valid. */
function setShapeOf(
  text: (key: string) => string | undefined,
): Pick<Handoff, 'task' | 'tasks' | 'passWhen'> {
  const tasks = Number(text(HANDOFF_KEYS.tasks))
  const task = Number(text(STEP_KEYS.task))
  if (!Number.isSafeInteger(tasks) || tasks < 1) return {}
  const passWhen = passWhenOf(text(HANDOFF_KEYS.passWhen), tasks)
  return {
    ...(Number.isSafeInteger(task) && task >= 0 && task < tasks ? { task } : {}),
    tasks,
    ...(passWhen ? { passWhen } : {}),
  }
}
