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
} as const

/** The keys run/create.ts tags every run with, which a pass reads. */
export const STEP_KEYS = {
  repository: 'gh_repository',
  workflowRunId: 'gh_run_id',
  attempt: 'gh_run_attempt',
  headSha: 'gh_head_sha',
} as const

export interface HandoffFacts {
  /** The event's pull request or issue number, when it has one. */
  thread: number | undefined
  key: string
  wait: boolean
  comment: boolean
  commitStatus: boolean
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
    [HANDOFF_KEYS.report]: report,
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
}

const SHA = /^[0-9a-f]{40}$/
const REPOSITORY = /^[\w.-]+\/[\w.-]+$/

/**
 * The hand-over in a run's metadata; undefined when the run carries none (a
 * run started by an older version of the action, or not by the action at all).
 * Every value is checked: metadata is text anyone with the key could have set.
 */
export function readHandoff(metadata: unknown): Handoff | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined
  const values = metadata as Record<string, unknown>
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] : undefined)
  const repository = text(STEP_KEYS.repository)
  const wait = text(HANDOFF_KEYS.wait)
  const key = text(HANDOFF_KEYS.key)
  if (!repository || !REPOSITORY.test(repository) || !key) return undefined
  if (wait !== 'true' && wait !== 'false') return undefined
  const report = (text(HANDOFF_KEYS.report) ?? '').split(',')
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
  }
}
