/**
 * What the client believes of an answer. A run is read only from a body that
 * is a run: an object, for the run asked about, with a string state. Every
 * other field is made to have the type the rest of the action expects, so
 * that nothing the service sends, of any type, can crash rendering.
 */
import type {
  CreateRunResponse,
  FollowupAccepted,
  RunArtifact,
  RunItem,
  RunStatusMessage,
} from './types.ts'
import { cut } from '../text/plain.ts'

/** The longest prompt the action sends. Every poll echoes it, so the body cap follows from it. */
export const MAX_PROMPT_BYTES = 1024 * 1024

/**
 * The largest answer body the client reads. A run echoes its prompt, which
 * JSON may escape to six bytes a character (`\u0001`), beside its other fields.
 */
export const MAX_ANSWER_BYTES = 6 * MAX_PROMPT_BYTES + 4 * 1024 * 1024

const RUN_ID = /^[\w.-]{1,200}$/

/** Whether `value` looks like a run ID: safe as one URL path segment and in a log line. */
export function isRunId(value: unknown): value is string {
  return typeof value === 'string' && RUN_ID.test(value) && !/^\.+$/.test(value)
}

/** A run read from an answer, or why the answer is not one (a garbled answer, never a state). */
export function readRunItem(
  data: unknown,
  expectedRunId?: string,
): { run: RunItem } | { problem: string } {
  if (!isObject(data)) return { problem: `a body that is not a run (${kindOf(data)})` }
  const runId = data['run_id']
  if (!isRunId(runId)) return { problem: 'a run whose run_id is not a run ID' }
  if (expectedRunId !== undefined && runId !== expectedRunId) {
    return { problem: `the answer for another run (${runId})` }
  }
  const state = data['state']
  if (typeof state !== 'string' || state.trim() === '') {
    return { problem: `a run whose state is not a string (${kindOf(state)})` }
  }
  return { run: normaliseRun({ ...data, run_id: runId, state }) }
}

/**
 * The create's answer, when it names the run by something that looks like an ID; else why
 * not (a garbled answer: the run may exist, so the caller looks it up instead of creating
 * another). A state of the wrong type is not believed either: the polls will tell.
 */
export function readCreatedRun(data: unknown): { run: CreateRunResponse } | { problem: string } {
  const answer = isObject(data) ? data : {}
  const { run_id: runId, task_id: taskId, state, at_capacity: atCapacity } = answer
  if (!isRunId(runId)) return { problem: 'an answer without a usable run_id' }
  return {
    run: {
      run_id: runId,
      ...(typeof taskId === 'string' ? { task_id: taskId } : {}),
      state: typeof state === 'string' && state.trim() !== '' ? state : 'UNKNOWN',
      ...(atCapacity === true ? { at_capacity: true } : {}),
    },
  }
}

const TEXT_FIELDS = [
  'title',
  'prompt',
  'created_at',
  'updated_at',
  'started_at',
  'session_id',
  'session_link',
  'source',
  'run_time',
] as const

/** Known fields with the expected type; unknown fields pass through untouched. */
function normaliseRun(data: Record<string, unknown> & { run_id: string; state: string }): RunItem {
  const run: Record<string, unknown> = { ...data }
  for (const field of TEXT_FIELDS) setOrDrop(run, field, textOf(data[field]))
  setOrDrop(run, 'status_message', statusMessageOf(data['status_message']))
  setOrDrop(
    run,
    'agent_config',
    isObject(data['agent_config']) ? textValues(data['agent_config']) : undefined,
  )
  setOrDrop(run, 'creator', isObject(data['creator']) ? textValues(data['creator']) : undefined)
  setOrDrop(
    run,
    'request_usage',
    isObject(data['request_usage']) ? data['request_usage'] : undefined,
  )
  setOrDrop(
    run,
    'artifacts',
    Array.isArray(data['artifacts']) ? artifactsOf(data['artifacts']) : undefined,
  )
  const cancellable = data['is_run_type_cancellable']
  setOrDrop(
    run,
    'is_run_type_cancellable',
    typeof cancellable === 'boolean' ? cancellable : undefined,
  )
  return run as unknown as RunItem
}

/** A plain string is the message itself; an object keeps its fields of the right type. */
function statusMessageOf(value: unknown): RunStatusMessage | undefined {
  if (typeof value === 'string') return value.trim() ? { message: value } : undefined
  if (!isObject(value)) return undefined
  const message: RunStatusMessage = {}
  const text = textOf(value['message'])
  if (text !== undefined) message.message = text
  const code = textOf(value['error_code'])
  if (code !== undefined) message.error_code = code
  if (typeof value['retryable'] === 'boolean') message.retryable = value['retryable']
  return { ...value, ...message, message: message.message } as RunStatusMessage
}

/** Artifacts as sent, less any that is not an object with a type; readers still check each field. */
function artifactsOf(values: unknown[]): RunArtifact[] {
  return values.filter(
    (artifact): artifact is RunArtifact =>
      isObject(artifact) &&
      typeof artifact['artifact_type'] === 'string' &&
      (artifact['data'] === undefined || isObject(artifact['data'])),
  )
}

/**
 * What a follow-up's 2xx said. Any 2xx means accepted: an older service answers without
 * `followup_id` and `outcome` (or with no body), and a member of another type is left out
 * rather than believed, so nothing the service sends can fail an accepted follow-up.
 */
export function readFollowupAnswer(data: unknown): FollowupAccepted {
  const answer = isObject(data) ? data : {}
  const { followup_id: followupId, outcome } = answer
  return {
    ...(typeof followupId === 'string' || followupId === null ? { followupId } : {}),
    ...(typeof outcome === 'string' && outcome.trim() !== '' ? { outcome } : {}),
  }
}

/** Strings stay; numbers and booleans become strings; objects whose members are not text drop them. */
function textValues(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(record)) {
    out[key] = isObject(value) || Array.isArray(value) ? value : textOf(value)
  }
  return out
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

function setOrDrop(record: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) Reflect.deleteProperty(record, key)
  else record[key] = value
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'an empty body'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'string'
    ? `the string ${JSON.stringify(cut(value, 40))}`
    : `a ${typeof value}`
}
