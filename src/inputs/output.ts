/** The agent's work as data: output_schema (inline or a workspace file), a review, a check run. */
import { readFileSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import type { SchemaSource } from '../agent/structured-output.ts'
import type { InputSource } from '../step-io.ts'
import { InputError } from '../input-error.ts'
import { parseBoolean } from './values.ts'

/** The agent's work as data (v1.2): a validated document, a pull-request review, a check run. */
export interface OutputSettings {
  /** `output_schema`'s text, compiled (and so checked) before any request; undefined for none. */
  readonly schema: SchemaSource | undefined
  /** How many corrections to ask for when the document does not validate. */
  readonly retries: number
  readonly pullRequestReview: boolean
  readonly checkRun: boolean
}

/** At most this many corrections: each is a whole new pass of the agent. */
const MAX_OUTPUT_RETRIES = 10

export function readOutput(source: InputSource, wait: boolean): OutputSettings {
  const pullRequestReview = parseBoolean(
    'pull_request_review',
    source.get('pull_request_review') || 'false',
  )
  const checkRun = parseBoolean('check_run', source.get('check_run') || 'false')
  const retriesText = source.get('output_retries') || '2'
  const retries = /^\d+$/.test(retriesText) ? Number(retriesText) : NaN
  if (!(retries <= MAX_OUTPUT_RETRIES)) {
    throw new InputError(
      'output_retries',
      `must be a whole number from 0 to ${MAX_OUTPUT_RETRIES}; got "${retriesText}".`,
    )
  }
  const schema = readSchemaSource(source)
  if (schema && pullRequestReview) {
    throw new InputError(
      'output_schema',
      'cannot be combined with pull_request_review, which asks for its own review document.',
    )
  }
  // Each acts once the run has ended: without waiting they would silently do nothing.
  for (const [input, asked] of [
    ['output_schema', schema !== undefined],
    ['pull_request_review', pullRequestReview],
    ['check_run', checkRun],
  ] as const) {
    if (asked && !wait) {
      throw new InputError(input, "needs wait: true: it acts on the run's result.")
    }
  }
  return { schema, retries, pullRequestReview, checkRun }
}

/** Inline when it looks like JSON or YAML (a brace, a line break, `key: value`), else a file. */
export function readSchemaSource(
  source: InputSource,
  input = 'output_schema',
): SchemaSource | undefined {
  const value = source.get('output_schema')
  if (!value) return undefined
  if (/^[{[]|\n|:\s/.test(value)) return { input, text: value }
  const workspace = source.world.workspace
  const path = resolve(workspace, value)
  try {
    // The schema's text goes to the service in the prompt: only a file of the workspace may,
    // never one elsewhere on the runner reached by an absolute path, `..` or a link.
    if (!isWithin(realpathSync(workspace), realpathSync(path))) {
      throw new InputError(
        input,
        `must name a file in the workspace (${workspace}); "${value}" is outside it. ` +
          'Copy the schema into the workspace, or give it inline.',
      )
    }
    if (statSync(path).size > MAX_SCHEMA_BYTES) {
      throw new InputError(input, `names a file over 1 MiB: ${path}.`)
    }
    return { input, text: readFileSync(path, 'utf8'), file: path }
  } catch (error) {
    if (error instanceof InputError) throw error
    const reason = (error as { code?: string }).code ?? String(error)
    throw new InputError(
      input,
      `is neither an inline schema nor a file that can be read: ${path} (${reason}).`,
    )
  }
}

const MAX_SCHEMA_BYTES = 1024 * 1024

/** Whether `path` is `dir` or lies below it (both already resolved, links followed). */
function isWithin(dir: string, path: string): boolean {
  const rest = relative(dir, path)
  return rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest)
}
