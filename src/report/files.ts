/**
 * The ledger as data, in `report_dir`: `runs.csv` (RFC 4180, one row per run), `runs.json`
 * (the same rows) and `report.md` (the summary). The folder must be inside the workspace.
 */
import { randomUUID } from 'node:crypto'
import { rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { makeDownloadDir } from '../agent/download.ts'
import type { CampaignTracking, RepositoryLine } from './repositories.ts'
import type { LedgerRow } from './rows.ts'

/**
 * The CSV's columns, in order: the first twelve as 1.2 wrote them (a reader by position keeps
 * working), then what 1.3 adds (v1.5, "rows a person can read").
 */
const COLUMNS = [
  'run_id',
  'created',
  'ended',
  'project',
  'thread',
  'workflow',
  'key',
  'outcome',
  'credits',
  'link',
  'root_run_id',
  'parent_run_id',
  'title',
  'forge',
  'pull_request',
  'cost_usd',
] as const

/** The rows as RFC 4180 CSV: CRLF line ends, every field that needs it quoted. Pure, linear. */
export function rowsCsv(rows: readonly LedgerRow[]): string {
  const lines = [COLUMNS.join(',')]
  for (const row of rows) {
    const values = [
      row.runId,
      row.created,
      row.ended,
      row.project,
      row.thread === undefined ? '' : String(row.thread),
      row.workflow,
      row.key,
      row.outcome,
      String(row.credits),
      row.link,
      row.rootRunId,
      row.parentRunId,
      row.title,
      row.forge ?? '',
      row.pullRequest?.url ?? '',
      row.costUsd === undefined ? '' : String(row.costUsd),
    ]
    lines.push(values.map(csvField).join(','))
  }
  return `${lines.join('\r\n')}\r\n`
}

/** A campaign's CSV columns (v1.5: one row per repository), in order. */
const REPOSITORY_COLUMNS = [
  'repository',
  'forge',
  'runs',
  'outcome',
  'run_id',
  'link',
  'credits',
  'cost_usd',
  'pull_request',
  'pr_state',
  'checks',
  'review',
  'pr_created',
  'pr_merged',
  'pr_closed',
] as const

/** A campaign's repositories as RFC 4180 CSV, one row each; a state not read is `unknown`. Pure. */
export function repositoriesCsv(lines: readonly RepositoryLine[]): string {
  const out = [REPOSITORY_COLUMNS.join(',')]
  for (const line of lines) {
    const status = line.status && !('unknown' in line.status) ? line.status : undefined
    const unread = line.status && 'unknown' in line.status ? 'unknown' : ''
    const values = [
      line.repository,
      line.forge ?? '',
      String(line.runs),
      line.outcome,
      line.runId,
      line.link,
      String(line.credits),
      String(line.costUsd),
      line.pullRequest,
      status?.state ?? unread,
      status?.checks ?? '',
      status?.review ?? '',
      status?.createdAt ?? '',
      status?.mergedAt ?? '',
      status?.closedAt ?? '',
    ]
    out.push(values.map(csvField).join(','))
  }
  return `${out.join('\r\n')}\r\n`
}

/**
 * A field as RFC 4180 has it: quoted when it holds a comma, a quote or a line break (a quote
 * doubled). A field a spreadsheet would run as a formula (`=`, `+`, `-`, `@` first) is quoted
 * with a leading `'`, as OWASP advises for CSV that people open: tags are anyone's text.
 */
function csvField(value: string): string {
  // Whatever follows: `-1+1+cmd|' /C calc'!A0` starts with a digit after its minus and still runs.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/**
 * A campaign's data: one row per repository, in the CSV; in the JSON, each repository's line
 * with its runs' rows. Another report's: one row per run in both.
 */
function dataOf(
  rows: readonly LedgerRow[],
  tracking: CampaignTracking | undefined,
): { csv: string; json: unknown } {
  if (!tracking) return { csv: rowsCsv(rows), json: rows }
  const byRepository = new Map<string, LedgerRow[]>()
  const idOf = (forge: string | undefined, project: string) => `${forge ?? ''}\n${project}`
  for (const row of rows) {
    const id = idOf(row.forge, row.project)
    const list = byRepository.get(id)
    if (list) list.push(row)
    else byRepository.set(id, [row])
  }
  const json = tracking.lines.map((line) => ({
    ...line,
    runRows: byRepository.get(idOf(line.forge, line.project)) ?? [],
  }))
  return { csv: repositoriesCsv(tracking.lines), json }
}

/**
 * Writes the three files into `dir`, made if missing, inside `workspace`: each folder on the
 * way is made one at a time and must be a plain folder, never a link, and each file is renamed
 * into place, which replaces a link rather than writing through it.
 */
export async function writeLedgerFiles(
  dir: string,
  workspace: string,
  files: { rows: readonly LedgerRow[]; summary: string; tracking?: CampaignTracking | undefined },
): Promise<string[]> {
  const folder = await makeDownloadDir(dir, [workspace])
  const data = dataOf(files.rows, files.tracking)
  const written = [
    ['runs.csv', data.csv],
    ['runs.json', `${JSON.stringify(data.json, null, 2)}\n`],
    ['report.md', files.summary],
  ] as const
  for (const [name, text] of written) {
    const partial = join(folder, `.${name}.${randomUUID()}.partial`)
    await writeFile(partial, text, { flag: 'wx' })
    await rename(partial, join(folder, name))
  }
  return written.map(([name]) => join(folder, name))
}
