/**
 * The README's inputs and outputs tables, made from action.yml so that they
 * cannot drift from it. Each table lives between a pair of marker comments in
 * the README (`<!-- inputs:start … -->` … `<!-- inputs:end -->`); everything
 * outside the markers is left as written. The result is run through Prettier
 * with the repository's settings, so `npm run format:check` agrees with it.
 */
import { format, resolveConfig } from 'prettier'
import { parse } from 'yaml'

interface ActionInput {
  description?: string
  required?: boolean
  default?: string
}

interface ActionOutput {
  description?: string
}

interface ActionMetadata {
  inputs?: Record<string, ActionInput | null>
  outputs?: Record<string, ActionOutput | null>
}

/** The tables the README holds, by the name in their markers. */
export const TABLES = ['inputs', 'outputs'] as const
type TableName = (typeof TABLES)[number]

const NOTE = 'generated from action.yml by `npm run docs`; edit action.yml, not this table'

/** The opening marker as the generator writes it. */
export const startMarker = (table: TableName) => `<!-- ${table}:start: ${NOTE} -->`
export const endMarker = (table: TableName) => `<!-- ${table}:end -->`

/**
 * The README with its tables made from `actionYml`, formatted by Prettier.
 * Throws when a table's markers are missing, duplicated or out of order, so a
 * README that lost them fails loudly instead of silently keeping stale tables.
 */
export async function generateReadme(
  readme: string,
  actionYml: string,
  readmePath: string,
): Promise<string> {
  const options = (await resolveConfig(readmePath)) ?? {}
  return format(spliceTables(readme, actionYml), { ...options, filepath: readmePath })
}

/** The README with its tables made from `actionYml`, before Prettier aligns them. */
export function spliceTables(readme: string, actionYml: string): string {
  const action = parse(actionYml) as ActionMetadata
  let text = readme
  for (const table of TABLES) {
    text = replaceBetweenMarkers(text, table, renderTable(table, action))
  }
  return text
}

function renderTable(table: TableName, action: ActionMetadata): string {
  if (table === 'inputs') {
    const rows = Object.entries(action.inputs ?? {}).map(([name, input]) => [
      code(name),
      defaultOf(input ?? {}),
      describe(input?.description),
    ])
    return markdownTable(['input', 'default', 'description'], rows)
  }
  const rows = Object.entries(action.outputs ?? {}).map(([name, output]) => [
    code(name),
    describe(output?.description),
  ])
  return markdownTable(['output', 'description'], rows)
}

function defaultOf(input: ActionInput): string {
  if (input.required) return 'required'
  const value = input.default === undefined ? '' : String(input.default)
  return code(value === '' ? "''" : value)
}

/**
 * A description from action.yml as a table cell. action.yml is plain text (the
 * Marketplace shows it so), so names like `run_id` or `config.model_id` become
 * code here, and what Markdown would take as syntax is escaped.
 */
function describe(description: string | undefined): string {
  const flat = (description ?? '').replace(/\s+/g, ' ').trim()
  return flat
    .replace(/[\\|*<>]/g, (char) => (char === '<' ? '&lt;' : char === '>' ? '&gt;' : `\\${char}`))
    .replace(IDENTIFIER, (word) =>
      word.includes('_') || word.startsWith('config.') ? code(word) : word,
    )
}

/**
 * A word that reads as a name in code: `run_id`, `config.name`, `GITHUB_SHA`; not
 * one inside quotes, which is already shown as typed (a JSON key).
 */
const IDENTIFIER =
  /(?<![\w.`$"])(?:[a-z][a-z0-9]*(?:[._][a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w`"])/g

function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``
}

function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}

function replaceBetweenMarkers(text: string, table: TableName, body: string): string {
  const start = new RegExp(`<!-- ${table}:start\\b[^]*?-->`, 'g')
  const end = new RegExp(`<!-- ${table}:end -->`, 'g')
  const starts = [...text.matchAll(start)]
  const ends = [...text.matchAll(end)]
  const [open] = starts
  const [close] = ends
  if (starts.length !== 1 || ends.length !== 1 || !open || !close || close.index < open.index) {
    throw new Error(
      `README.md needs exactly one "${startMarker(table)}" followed by one "${endMarker(table)}" ` +
        `(found ${starts.length} start and ${ends.length} end markers).`,
    )
  }
  return (
    text.slice(0, open.index) +
    `${startMarker(table)}\n\n${body}\n\n${endMarker(table)}` +
    text.slice(close.index + close[0].length)
  )
}
