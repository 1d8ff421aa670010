import * as core from '@actions/core'

/**
 * The one place that knows the action's saved state. `core.saveState` appends
 * to GITHUB_STATE at once, and the runner reads that file even after a hard
 * kill, so whatever is saved here reaches the post step as STATE_<name>.
 */
const KEYS = {
  runId: 'run_id',
  invocation: 'invocation',
  commentId: 'comment_id',
  statusSha: 'status_sha',
  settled: 'run_settled',
  awaitingNewPass: 'awaiting_new_pass',
} as const

export interface SavedRun {
  runId: string | undefined
  /** The tag of a run being created; it finds the run when the main step died before the answer. */
  invocation: string | undefined
  /** The step's comment on its pull request or issue, for the post step to finish. */
  commentId: number | undefined
  /** The commit whose status the main step set pending, for the post step to finish. */
  statusSha: string | undefined
  /** The main step saw the run end, cancelled it, or handed it off on purpose (wait: false). */
  settled: boolean
  /** A follow-up was sent and the run not yet seen restarting: "already finished" may be stale. */
  awaitingNewPass: boolean
}

export interface StateStore {
  saveCommentId(commentId: number): void
  saveStatusSha(sha: string): void
  saveInvocation(invocation: string): void
  saveRunId(runId: string): void
  saveAwaitingNewPass(awaiting: boolean): void
  markSettled(): void
}

export const runnerState: StateStore = {
  saveCommentId: (commentId) => core.saveState(KEYS.commentId, String(commentId)),
  saveStatusSha: (sha) => core.saveState(KEYS.statusSha, sha),
  saveInvocation: (invocation) => core.saveState(KEYS.invocation, invocation),
  saveRunId: (runId) => core.saveState(KEYS.runId, runId),
  saveAwaitingNewPass: (awaiting) => core.saveState(KEYS.awaitingNewPass, String(awaiting)),
  markSettled: () => core.saveState(KEYS.settled, 'true'),
}

export function readSavedRun(): SavedRun {
  return {
    runId: core.getState(KEYS.runId) || undefined,
    invocation: core.getState(KEYS.invocation) || undefined,
    commentId: Number(core.getState(KEYS.commentId)) || undefined,
    statusSha: core.getState(KEYS.statusSha) || undefined,
    settled: core.getState(KEYS.settled) === 'true',
    awaitingNewPass: core.getState(KEYS.awaitingNewPass) === 'true',
  }
}
