import type { StepIo } from './step-io.ts'

/**
 * The one place that knows the action's saved state. The runner's `saveState` appends
 * to GITHUB_STATE at once, and the runner reads that file even after a hard
 * kill, so whatever is saved here reaches the post step as STATE_<name>.
 */
const KEYS = {
  /** How many runs the step tracks; each run's record is under `runs_<index>`. */
  runs: 'runs_count',
  ofSet: 'runs_of_set',
  commentId: 'comment_id',
  statusSha: 'status_sha',
  checkRunId: 'check_run_id',
  checkRunLookup: 'check_run_lookup',
  checkRunReport: 'check_run_report',
  checkRunDone: 'check_run_done',
  setComment: 'set_comment',
} as const

export interface SavedRun {
  /** Every run the main step started or may have started, one run's or a set's: one list. */
  runs: SavedRunRecord[]
  /** The runs are a set's (`tasks`): its surfaces say what the post step did. */
  ofSet: boolean
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
 * One run, as the post step needs it: its create tag (saved before the create goes out), its
 * ID once known, whether nothing more is owed on it (it ended, was cancelled, or was handed
 * off on purpose), and whether a follow-up was sent that it was not yet seen taking (a
 * cancel's "already finished" may then be stale).
 */
export interface SavedRunRecord {
  invocation?: string
  runId?: string
  settled?: boolean
  awaitingNewPass?: boolean
}

export interface StateStore {
  saveCommentId(commentId: number): void
  saveStatusSha(sha: string): void
}

/**
 * The step's runs, one run's or a set's, each saved under its own key at every change to it: a
 * hard kill leaves the latest, and a set of 1,000 runs appends a few hundred kilobytes to the
 * runner's state file, not the whole list at every change (which made it 179 MB).
 */
export interface RunsStore {
  /** How many runs are tracked (indices 0 to count - 1); saved before any of their records. */
  saveRunCount(count: number): void
  saveRun(index: number, record: SavedRunRecord): void
  /** Once, before a set's first create: the post step speaks of the set. */
  markSet(): void
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

export type SavedState = StateStore & RunsStore & SetCommentStateStore & CheckRunStateStore

/** Whether the main step's check run is still to be completed by the post step. */
export function checkRunLeft(saved: SavedRun): boolean {
  return !saved.checkRunDone && (saved.checkRunId !== undefined || !!saved.checkRunLookup)
}

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
    saveRunCount: (count) => io.saveState(KEYS.runs, String(count)),
    saveRun: (index, record) => io.saveState(runKey(index), JSON.stringify(record)),
    markSet: () => io.saveState(KEYS.ofSet, 'true'),
    saveSetComment: (record) => io.saveState(KEYS.setComment, JSON.stringify(record)),
  }
}

export function readSavedRun(io: Pick<StepIo, 'getState'>): SavedRun {
  return {
    runs: readRuns(io),
    ofSet: io.getState(KEYS.ofSet) === 'true',
    commentId: Number(io.getState(KEYS.commentId)) || undefined,
    statusSha: io.getState(KEYS.statusSha) || undefined,
    checkRunId: Number(io.getState(KEYS.checkRunId)) || undefined,
    checkRunLookup: readCheckRunLookup(io.getState(KEYS.checkRunLookup)),
    checkRunReport: readCheckReport(io.getState(KEYS.checkRunReport)),
    checkRunDone: io.getState(KEYS.checkRunDone) === 'true',
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

/** The key of the run at `index`. */
function runKey(index: number): string {
  return `runs_${index}`
}

/** At most this many runs are read back: far more than a step may start. */
const MAX_SAVED_RUNS = 100_000

function readRuns(io: Pick<StepIo, 'getState'>): SavedRunRecord[] {
  const count = Math.min(Number(io.getState(KEYS.runs)) || 0, MAX_SAVED_RUNS)
  const records: SavedRunRecord[] = []
  for (let index = 0; index < count; index += 1) {
    const record = readRecord(io.getState(runKey(index)))
    if (record) records.push(record)
  }
  return records
}

function readRecord(saved: string): SavedRunRecord | undefined {
  let record: unknown
  try {
    record = saved ? JSON.parse(saved) : undefined
  } catch {
    return undefined
  }
  if (typeof record !== 'object' || record === null) return undefined
  const { invocation, runId, settled, awaitingNewPass } = record as Record<string, unknown>
  if (typeof invocation !== 'string' && typeof runId !== 'string') return undefined
  return {
    ...(typeof invocation === 'string' ? { invocation } : {}),
    ...(typeof runId === 'string' ? { runId } : {}),
    ...(settled === true ? { settled } : {}),
    ...(awaitingNewPass === true ? { awaitingNewPass } : {}),
  }
}
