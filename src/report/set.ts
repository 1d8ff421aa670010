import * as core from '@actions/core'
import { capResult, RESULT_OUTPUT_LIMIT_BYTES } from '../agent/conversation.ts'
import { costOf } from '../agent/cost.ts'
import { OUTCOME_RECORDS, type Outcome } from '../model/outcome.ts'
import { sumCredits, sumUsd, taskOutcome, type SetOutcome, type TaskRun } from '../model/set.ts'
import { formatCredits, formatDuration, formatNumberOutput } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { inlineText, safeHttpUrl } from '../text/markdown.ts'
import { clip } from '../text/plain.ts'
import { jsonOutput, setJsonOutput, type JsonOutput } from './json-output.ts'

/** The set's `outcome` output: the contract's words for one run, said of the set. */
export function setOutcomeWord(outcome: SetOutcome): Outcome {
  switch (outcome.kind) {
    case 'passed':
      return 'succeeded'
    case 'failed':
      return 'failed'
    case 'timed-out':
      return 'timed_out'
    case 'over-budget':
      return 'over_budget'
    case 'interrupted':
      return 'interrupted'
  }
}

/** One member of the `runs` output. */
interface RunsEntry {
  task: number
  run_id?: string
  title?: string
  state?: string
  outcome: string
  session_link?: string
  result?: string
  credits?: number
}

/** Pure: the `runs` output, one object per task in task order, each member present when known. */
export function runsOutput(
  tasks: readonly TaskRun[],
  answers: ReadonlyMap<number, string>,
): JsonOutput {
  // The answers share what one run's `result` may take, so the output stays within GitHub's limit.
  const answerBytes = Math.floor(RESULT_OUTPUT_LIMIT_BYTES / Math.max(1, tasks.length))
  const entries = tasks.map((task): RunsEntry => {
    const credits = costOf(task.run?.request_usage).credits
    const answer = answers.get(task.index)
    return {
      task: task.index,
      ...(task.runId ? { run_id: task.runId } : {}),
      ...(task.run?.title || task.request.title
        ? { title: task.run?.title ?? task.request.title }
        : {}),
      ...(task.run?.state ? { state: task.run.state } : {}),
      outcome: taskOutcome(factsOf(task)),
      ...(task.run?.session_link ? { session_link: task.run.session_link } : {}),
      ...(answer !== undefined ? { result: capResult(answer, answerBytes).text } : {}),
      ...(credits !== undefined ? { credits } : {}),
    }
  })
  return jsonOutput('runs', entries, () => ({
    value: entries.map((entry) => ({
      ...entry,
      title: undefined,
      result: undefined,
      truncated: true,
    })),
    keeps: 'each task without its title and result, with "truncated": true',
  }))
}

function factsOf(task: TaskRun) {
  return {
    started: task.invocation !== undefined,
    createFailed: task.createError !== undefined,
    state: task.run?.state,
    stoppedBy: task.stoppedBy,
  }
}

/** A task's icon: its outcome's, or that of a task the set never started. */
function iconOf(word: Outcome | 'not_started'): string {
  return word === 'not_started' ? '⏸️' : OUTCOME_RECORDS[word].icon
}

/** Pure: the job summary of a set, a headline with its outcome and one table row per task. */
export function renderSetSummary(outcome: SetOutcome): string {
  const word = setOutcomeWord(outcome)
  const succeeded = outcome.tasks.filter((task) => taskOutcome(factsOf(task)) === 'succeeded')
  const credits = sumCredits(outcome.tasks)
  const lines = [
    `## ${iconOf(word)} Cloud agent tasks: ${word.replace('_', ' ')}`,
    '',
    `${succeeded.length} of ${outcome.tasks.length} runs succeeded, in ${formatDuration(outcome.elapsedMs)}${credits !== undefined ? `, ${formatCredits(credits)} credits in all` : ''}. ${inlineText(capitalized(outcome.reason))}.`,
    '',
    '| # | Task | Outcome | State | Duration | Credits | Session |',
    '| --: | --- | --- | --- | --: | --: | --- |',
    ...outcome.tasks.map(rowOf),
  ]
  if (outcome.listFallback) {
    lines.push(
      '',
      "The service's plan cannot filter runs by metadata, so each run was read on its own at every poll.",
    )
  }
  return `${lines.join('\n')}\n`
}

function rowOf(task: TaskRun): string {
  const word = taskOutcome(factsOf(task))
  const title = task.run?.title ?? task.request.title ?? task.request.prompt ?? ''
  const duration =
    task.startedAt !== undefined && task.endedAt !== undefined
      ? formatDuration(task.endedAt - task.startedAt)
      : ''
  const credits = costOf(task.run?.request_usage).credits
  const link = safeHttpUrl(task.run?.session_link)
  return [
    '',
    String(task.index),
    inlineText(clip(title, 79)),
    `${iconOf(word)} ${word.replace('_', ' ')}`,
    task.run?.state ? inlineText(task.run.state) : '',
    duration,
    credits !== undefined ? formatCredits(credits) : '',
    link ? `[open](${link})` : '',
    '',
  ]
    .join(' | ')
    .trim()
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** Sets the set's outputs, writes its summary, and fails the step unless the set passed. */
export async function publishSetOutcome(
  outcome: SetOutcome,
  answers: ReadonlyMap<number, string>,
): Promise<void> {
  const word = setOutcomeWord(outcome)
  core.setOutput('outcome', word)
  setJsonOutput('runs', runsOutput(outcome.tasks, answers))
  const credits = sumCredits(outcome.tasks)
  if (credits !== undefined) core.setOutput('credits', formatNumberOutput(credits))
  const usd = sumUsd(outcome.tasks)
  if (usd !== undefined) core.setOutput('cost_usd', formatNumberOutput(usd))
  try {
    await core.summary.addRaw(renderSetSummary(outcome), true).write()
  } catch (error) {
    core.warning(`Could not write the job summary: ${safeForLog(String(error))}`)
  }
  const line = `The set ${word.replace('_', ' ')}: ${safeForLog(outcome.reason)}.`
  if (outcome.kind === 'passed') core.info(line)
  else core.setFailed(line)
}
