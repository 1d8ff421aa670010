/**
 * What the step acts on: a run to create (its prompt, or `prompt_file`, and the create-only
 * inputs), an existing run (`run_id`, `followup`), or the run of a comment thread (`continue_run`).
 */
import { readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { isRunId, MAX_PROMPT_BYTES } from '../api/answers.ts'
import type { AgentConfig, CreateRunRequest } from '../api/types.ts'
import type { RunTarget } from '../model/step.ts'
import type { InputSource } from '../step-io.ts'
import { cut } from '../text/plain.ts'
import { InputError } from '../input-error.ts'
import { parseMcpServers } from './mcp-servers.ts'
import { isProblem, surfaceConfig } from './surface.ts'

export function readTarget(source: InputSource, continueRun: boolean): RunTarget {
  const runId = source.get('run_id')
  const followup = source.get('followup')
  if (runId && continueRun) {
    throw new InputError(
      'continue_run',
      'cannot be combined with run_id: continue_run finds the run on the comment thread.',
    )
  }
  if (runId) {
    checkNoCreateInputs(source)
    return { kind: 'existing', runId: checkRunId(runId), followup: followup || undefined }
  }
  if (continueRun) {
    const prompt = readPrompt(source)
    if (!prompt && !followup) {
      throw new InputError('continue_run', 'needs followup or prompt: the message to send.')
    }
    const request = readCreateRequest(source, prompt || followup)
    return { kind: 'continue', message: followup || prompt, request }
  }
  if (followup) {
    throw new InputError(
      'followup',
      'needs run_id (or continue_run: true): it is a message to an existing run.',
    )
  }
  return { kind: 'create', request: readCreateRequest(source, readPrompt(source)) }
}

/** `prompt`, or the contents of `prompt_file`; never both. */
function readPrompt(source: InputSource): string {
  const prompt = source.get('prompt')
  const file = source.get('prompt_file')
  if (!file) return checkPromptSize('prompt', prompt)
  if (prompt)
    throw new InputError('prompt_file', 'cannot be combined with prompt; give one of them.')
  const text = readWorkspaceFile(source, 'prompt_file', (bytes) =>
    checkPromptSize('prompt_file', '', bytes),
  )
  return checkPromptSize('prompt_file', text)
}

/**
 * The trimmed text of the file `input` names, relative to the workspace: `checkSize` sees its
 * size before it is read, so that a huge file is refused without being loaded. An InputError
 * naming the input when it cannot be read or is empty.
 */
export function readWorkspaceFile(
  source: InputSource,
  input: string,
  checkSize: (bytes: number) => void,
): string {
  const path = resolve(source.world.workspace, source.get(input))
  let text: string
  try {
    checkSize(statSync(path).size)
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if (error instanceof InputError) throw error
    const reason = (error as { code?: string }).code ?? String(error)
    throw new InputError(input, `cannot be read: ${path} (${reason}).`)
  }
  if (text.trim() === '') throw new InputError(input, `names an empty file: ${path}.`)
  return text.trim()
}

/**
 * Every poll answers with the prompt, so a prompt larger than the action can
 * read back would make the run impossible to follow: refuse it up front.
 */
export function checkPromptSize(
  input: string,
  prompt: string,
  bytes = Buffer.byteLength(prompt),
): string {
  if (bytes > MAX_PROMPT_BYTES) {
    throw new InputError(
      input,
      `is ${bytes} bytes; the longest prompt the action sends is ${MAX_PROMPT_BYTES} bytes (1 MiB).`,
    )
  }
  return prompt
}

/** The inputs that say what one run is: its prompt, or the existing run and the message to it. */
export const SINGLE_RUN_INPUTS = ['prompt', 'prompt_file', 'run_id', 'followup'] as const

/** The inputs only creating a run reads: refused beside run_id, and a task's own keys (task-set.ts). */
export const CREATE_ONLY_INPUTS = [
  'prompt',
  'prompt_file',
  'title',
  'environment_id',
  'skill_spec',
  'model_id',
  'base_prompt',
  'name',
  'mcp_servers',
  'harness',
  'worker_host',
] as const

export function readCreateRequest(source: InputSource, prompt: string): CreateRunRequest {
  const skillSpec = source.get('skill_spec')
  if (!prompt && !skillSpec) {
    throw new InputError(
      'prompt',
      'is required unless skill_spec is given, or run_id names an existing run.',
    )
  }
  if (skillSpec && !/^[\w.-]+\/[\w.-]+:\S+$/.test(skillSpec)) {
    throw new InputError(
      'skill_spec',
      `must look like owner/repo:skill-name or owner/repo:path/to/SKILL.md; got "${skillSpec}".`,
    )
  }
  const surface = surfaceConfig({
    harness: source.get('harness'),
    workerHost: source.get('worker_host'),
  })
  if (isProblem(surface)) throw new InputError(surface.input, surface.message)
  const config: AgentConfig = dropEmpty({
    ...surface,
    name: source.get('name'),
    model_id: source.get('model_id'),
    base_prompt: source.get('base_prompt'),
    environment_id: source.get('environment_id'),
    skill_spec: skillSpec,
    mcp_servers: parseMcpServers(source.get('mcp_servers')),
  })
  return dropEmpty({
    prompt,
    title: source.get('title'),
    config: Object.keys(config).length > 0 ? config : undefined,
  })
}

function checkRunId(runId: string): string {
  const shown: string = runId
  if (!isRunId(runId)) {
    throw new InputError(
      'run_id',
      `must be a run ID: up to 200 letters, digits, ".", "_" or "-", and not "." or ".." (no "/", spaces or control characters); got ${JSON.stringify(cut(shown, 200))}.`,
    )
  }
  return runId
}

/** Rejects create-only inputs beside run_id, so that nobody expects them to be sent. */
function checkNoCreateInputs(source: InputSource): void {
  const given = CREATE_ONLY_INPUTS.filter((name) => source.get(name) !== '')
  if (given.length > 0) {
    throw new InputError(
      given[0] ?? 'prompt',
      `cannot be combined with run_id, which acts on an existing run (also given: ${given.join(', ')}). ` +
        'To send a message to that run, use followup.',
    )
  }
}

function dropEmpty<T extends object>(record: T): T {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== '' && value !== undefined),
  ) as T
}
