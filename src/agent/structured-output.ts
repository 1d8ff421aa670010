/**
 * The agent's result as data (`output_schema`, and the review of `pull_request_review`): the
 * instruction added to the prompt, where the document is read from, its validation, and the
 * follow-up that asks for a corrected one. Pure, but for loading the validator and the YAML
 * parser, which only a step that asks for structured output pays for (see the cold start in
 * BENCHMARKS.md).
 */
import type { ErrorObject, ValidateFunction } from 'ajv'
import type { Ajv2020 as Ajv2020Class } from 'ajv/dist/2020.js'
import type { FormatsPlugin } from 'ajv-formats'
import type { RE2JS as RE2JSClass } from 're2js'
import type { CreateRunRequest } from '../api/types.ts'
import { InputError } from '../input-error.ts'
import { asSentence, clip as clipTo, errorMessage } from '../text/plain.ts'

/** The file artifact the agent may upload instead of writing the document in its message. */
export const RESULT_FILE = 'result.json'

/** The validation errors a follow-up, the log and the failure name: the first few. */
const ERRORS_SHOWN = 10

/** A validation error's text: GitHub shows it, and the agent reads it back. */
const MAX_ERROR_CHARS = 300

/**
 * The deepest document validated. The validator recurses once a level or more, so a document
 * nested past the stack's depth would crash it; no real result comes near this.
 */
export const MAX_DOCUMENT_DEPTH = 256

/**
 * A schema's text, inline (JSON or YAML) or read from the file `output_schema` names, as the
 * inputs read it (inputs/output.ts).
 */
export interface SchemaSource {
  readonly input: string
  readonly text: string
  /** The file it was read from; undefined for an inline schema. */
  readonly file?: string
}

export interface OutputSchema {
  /** The input that gave the schema: errors name it. */
  readonly input: 'output_schema' | 'pull_request_review'
  /** The schema as sent to the agent: compact JSON. */
  readonly text: string
  /** The document's validation errors, at most ERRORS_SHOWN of them; empty when it validates. */
  validate(document: unknown): string[]
}

/**
 * Parses and compiles the schema (JSON Schema draft 2020-12). Throws an InputError naming the
 * input for text that is neither JSON nor YAML, or that is not a valid schema. Loads ajv and
 * yaml only now.
 */
export async function compileOutputSchema(source: SchemaSource): Promise<OutputSchema> {
  const where = source.file ? ` (${source.file})` : ''
  const schema = await parseSchemaText(source, where)
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new InputError(source.input, `must be a JSON Schema: an object${where}.`)
  }
  const Ajv2020 = mainExport<typeof Ajv2020Class>(await import('ajv/dist/2020.js'))
  const addFormats = mainExport<FormatsPlugin>(await import('ajv-formats'))
  const { RE2JS } = await import('re2js')
  // strict: false takes the keywords a schema written for other tools carries (examples,
  // x-…); the schema is still checked against the draft's meta-schema. The schema's patterns
  // run on RE2, whose time is linear in the text: the agent's text meets the user's pattern,
  // and a backtracking engine can take exponential time on an ordinary one.
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    code: { regExp: linearRegExp(RE2JS) },
  })
  addFormats(ajv)
  // Checked against the meta-schema first, so that the error can quote the value at fault.
  if (!ajv.validateSchema(schema)) {
    throw new InputError(
      source.input,
      `is not a valid JSON Schema (draft 2020-12)${where}: ${metaSchemaError(ajv.errors ?? [], schema)}`,
    )
  }
  let check: ValidateFunction
  try {
    check = ajv.compile(schema)
  } catch (error) {
    throw new InputError(source.input, schemaProblem(error, where))
  }
  return {
    input: source.input === 'pull_request_review' ? 'pull_request_review' : 'output_schema',
    text: JSON.stringify(schema),
    validate: (document) => {
      const depth = depthBeyond(document, MAX_DOCUMENT_DEPTH)
      if (depth) {
        return [`/ is nested more than ${MAX_DOCUMENT_DEPTH} levels deep; flatten the document`]
      }
      try {
        return check(document) ? [] : describeErrors(check.errors ?? [])
      } catch (error) {
        // A validator that fails on a document (its stack, say) cannot vouch for it: the
        // document is invalid, and the agent is asked for another, never the step failed.
        return [clip(`/ could not be validated (${errorMessage(error)})`)]
      }
    },
  }
}

/** A pattern the linear engine cannot run: what is wrong with the schema, for the input error. */
class UnsupportedPattern extends Error {
  readonly pattern: string

  constructor(pattern: string, reason: string) {
    super(reason)
    this.pattern = pattern
  }
}

function schemaProblem(error: unknown, where: string): string {
  if (error instanceof UnsupportedPattern) {
    return (
      `has the pattern ${JSON.stringify(clip(error.pattern))}${where}, which the action cannot ` +
      `check in a time linear in the text (${clip(error.message)}). Lookaheads and ` +
      'backreferences are not supported: write the pattern without them.'
    )
  }
  return `is not a valid JSON Schema (draft 2020-12)${where}: ${asSentence(clip(errorMessage(error)))}`
}

/**
 * The first of the meta-schema's errors, as a sentence that quotes the schema's value at fault:
 * `at /type, "objekt" must be equal to one of the allowed values (array, boolean, …).`
 */
function metaSchemaError(errors: readonly ErrorObject[], schema: object): string {
  // Ajv lists an enum's failure before the alternatives (anyOf) it tried; the first is the clearest.
  const [first] = errors
  if (!first) return 'the schema does not validate against the meta-schema.'
  const at = first.instancePath || '/'
  const value = valueAt(schema, first.instancePath)
  const quoted =
    value === undefined ? 'the value' : clipTo(JSON.stringify(value) ?? String(value), 80)
  const allowed = (first.params as { allowedValues?: unknown }).allowedValues
  const choices = Array.isArray(allowed) ? ` (${clipTo(allowed.join(', '), 120)})` : ''
  return asSentence(`at ${at}, ${quoted} ${first.message ?? 'is invalid'}${choices}`)
}

/** The value a JSON Pointer names in `document`; undefined when there is none. */
function valueAt(document: unknown, pointer: string): unknown {
  let value = document
  for (const raw of pointer.split('/').slice(1)) {
    if (typeof value !== 'object' || value === null) return undefined
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/**
 * Ajv's regular-expression engine, on RE2: it takes the schema's ECMAScript pattern (with the
 * `u` flag Ajv asks for) and matches anywhere in the text, as `pattern` means.
 */
function linearRegExp(RE2JS: typeof RE2JSClass) {
  const engine = (pattern: string, flags: string) => {
    let compiled: RE2JSClass
    try {
      compiled = RE2JS.compile(
        RE2JS.translateRegExp(pattern),
        (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | RE2JS.LOOKBEHINDS,
      )
    } catch (error) {
      throw new UnsupportedPattern(pattern, errorMessage(error))
    }
    // Ajv keeps one engine object per toString(): without its own, every pattern of the schema
    // would be checked as the first one.
    return {
      test: (text: string) => compiled.test(text),
      toString: () => `/${pattern}/${flags}`,
    }
  }
  // Ajv names the engine in the code it generates only for standalone output, never used here.
  return Object.assign(engine, { code: 'RE2JS' })
}

/**
 * Whether the document nests deeper than `limit` (arrays and objects), found without recursion
 * so that the check itself cannot overflow the stack; each value is visited once.
 */
export function depthBeyond(document: unknown, limit: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value: document, depth: 0 }]
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue
    if (next.depth >= limit) return true
    for (const child of Object.values(next.value)) {
      pending.push({ value: child, depth: next.depth + 1 })
    }
  }
  return false
}

/**
 * A CommonJS module's main export (a class or a function), imported dynamically: Node gives it
 * as the namespace's default; the bundle too, or, were it ever flagged ES, as its `default`.
 */
function mainExport<T>(namespace: { default: unknown }): T {
  const value = namespace.default as T | { default: T }
  return typeof value === 'function' ? value : (value as { default: T }).default
}

async function parseSchemaText(source: SchemaSource, where: string): Promise<unknown> {
  try {
    return JSON.parse(source.text) as unknown
  } catch {
    // Not JSON: YAML, which is JSON's superset, says what is wrong in terms of YAML.
  }
  const { parse } = await import('yaml')
  try {
    return parse(source.text, { maxAliasCount: 100 }) as unknown
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
    throw new InputError(source.input, `is neither JSON nor YAML${where}: ${clip(reason ?? '')}`)
  }
}

/** `/comments/0/line must be integer`, the first few, one a line. */
function describeErrors(errors: readonly ErrorObject[]): string[] {
  const lines = errors.slice(0, ERRORS_SHOWN).map((error) => {
    const at = error.instancePath || '/'
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
        : error.keyword === 'enum'
          ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
          : ''
    return clip(`${at} ${error.message ?? 'is invalid'}${extra}`)
  })
  if (errors.length > ERRORS_SHOWN) lines.push(`… and ${errors.length - ERRORS_SHOWN} more`)
  return lines
}

/** The one short, fixed instruction added to the prompt. */
export function outputInstruction(schema: OutputSchema): string {
  return [
    'When you are done, end your final message with your result as one JSON document in a',
    `\`\`\`json fenced block (or upload it as a file named ${RESULT_FILE}). It must validate`,
    'against this JSON Schema (draft 2020-12):',
    '```json',
    schema.text,
    '```',
  ].join('\n')
}

/**
 * A create request whose prompt ends with `instruction`. The service names an untitled run
 * after its prompt: it is titled with the user's words, never the action's.
 */
export function requestWithInstruction(
  request: CreateRunRequest,
  instruction: string,
): CreateRunRequest {
  const title = request.title ?? titleOf(request.prompt)
  const prompt = request.prompt ? `${request.prompt}\n\n${instruction}` : instruction
  return { ...request, ...(title ? { title } : {}), prompt }
}

/** The longest title the action gives a run: the first line of the user's prompt, cut. */
const MAX_TITLE_CHARS = 100

/** A run's title from the user's prompt: its first line with words, cut to a title's length. */
function titleOf(prompt: string | undefined): string | undefined {
  const line = prompt
    ?.split('\n', 20)
    .map((text) => text.trim())
    .find((text) => text !== '')
  return line ? clipTo(line, MAX_TITLE_CHARS - 1) : undefined
}

/** The follow-up that sends the errors back and asks for a corrected document. */
export function correctionRequest(errors: readonly string[]): string {
  return [
    'Your result does not validate against the JSON Schema you were given:',
    ...errors.map((error) => `- ${error}`),
    '',
    'Reply with the corrected document as one ```json fenced block at the end of your message.',
  ].join('\n')
}

/** What was found of the document, before validation. */
export type Candidate =
  | { readonly kind: 'found'; readonly document: unknown; readonly from: string }
  | { readonly kind: 'unreadable'; readonly problem: string }

/**
 * The document: the last ```json block of the final message, else the `result.json` file.
 * The message comes first: it is surely of the last pass, where a file may be from an earlier one.
 */
export function findDocument(
  answer: string | undefined,
  resultFile: string | undefined,
): Candidate {
  const block = answer === undefined ? undefined : lastJsonBlock(answer)
  if (block !== undefined) return parseCandidate(block, "the final message's last json block")
  if (resultFile !== undefined) return parseCandidate(resultFile, `the file ${RESULT_FILE}`)
  return {
    kind: 'unreadable',
    problem: `the final message has no \`\`\`json block, and there is no file ${RESULT_FILE}`,
  }
}

function parseCandidate(text: string, from: string): Candidate {
  try {
    return { kind: 'found', document: JSON.parse(text) as unknown, from }
  } catch (error) {
    const reason = errorMessage(error)
    return { kind: 'unreadable', problem: `${from} is not JSON (${clip(reason)})` }
  }
}

/**
 * The text of the last fenced code block whose info string is `json`. One pass over the lines;
 * a fence closes with a run of the same character at least as long, as CommonMark has it.
 */
export function lastJsonBlock(text: string): string | undefined {
  let last: string | undefined
  let open: { marker: string; json: boolean; lines: string[] } | undefined
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (open) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1]
      if (close && close[0] === open.marker[0] && close.length >= open.marker.length) {
        if (open.json) last = open.lines.join('\n')
        open = undefined
      } else {
        open.lines.push(line)
      }
      continue
    }
    const start = /^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)/.exec(line)
    if (start?.[1]) {
      open = { marker: start[1], json: start[2]?.toLowerCase() === 'json', lines: [] }
    }
  }
  // An unclosed block runs to the end of the message, as CommonMark renders it.
  if (open?.json) last = open.lines.join('\n')
  return last
}

function clip(text: string): string {
  return clipTo(text, MAX_ERROR_CHARS - 1)
}
