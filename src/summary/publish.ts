import { artifactsOutput, parseArtifacts } from '../agent/artifacts.ts'
import { capResult } from '../agent/conversation.ts'
import { InputError } from '../input-error.ts'
import { treeCostOf } from '../model/tree.ts'
import { safeForLog } from '../text/log.ts'
import { jsonOutput, leadingThatFit, runOutput, setJsonOutput } from './json-output.ts'
import {
  renderAwaitingSummary,
  renderErrorSummary,
  renderSummary,
  verdictOf,
  type SummaryExtras,
} from './summary.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { describeEnding, type AwaitingApproval } from '../model/ending.ts'
import { formatNumberOutput } from '../text/format.ts'
import { pullRequestUrlOf } from '../model/run-item.ts'
import type { StepOutcome } from '../model/step.ts'
import { escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import { statusMessageOf } from '../model/run-item.ts'
import { errorMessage } from '../text/plain.ts'
import type { StepIo } from '../step-io.ts'

/** Turns the step's outcome into outputs, a job summary, annotations and the exit status. */
export async function publishOutcome(
  io: StepIo,
  outcome: StepOutcome,
  extras: SummaryExtras = {},
): Promise<void> {
  const { run } = outcome
  const link = safeHttpUrl(run?.session_link)
  const verdict = verdictOf(outcome)
  io.setOutput('outcome', verdict.outcome)
  if (run) {
    io.setOutput('state', run.state)
    if (link) io.setOutput('session_link', run.session_link ?? link)
    const message = statusMessageOf(run)
    if (message) io.setOutput('status_message', message)
    const pullRequest = pullRequestUrlOf(run)
    if (pullRequest) io.setOutput('pull_request_url', pullRequest)
    setJsonOutput(io, 'run', runOutput(run))
    // The step's spend: its run's and the runs its agent started, each once.
    const cost = treeCostOf(run, outcome.children)
    if (cost.credits !== undefined) io.setOutput('credits', formatNumberOutput(cost.credits))
    if (cost.usd !== undefined) io.setOutput('cost_usd', formatNumberOutput(cost.usd))
    const artifacts = extras.artifacts ?? parseArtifacts(run.artifacts)
    const items = artifactsOutput(artifacts, extras.downloadedTo)
    setJsonOutput(
      io,
      'artifacts',
      jsonOutput('artifacts', items, () => {
        const first = leadingThatFit(items)
        return { value: first, keeps: `the first ${first.length} of ${items.length} artifacts` }
      }),
    )
  }
  if (extras.answer !== undefined) {
    const result = capResult(extras.answer)
    if (result.truncated) {
      io.warning(
        `The agent's final message is ${result.bytes} bytes; the result output keeps the first 256 KiB.`,
      )
    }
    io.setOutput('result', result.text)
  }
  if (extras.structuredOutput !== undefined) {
    setJsonOutput(io, 'structured_output', jsonOutput('structured_output', extras.structuredOutput))
  }
  if (extras.verdict) io.setOutput('verdict', extras.verdict)
  await writeSummary(io, renderSummary(outcome, extras))

  if (verdict.failure) {
    io.setFailed(safeForLog(verdict.failure))
  } else if (link || verdict.outcome === 'superseded') {
    const session = link ? ` Session transcript: ${link}` : ''
    io.notice(`${safeForLog(verdict.headline)}.${session}`, { title: 'Cloud agent run' })
  } else {
    io.info(`${safeForLog(verdict.headline)}.`)
  }
}

/** A budget reached before the create: no run, `outcome` over_budget, and the step fails. */
export async function publishOverBudget(io: StepIo, message: string): Promise<void> {
  const outcome = 'over_budget'
  io.setOutput('outcome', outcome)
  const { icon } = OUTCOME_RECORDS[outcome]
  await writeSummary(
    io,
    `### ${icon} Over budget: no run was created\n\n${escapeMarkdown(message)}\n`,
  )
  io.setFailed(safeForLog(message))
}

/**
 * No run was created: the step waits for an approval of the head (approval), or one given does
 * not count. The step passes, with a notice saying what it waits for.
 */
export async function publishAwaiting(io: StepIo, ending: AwaitingApproval): Promise<void> {
  const words = describeEnding(ending)
  io.setOutput('outcome', words.outcome)
  await writeSummary(io, renderAwaitingSummary(ending))
  io.notice(safeForLog(`${words.headline}. ${words.why}`), { title: 'Cloud agent run' })
}

/** A summary that cannot be written (no GITHUB_STEP_SUMMARY, e.g. locally) must not fail the step. */
export async function writeSummary(io: StepIo, markdown: string): Promise<void> {
  try {
    await io.appendSummary(markdown)
  } catch (error) {
    io.debug(`No job summary written: ${errorMessage(error)}`)
  }
}

/** What a step's body came to: its value, or the error it failed on (published already). */
export type StepEnd<T> = { readonly value: T } | { readonly error: unknown }

/**
 * Every step's one wrapper (each action's, and the command's subcommands that run one): it runs
 * the step's body and owns the failure path, so that no step writes its own try/catch. What
 * the body throws is published (publishError: a readable message, the stack only in debug
 * output) and handed back, never thrown on to the door. `summary`: the run the job summary
 * names when the step failed before its run had an outcome (the main step's).
 */
export async function runStepBody<T>(
  io: StepIo,
  body: () => Promise<T>,
  summary?: () => { runId: string | undefined },
): Promise<StepEnd<T>> {
  try {
    return { value: await body() }
  } catch (error) {
    await publishError(io, error, summary?.())
    return { error }
  }
}

/**
 * The one top-level failure path: a readable message (in the job summary too,
 * when `summary` asks for it), and the stack only in debug output.
 */
async function publishError(
  io: StepIo,
  error: unknown,
  summary?: { runId: string | undefined },
): Promise<void> {
  // An input's error names the input as the door's person gave it (`timeout`, `--timeout`).
  const message =
    error instanceof InputError
      ? `${io.words.input(error.input)} ${error.detail}`
      : errorMessage(error)
  if (summary) {
    // The step failed before its run had an outcome of its own (bad input, lost contact, …).
    io.setOutput('outcome', 'error')
    await writeSummary(io, renderErrorSummary(message, summary.runId, io.words.step))
  }
  io.setFailed(safeForLog(message))
  if (error instanceof Error && error.stack) io.debug(error.stack)
}
