/**
 * The ledger as data, in `report_dir`: `runs.csv` (RFC 4180, one row per run), `runs.json`
 * (the same rows) and `report.md` (the summary). The folder must be inside the workspace.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { LedgerRow } from './rows.ts'

/** The CSV's columns, in order: the contract's. */
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
    ]
    lines.push(values.map(csvField).join(','))
  }
  return `${lines.join('\r\n')}\r\n`
}

/**
 * A field as RFC 4180 has it: quoted when it holds a comma, a quote or a line break (a quote
 * doubled). A field a spreadsheet would run as a formula (`=`, `+`, `-`, `@` first) is quoted
 * with a leading `'`, as OWASP advises for CSV that people open: tags are anyone's text.
 */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** Writes the three files into `dir`, made if missing. */
export function writeLedgerFiles(
  dir: string,
  files: { rows: readonly LedgerRow[]; summary: string },
): string[] {
  mkdirSync(dir, { recursive: true })
  const written = [
    ['runs.csv', rowsCsv(files.rows)],
    ['runs.json', `${JSON.stringify(files.rows, null, 2)}\n`],
    ['report.md', files.summary],
  ] as const
  for (const [name, text] of written) writeFileSync(join(dir, name), text)
  return written.map(([name]) => join(dir, name))
}
