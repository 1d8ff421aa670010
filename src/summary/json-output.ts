import type { RunItem } from '../api/types.ts'
import { safeForLog } from '../text/log.ts'
import { cut, errorMessage } from '../text/plain.ts'
import type { StepIo } from '../step-io.ts'

/**
 * The most a JSON output (`run`, `structured_output`, `artifacts`, `runs`)
 * holds. GitHub keeps a step output of up to 1 MB; each of ours keeps well
 * inside, as `result` does (256 KiB).
 */
export const JSON_OUTPUT_LIMIT_BYTES = 256 * 1024

/** An output's JSON, or none; and, when it is not the whole value, a note that says why. */
export interface JsonOutput {
  readonly json?: string
  readonly note?: string
}

/** A smaller form of an output's value, and what it keeps, in words for the note. */
export interface Smaller {
  readonly value: unknown
  readonly keeps: string
}

/**
 * `value` as the JSON of output `name`: whole when it can be written and fits;
 * else its `smaller()` form, with a note that says why (no output when there is
 * none). Never throws: an output must not fail a run, and JSON.stringify throws
 * on a value nested a few thousand deep (which JSON.parse reads).
 */
export function jsonOutput(name: string, value: unknown, smaller?: () => Smaller): JsonOutput {
  const whole = serialise(value)
  if (typeof whole === 'string') return { json: whole }
  const why = `the ${name} ${whole.why}`
  const cutForm = smaller?.()
  const json = cutForm && serialise(cutForm.value)
  if (typeof json !== 'string') return { note: `The ${name} output is not set: ${why}.` }
  return {
    json,
    note: `The ${name} output holds ${cutForm?.keeps}: ${why}. The step's outcome is unchanged.`,
  }
}

/** The leading items whose JSON fits in an output, for an array that is too long. */
export function leadingThatFit(items: readonly unknown[]): unknown[] {
  const kept: unknown[] = []
  let bytes = 2
  for (const item of items) {
    const json = serialise(item)
    if (typeof json !== 'string') break
    bytes += Buffer.byteLength(json, 'utf8') + 1
    if (bytes > JSON_OUTPUT_LIMIT_BYTES) break
    kept.push(item)
  }
  return kept
}

/** Sets the output, if there is one, and warns with its note, if any. */
export function setJsonOutput(io: StepIo, name: string, output: JsonOutput): void {
  if (output.note) io.warning(safeForLog(output.note))
  if (output.json !== undefined) io.setOutput(name, output.json)
}

/** The JSON, or why it cannot be an output. */
function serialise(value: unknown): string | { why: string } {
  let json: string
  try {
    json = JSON.stringify(value) ?? 'null'
  } catch (error) {
    return { why: `could not be written as JSON (${cut(errorMessage(error), 200)})` }
  }
  const bytes = Buffer.byteLength(json, 'utf8')
  if (bytes <= JSON_OUTPUT_LIMIT_BYTES) return json
  return { why: `is ${bytes} bytes as JSON, over the ${JSON_OUTPUT_LIMIT_BYTES}-byte limit` }
}

/** A text field kept in a cut `run` output is at most this long. */
const KEPT_TEXT_CHARS = 2_000
/** A field of another kind is kept in a cut `run` output when its JSON is at most this long. */
const KEPT_FIELD_BYTES = 16 * 1024

/**
 * The `run` output when the whole run cannot be one: its top-level fields,
 * text cut and each other field kept only when it is small and can be written
 * (so `state`, `request_usage` and `status_message` stay where a workflow
 * reads them), with `truncated: true`; at worst only what names the run.
 */
export function runOutput(run: RunItem): JsonOutput {
  return jsonOutput('run', run, () => {
    const kept: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(run)) {
      if (typeof value === 'string') kept[key] = cut(value, KEPT_TEXT_CHARS)
      else if (isSmall(value)) kept[key] = value
    }
    kept.truncated = true
    const keeps = 'only its top-level fields that fit, text cut, with "truncated": true'
    // Thousands of top-level fields could still be too many.
    if (isSmall(kept, JSON_OUTPUT_LIMIT_BYTES)) return { value: kept, keeps }
    return {
      value: { run_id: run.run_id, state: run.state, truncated: true },
      keeps: 'only run_id and state, with "truncated": true',
    }
  })
}

function isSmall(value: unknown, limit = KEPT_FIELD_BYTES): boolean {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') <= limit
  } catch {
    return false
  }
}
