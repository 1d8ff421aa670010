import type { ArtifactEntry } from '../agent/artifacts.ts'
import { parseArtifacts } from '../agent/artifacts.ts'
import { finalAnswer, type Conversation } from '../agent/conversation.ts'
import { REVIEW_INSTRUCTION, REVIEW_SCHEMA, type ReviewDocument } from '../agent/review-document.ts'
import {
  compileOutputSchema,
  correctionRequest,
  findDocument,
  outputInstruction,
  requestWithInstruction,
  RESULT_FILE,
  type OutputSchema,
} from '../agent/structured-output.ts'
import { readConversation, type AgentWorkSources } from '../agent/work.ts'
import { PAST_TIMEOUT_MS } from '../timing.ts'
import { withinWaits } from './gather.ts'
import type { OutputSettings } from '../inputs/output.ts'
import type { Log } from '../log.ts'
import type { CreateRunRequest, RunItem } from '../api/types.ts'
import type { RunTarget, StepOutcome } from '../model/step.ts'
import { safeForLog } from '../text/log.ts'
import { errorMessage } from '../text/plain.ts'
import type { DocumentCheck } from './lines-and-lookups.ts'

export interface OutputCheckDeps {
  schema: OutputSchema
  /** How many corrections to ask for (`output_retries`). */
  retries: number
  /** The step's deadline (its start plus `timeout`): corrections are waited for within it. */
  deadline: number
  now: () => number
  log: Log
  readConversation: (runId: string) => Promise<Conversation | undefined>
  /** A file artifact's text; throws when it cannot be had. */
  readFile: (artifact: ArtifactEntry) => Promise<string>
}

/**
 * One look at the document of a run that succeeded, after `corrections` corrections: from its
 * final answer, else its `result.json`, validated against the schema. The one check of one
 * run's result and of each task's.
 */
export async function checkDocument(
  run: RunItem,
  corrections: number,
  deps: OutputCheckDeps,
): Promise<DocumentCheck> {
  const runId = run.run_id
  const conversation = await deps.readConversation(runId)
  const answer = conversation && finalAnswer(conversation)
  let candidate = findDocument(answer, undefined)
  if (candidate.kind === 'unreadable') {
    const file = await readResultFile(parseArtifacts(run.artifacts), deps)
    if (file !== undefined) candidate = findDocument(undefined, file)
  }
  const errors =
    candidate.kind === 'found' ? deps.schema.validate(candidate.document) : [candidate.problem]
  if (errors.length === 0 && candidate.kind === 'found') {
    deps.log.info(`The agent's result validates against the schema (from ${candidate.from}).`)
    return { kind: 'valid', document: candidate.document, conversation }
  }
  const shown = errors.map((error) => safeForLog(error, 300)).join('; ')
  const remainingMs = deps.deadline - deps.now()
  if (corrections >= deps.retries || remainingMs <= 0) {
    const why =
      corrections >= deps.retries
        ? `No correction is left (output_retries: ${deps.retries})`
        : 'No time is left within the timeout input'
    deps.log.warning(`The agent's result does not validate: ${shown}. ${why}.`)
    const invalidOutput = { errors, corrections, input: deps.schema.input }
    return { kind: 'invalid', invalidOutput, conversation }
  }
  deps.log.warning(
    `The agent's result does not validate: ${shown}. Asking run ${safeForLog(runId)} for a corrected one (correction ${corrections + 1} of ${deps.retries}).`,
  )
  const message = correctionRequest(errors)
  return { kind: 'correct', message, remainingMs, input: deps.schema.input, conversation }
}

/** The newest `result.json` FILE artifact's text, or undefined when there is none to read. */
async function readResultFile(
  artifacts: readonly ArtifactEntry[],
  deps: Pick<OutputCheckDeps, 'readFile' | 'log'>,
): Promise<string | undefined> {
  const file = artifacts.findLast(
    (artifact) =>
      artifact.type === 'FILE' &&
      artifact.artifactUid !== undefined &&
      (artifact.name === RESULT_FILE ||
        (artifact.filepath ?? '').replace(/\\/g, '/').split('/').pop() === RESULT_FILE),
  )
  if (!file) return undefined
  try {
    return await deps.readFile(file)
  } catch (error) {
    const reason = errorMessage(error)
    deps.log.warning(`Could not read the agent's ${RESULT_FILE}: ${safeForLog(reason)}`)
    return undefined
  }
}

/**
 * pull_request_review: the review, once it has validated, and the outcome with its verdict: the
 * verdict is part of the outcome's words, so every surface leads with the same one.
 */
export function reviewed(
  checked: { readonly outcome: StepOutcome; readonly document?: unknown },
  reviewAsked: boolean,
): { outcome: StepOutcome; review: ReviewDocument | undefined } {
  const review = reviewAsked ? (checked.document as ReviewDocument | undefined) : undefined
  const { outcome } = checked
  if (!review || outcome.kind !== 'finished') return { outcome, review }
  return { outcome: { ...outcome, reviewVerdict: review.verdict }, review }
}

/** What the step asks of the agent's result, once the schema has been compiled. */
export interface OutputRequest {
  readonly schema: OutputSchema
  /** What is added to the prompt (or the follow-up). */
  readonly instruction: string
}

/**
 * Compiles `output_schema`, or the review's built-in schema, before any request: a schema that
 * is not one is an input error, and nothing is created.
 */
export async function prepareOutput(settings: OutputSettings): Promise<OutputRequest | undefined> {
  if (settings.pullRequestReview) {
    const schema = await compileOutputSchema({
      input: 'pull_request_review',
      text: JSON.stringify(REVIEW_SCHEMA),
    })
    return { schema, instruction: `${REVIEW_INSTRUCTION}\n\n${outputInstruction(schema)}` }
  }
  if (!settings.schema) return undefined
  const schema = await compileOutputSchema(settings.schema)
  return { schema, instruction: outputInstruction(schema) }
}

/**
 * The target with the instruction added to what the agent is told: a new run's prompt, or the
 * follow-up. A run only awaited is told nothing; its result is still checked.
 */
export function withInstruction(target: RunTarget, instruction: string): RunTarget {
  const add = (text: string | undefined) => (text ? `${text}\n\n${instruction}` : instruction)
  const titled = (request: CreateRunRequest) => requestWithInstruction(request, instruction)
  switch (target.kind) {
    case 'create':
      return { ...target, request: titled(target.request) }
    case 'continue':
      return { ...target, message: add(target.message), request: titled(target.request) }
    case 'existing':
      return target.followup === undefined ? target : { ...target, followup: add(target.followup) }
  }
}

/** Where a run's document is read from, and within what. */
export interface DocumentSources {
  readonly sources: AgentWorkSources
  /** output_retries. */
  readonly retries: number
  /** The step's deadline (its start plus `timeout`): corrections are waited for within it. */
  readonly deadline: number
  /** The step's signal: every read ends with it, and PAST_TIMEOUT_MS past the deadline. */
  readonly signal: AbortSignal
  readonly now: () => number
  /** Where the check's lines go: the step's log, or a task's (its lines name it). */
  readonly log: Log
}

/**
 * What checks the document of a run that succeeded, after `corrections` corrections (its
 * lifecycle asks the run for a corrected one while this says so): one run's and each task's.
 */
export function documentCheck(
  request: OutputRequest,
  from: DocumentSources,
): (run: RunItem, corrections: number) => Promise<DocumentCheck> {
  const { sources, log } = from
  const bounded = () => withinWaits(from.signal, from.deadline + PAST_TIMEOUT_MS)
  const deps: OutputCheckDeps = {
    schema: request.schema,
    retries: from.retries,
    deadline: from.deadline,
    now: from.now,
    log,
    readConversation: (runId) => readConversation(runId, sources, log, bounded()),
    readFile: async (artifact) =>
      Buffer.from(await sources.fetchFile(artifact, bounded())).toString('utf8'),
  }
  return (run, corrections) => checkDocument(run, corrections, deps)
}
