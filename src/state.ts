import type { StepIo } from './step-io.ts'

/**
 * The one place that knows the action's saved state. The runner's `saveState` appends
 * to GITHUB_STATE at once, and the runner reads that file even after a hard
 * kill, so whatever is saved here reaches the post step as STATE_<name>.
 */
const KEYS = {
  runId: 'run_id',
  invocation: 'invocation',
  commentId: 'comment_id',
  statusSha: 'status_sha',
  checkRunId: 'check_run_id',
  checkRunLookup: 'check_run_lookup',
  checkRunReport: 'check_run_report',
  checkRunDone: 'check_run_done',
  settled: 'run_settled',
  awaitingNewPass: 'awaiting_new_pass',
  setRuns: 'set_runs',
  setComment: 'set_comment',
} as const

export interface SavedRun {
  runId: string | undefined
  /** The tag of a run being created; it finds the run when the main step died before the answer. */
  invocation: string | undefined
  /** The step's comment on its pull request or issue, for the post step to finish. */
  commentId: number | undefined
  /** The commit whose status the main step set pending, for the post step to finish. */
  statusSha: string | undefined
  /** The check run the main step opened (check_run), for the post step to complete. */
  checkRunId: number | undefined
  /** How to find the check run when the answer to its create was lost, for the post step. */
  checkRunLookup: CheckRunLookup | undefined
  /** The conclusion the main step reached, saved before it wrote it: the post step's to write. */
  checkRunReport: SavedCheckReport | undefined
  /** GitHub accepted the main step's completion of its check run: the post step leaves it alone. */
  checkRunDone: boolean
  /** The main step saw the run end, cancelled it, or handed it off on purpose (wait: false). */
  settled: boolean
  /** A follow-up was sent and the run not yet seen restarting: "already finished" may be stale. */
  awaitingNewPass: boolean
  /** With `tasks`: every run the set created or may have created, and whether it is settled. */
  setRuns: SetRunRecord[]
  /** With `tasks` and `comment`: the set's comment and the set's tag, for the post step to finish. */
  setComment: SetCommentRecord | undefined
}

/** A check run's commit and the `external_id` it was created with: what finds it again. */
export interface CheckRunLookup {
  sha: string
  externalId: string
}

/** A check run's conclusion and title, and a short summary: small enough for the state. */
export interface SavedCheckReport {
  conclusion: string
  title: string
  summary: string
}

export interface SetCommentRecord {
  commentId: number
  set: string
}

/**
 * One task's run, as the post step needs it: its create tag (saved before the
 * create goes out), its ID once known, and whether nothing more is owed on it.
 */
export interface SetRunRecord {
  invocation: string
  runId?: string
  settled?: boolean
}

export interface StateStore {
  saveCommentId(commentId: number): void
  saveStatusSha(sha: string): void
  saveInvocation(invocation: string): void
  saveRunId(runId: string): void
  saveAwaitingNewPass(awaiting: boolean): void
  markSettled(): void
}

/** With `tasks`: the set's runs, saved whole at every change, so a hard kill leaves the latest. */
export interface SetStateStore {
  saveSetRuns(records: readonly SetRunRecord[]): void
}

/** With `tasks` and `comment`: the set's comment, for the post step to finish. */
interface SetCommentStateStore {
  saveSetComment(record: SetCommentRecord): void
}

/**
 * With `check_run`: what the post step needs to complete the check run when the main step
 * could not: how to find it, its ID, the conclusion reached, and whether GitHub took it.
 */
export interface CheckRunStateStore {
  /** Before the create goes out; undefined once GitHub refused it, so nothing is looked for. */
  saveCheckRunLookup(lookup: CheckRunLookup | undefined): void
  saveCheckRunId(id: number): void
  /** Before the completing write goes out. */
  saveCheckRunReport(report: SavedCheckReport): void
  /** Only once GitHub accepted the completing write. */
  markCheckRunDone(): void
}

export type SavedState = StateStore & SetStateStore & SetCommentStateStore & CheckRunStateStore

/** The step's saved state, written through its runner's port. */
export function savedState(io: Pick<StepIo, 'saveState'>): SavedState {
  return {
    saveCommentId: (commentId) => io.saveState(KEYS.commentId, String(commentId)),
    saveStatusSha: (sha) => io.saveState(KEYS.statusSha, sha),
    saveCheckRunLookup: (lookup) =>
      io.saveState(KEYS.checkRunLookup, lookup ? JSON.stringify(lookup) : ''),
    saveCheckRunId: (id) => io.saveState(KEYS.checkRunId, String(id)),
    saveCheckRunReport: (report) => io.saveState(KEYS.checkRunReport, JSON.stringify(report)),
    markCheckRunDone: () => io.saveState(KEYS.checkRunDone, 'true'),
    saveInvocation: (invocation) => io.saveState(KEYS.invocation, invocation),
    saveRunId: (runId) => io.saveState(KEYS.runId, runId),
    saveAwaitingNewPass: (awaiting) => io.saveState(KEYS.awaitingNewPass, String(awaiting)),
    markSettled: () => io.saveState(KEYS.settled, 'true'),
    saveSetRuns: (records) => io.saveState(KEYS.setRuns, JSON.stringify(records)),
    saveSetComment: (record) => io.saveState(KEYS.setComment, JSON.stringify(record)),
  }
}

export function readSavedRun(io: Pick<StepIo, 'getState'>): SavedRun {
  return {
    runId: io.getState(KEYS.runId) || undefined,
    invocation: io.getState(KEYS.invocation) || undefined,
    commentId: Number(io.getState(KEYS.commentId)) || undefined,
    statusSha: io.getState(KEYS.statusSha) || undefined,
    checkRunId: Number(io.getState(KEYS.checkRunId)) || undefined,
    checkRunLookup: readCheckRunLookup(io.getState(KEYS.checkRunLookup)),
    checkRunReport: readCheckReport(io.getState(KEYS.checkRunReport)),
    checkRunDone: io.getState(KEYS.checkRunDone) === 'true',
    settled: io.getState(KEYS.settled) === 'true',
    awaitingNewPass: io.getState(KEYS.awaitingNewPass) === 'true',
    setRuns: readSetRuns(io.getState(KEYS.setRuns)),
    setComment: readSetComment(io.getState(KEYS.setComment)),
  }
}

function readCheckRunLookup(saved: string): CheckRunLookup | undefined {
  const { sha, externalId } = parseRecord(saved)
  return typeof sha === 'string' && typeof externalId === 'string' ? { sha, externalId } : undefined
}

function readCheckReport(saved: string): SavedCheckReport | undefined {
  const { conclusion, title, summary } = parseRecord(saved)
  return typeof conclusion === 'string' && typeof title === 'string' && typeof summary === 'string'
    ? { conclusion, title, summary }
    : undefined
}

function parseRecord(saved: string): Record<string, unknown> {
  try {
    const record: unknown = saved ? JSON.parse(saved) : {}
    return typeof record === 'object' && record !== null ? (record as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

function readSetComment(saved: string): SetCommentRecord | undefined {
  try {
    const { commentId, set } = (saved ? JSON.parse(saved) : {}) as Record<string, unknown>
    return Number.isSafeInteger(commentId) && typeof set === 'string'
      ? { commentId: commentId as number, set }
      : undefined
  } catch {
    return undefined
  }
}

function readSetRuns(saved: string): SetRunRecord[] {
  let records: unknown
  try {
    records = saved ? JSON.parse(saved) : []
  } catch {
    return []
  }
  if (!Array.isArray(records)) return []
  return records.flatMap((record: unknown) => {
    if (typeof record !== 'object' || record === null) return []
    const { invocation, runId, settled } = record as Record<string, unknown>
    if (typeof invocation !== 'string') return []
    return [
      {
        invocation,
        ...(typeof runId === 'string' ? { runId } : {}),
        ...(settled === true ? { settled } : {}),
      },
    ]
  })
}
