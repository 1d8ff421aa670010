/**
 * The fake's `json:` play answers with a JSON document: the least one the run's `output_schema`
 * asks for (the schema the command adds to the prompt), so a passing `output_schema` can be tried
 * by hand. It reads the keywords a result's schema mostly has (`type`, `required`, `properties`,
 * `items`, `minItems`, `enum`, `const`, `minimum`, `minLength`, `format`, the first of `anyOf` or
 * `oneOf`); a schema past those may not be met, and the command then says why, as it would of an agent.
 */

/** What follows the instruction's schema: its fence (src/agent/structured-output.ts). */
const SCHEMA_OPENS = 'against this JSON Schema (draft 2020-12):\n```json\n'

/** How deep the document goes at most: a schema that nests itself ends here. */
const MAX_DEPTH = 16

/** The schema the prompt carries, parsed; undefined when it carries none (no output_schema). */
export function schemaInPrompt(prompt: string): unknown {
  const start = prompt.lastIndexOf(SCHEMA_OPENS)
  if (start < 0) return undefined
  const from = start + SCHEMA_OPENS.length
  const end = prompt.indexOf('\n```', from)
  try {
    return JSON.parse(prompt.slice(from, end < 0 ? undefined : end)) as unknown
  } catch {
    return undefined
  }
}

/** The least JSON value `schema` asks for (see above). */
export function leastDocument(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return {}
  const s = schema as Record<string, unknown>
  if ('const' in s) return s.const
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0]
  for (const choice of [s.anyOf, s.oneOf]) {
    if (Array.isArray(choice) && choice.length > 0) return leastDocument(choice[0], depth + 1)
  }
  const type = Array.isArray(s.type) ? (s.type[0] as unknown) : s.type
  switch (type ?? (s.properties ? 'object' : s.items ? 'array' : undefined)) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>
      const required = Array.isArray(s.required) ? (s.required as unknown[]) : []
      const document: Record<string, unknown> = {}
      for (const name of required) {
        if (typeof name === 'string') document[name] = leastDocument(properties[name], depth + 1)
      }
      return document
    }
    case 'array': {
      const count = typeof s.minItems === 'number' ? Math.min(s.minItems, 100) : 0
      return Array.from({ length: count }, () => leastDocument(s.items, depth + 1))
    }
    case 'string':
      return stringFor(s)
    case 'integer':
    case 'number':
      return numberFor(s, type === 'integer')
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      return {}
  }
}

function stringFor(s: Record<string, unknown>): string {
  switch (s.format) {
    case 'date-time':
      return '2026-01-01T00:00:00Z'
    case 'date':
      return '2026-01-01'
    case 'uri':
    case 'url':
      return 'https://example.test/'
    case 'email':
      return 'agent@example.test'
  }
  const length = typeof s.minLength === 'number' ? Math.min(s.minLength, 1000) : 0
  return 'x'.repeat(Math.max(length, 1))
}

function numberFor(s: Record<string, unknown>, integer: boolean): number {
  if (typeof s.minimum === 'number') return integer ? Math.ceil(s.minimum) : s.minimum
  if (typeof s.exclusiveMinimum === 'number') {
    return integer ? Math.floor(s.exclusiveMinimum) + 1 : s.exclusiveMinimum + 1
  }
  if (typeof s.maximum === 'number' && s.maximum < 0)
    return integer ? Math.floor(s.maximum) : s.maximum
  return 0
}
