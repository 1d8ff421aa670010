import type { ArtifactEntry } from '../agent/artifacts.ts'
import { parseArtifacts } from '../agent/artifacts.ts'
import { finalAnswer, type Conversation } from '../agent/conversation.ts'
import { REVIEW_INSTRUCTION, REVIEW_SCHEMA, type ReviewDocument } from '../agent/review-document.ts'
import {
  compileOutputSchema,
  correctionRequest,
  findDocument,
  outputInstruction,
  RESULT_FILE,
  type OutputSchema,
} from '../agent/structured-output.ts'
import { readConversation, type AgentWorkSources } from '../agent/work.ts'
import type { OutputSettings } from '../inputs/output.ts'
import type { Log } from '../log.ts'
import type { RunItem } from '../api/types.ts'
import type { StepOutcome } from '../model/step.ts'
import { safeForLog } from '../text/log.ts'
import { errorMessage } from '../text/plain.ts'
import { withinWaits } from './gather.ts'
import type { DocumentCheck } from './lifecycle-parts.ts'
import { executeStep, type StepDeps, type StepSettings } from './step.ts'

/** What the step brings back once the agent's result has been checked. */
export interface CheckedOutput {
  outcome: StepOutcome
  /** The document that validated; undefined when there is none. */
  document?: unknown
  /** The conversation last read, so that the answer is not read twice. */
  conversation?: Conversation
}

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
  /** Sends the follow-up to the run and waits for it again, for at most `timeoutMs`. */
  followUp: (runId: string, message: string, timeoutMs: number) => Promise<StepOutcome>
}

/**
 * `output_schema`: reads the agent's document from a run that succeeded, validates it, and
 * while it does not validate, sends the errors back as a follow-up asking for a corrected one,
 * up to `retries` times and within the step's timeout. A document that never validates makes
 * the outcome `invalid_output`; any other ending (a failed or timed-out pass) stays as it is.
 */
export async function awaitValidOutput(
  first: StepOutcome,
  deps: OutputCheckDeps,
): Promise<CheckedOutput> {
  let outcome = first
  for (let corrections = 0; ; corrections += 1) {
    if (
      outcome.kind !== 'finished' ||
      outcome.supersededBy !== undefined ||
      outcome.run.state !== 'SUCCEEDED'
    ) {
      return { outcome }
    }
    const checked = await checkDocument(outcome.run, corrections, deps)
    const { conversation } = checked
    switch (checked.kind) {
      case 'valid':
        return { outcome, document: checked.document, conversation }
      case 'invalid':
        return { outcome: { ...outcome, invalidOutput: checked.invalidOutput }, conversation }
      case 'correct':
        outcome = await deps.followUp(outcome.run.run_id, checked.message, checked.remainingMs)
    }
  }
}

/**
 * One look at the document of a run that succeeded, after `corrections` corrections: from its
 * final answer, else its `result.json`, validated against the schema. The one check of one
 * run's result and of each task's.
 */
export async function checkDocument(
  run: RunItem,
  corrections: number,
  deps: Omit<OutputCheckDeps, 'followUp'>,
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
  return { kind: 'correct', message: correctionRequest(errors), remainingMs, conversation }
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
  checked: CheckedOutput,
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

/** Where the check of the agent's result reads and follows up: the step's own sources and path. */
export interface StepOutputCheck {
  readonly settings: StepSettings
  readonly sources: AgentWorkSources
  /** When the step began: corrections are waited for within its timeout. */
  readonly startedAt: number
  /** When every wait on the service must have ended (PAST_TIMEOUT_MS past the timeout). */
  readonly waitsEndBy: number
  readonly deps: StepDeps
  /** Where the check's own lines go (the step's log, beside the wait's). */
  readonly log: Log
}

/** What the check of the agent's result needs: its reads, and the step's own follow-up path. */
export function outputCheckDeps(request: OutputRequest, step: StepOutputCheck): OutputCheckDeps {
  const { settings, sources, deps } = step
  const signal = () => withinWaits(deps.signal, step.waitsEndBy)
  return {
    schema: request.schema,
    retries: settings.output.retries,
    deadline: step.startedAt + settings.timeoutMs,
    now: deps.now,
    log: step.log,
    readConversation: (runId) => readConversation(runId, sources, step.log, signal()),
    readFile: async (artifact) =>
      Buffer.from(await sources.fetchFile(artifact, signal())).toString('utf8'),
    followUp: (runId, message, timeoutMs) =>
      executeStep(
        { ...settings, timeoutMs, target: { kind: 'existing', runId, followup: message } },
        deps,
      ),
  }
}
