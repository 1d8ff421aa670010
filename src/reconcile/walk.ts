import type { RunItem } from '../api/types.ts'
import type { Log } from '../log.ts'
import type { PassRow, RowAction } from '../summary/reconcile.ts'
import { safeForLog } from '../text/log.ts'

/**
 * A pass's walk over the runs it listed, GitHub's and GitLab's alike: each run judged by
 * `judge` while the pass has time (then left to the next pass), its row logged as it comes, a
 * failure as a warning.
 */
export async function walkRuns(
  runs: readonly RunItem[],
  judge: (run: RunItem) => Promise<PassRow>,
  pass: { now: () => number; deadline: number; dryRun: boolean; log: Log },
): Promise<PassRow[]> {
  const rows: PassRow[] = []
  for (const run of runs) {
    const row =
      pass.now() > pass.deadline
        ? rowOf(run, 'left', 'the pass ran out of time; the next pass takes it up')
        : await judge(run)
    const log = row.action === 'failed' ? pass.log.warning : pass.log.info
    log(`Run ${safeForLog(row.runId)}: ${pass.dryRun ? 'dry run, ' : ''}${row.action}: ${row.why}`)
    rows.push(row)
  }
  return rows
}

/** A run's row of the pass's table: what the pass did with it, and why. */
export function rowOf(run: RunItem, action: RowAction, why: string): PassRow {
  return {
    runId: run.run_id,
    ...(run.title ? { title: run.title } : {}),
    state: run.state,
    ...(run.session_link ? { sessionLink: run.session_link } : {}),
    action,
    why,
  }
}
