/**
 * What the command prints: the step's outputs, as the engine set them through the command's
 * port (src/cli/step-io.ts), as one JSON object; and the summary as plain text.
 * Pure.
 */

/** Outputs whose value is JSON text: the command gives them as JSON values. */
const JSON_OUTPUTS = new Set([
  'run',
  'runs',
  'artifacts',
  'structured_output',
  'cancelled',
  'report',
  'closed',
  'left',
])
/** Outputs that are numbers. */
const NUMBER_OUTPUTS = new Set(['credits', 'cost_usd'])
/** Outputs that are `true` or `false`. */
const BOOLEAN_OUTPUTS = new Set(['steered'])

/** The outputs as the command's JSON: JSON text as values, numbers as numbers. */
export function outputsAsJson(outputs: Readonly<Record<string, string>>): Record<string, unknown> {
  const json: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(outputs)) {
    if (JSON_OUTPUTS.has(name)) {
      try {
        json[name] = JSON.parse(value) as unknown
        continue
      } catch {
        // Kept as the text it is: a value the engine cut to fit is still worth showing.
      }
    }
    if (BOOLEAN_OUTPUTS.has(name) && (value === 'true' || value === 'false')) {
      json[name] = value === 'true'
      continue
    }
    const number = Number(value)
    json[name] =
      NUMBER_OUTPUTS.has(name) && value !== '' && Number.isFinite(number) ? number : value
  }
  return json
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', nbsp: ' ' }

/**
 * The summary's Markdown as plain text for a terminal: no HTML tags, no table rules, a facts
 * row as `Field: value`, entities decoded; a Mermaid chart, which only a Markdown viewer draws,
 * is left out (the tables beside it carry its numbers). Linear.
 */
export function plainSummary(markdown: string): string {
  const lines: string[] = []
  let inChart = false
  for (const raw of markdown.split('\n')) {
    if (inChart || /^\s*```mermaid\s*$/.test(raw)) {
      inChart = !(inChart && /^\s*```\s*$/.test(raw))
      continue
    }
    if (/^\s*\|?\s*:?-{3,}/.test(raw)) continue
    let line = raw
      .replace(/<[^<>]*>/g, '')
      .replace(/&(#\d{1,7}|[a-z]{2,6});/g, (entity, code: string) =>
        code.startsWith('#')
          ? String.fromCodePoint(Number(code.slice(1)))
          : (ENTITIES[code] ?? entity),
      )
      .replace(/\*\*([^*]*)\*\*/g, '$1')
      .replace(/\[([^\]]*)\]\(<?([^()<>\s]*)>?\)/g, '$1 ($2)')
      .replace(/^#{1,6} /, '')
    if (line.startsWith('|')) {
      const cells = line.split('|').map((cell) => cell.trim())
      line = cells.slice(1, -1).filter(Boolean).join(': ')
    }
    lines.push(line.trimEnd())
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`
}
