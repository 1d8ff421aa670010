import { outcomeWordOfRun } from '../model/run-outcome.ts'
import { artifactsOutput, parseArtifacts, type ArtifactEntry } from '../agent/artifacts.ts'
import { capResult, RESULT_OUTPUT_LIMIT_BYTES } from '../agent/conversation.ts'
import { treeCostOf } from '../model/tree.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { sumCredits, sumUsd, type SetOutcome, type TaskRun } from '../model/set.ts'
import { formatNumberOutput } from '../text/format.ts'
import { safeForLog } from '../text/log.ts'
import { jsonOutput, setJsonOutput, type JsonOutput } from './json-output.ts'
import {
  notSucceededTasks,
  renderSetSummary,
  setHeadline,
  type DownloadedFolder,
} from './set-table.ts'
import type { StepIo } from '../step-io.ts'

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
  /** output_schema: the task's document, once it validated. */
  structured_output?: unknown
  artifacts?: object[]
}

/** What the step brought back of one task's run, once it ended. */
export interface TaskWork {
  readonly answer: string | undefined
  /** Its run's artifacts, as `artifacts` lists them (parsed once, so `downloadedTo` finds them). */
  readonly artifacts: readonly ArtifactEntry[]
  /** download_artifacts: where each file went, inside `downloadDir` (the task's own folder). */
  readonly downloadedTo?: ReadonlyMap<ArtifactEntry, string>
  readonly downloadDir?: string
}

/** Pure: the `runs` output, one object per task in task order, each member present when known. */
export function runsOutput(
  tasks: readonly TaskRun[],
  work: ReadonlyMap<number, TaskWork>,
): JsonOutput {
  // The answers share what one run's `result` may take, so the output stays within GitHub's limit.
  const answerBytes = Math.floor(RESULT_OUTPUT_LIMIT_BYTES / Math.max(1, tasks.length))
  const entries = tasks.map((task): RunsEntry => {
    const credits = treeCostOf(task.run, task.children).credits
    const done = work.get(task.index)
    const answer = done?.answer
    // The same items as one run's `artifacts` output, a downloaded file's with its path.
    const artifacts = artifactsOutput(
      done?.artifacts ?? parseArtifacts(task.run?.artifacts),
      done?.downloadedTo,
    )
    return {
      task: task.index,
      ...(task.runId ? { run_id: task.runId } : {}),
      ...(task.run?.title || task.request.title
        ? { title: task.run?.title ?? task.request.title }
        : {}),
      ...(task.run?.state ? { state: task.run.state } : {}),
      outcome: outcomeWordOfRun(task),
      ...(task.run?.session_link ? { session_link: task.run.session_link } : {}),
      ...(answer !== undefined ? { result: capResult(answer, answerBytes).text } : {}),
      ...(credits !== undefined ? { credits } : {}),
      ...(task.document !== undefined ? { structured_output: task.document } : {}),
      ...(artifacts.length > 0 ? { artifacts } : {}),
    }
  })
  return jsonOutput('runs', entries, () => ({
    value: entries.map((entry) => ({
      ...entry,
      title: undefined,
      result: undefined,
      structured_output: undefined,
      artifacts: undefined,
      truncated: true,
    })),
    keeps:
      'each task without its title, result, structured_output and artifacts, with "truncated": true',
  }))
}

/** Sets the set's outputs, writes its summary, and fails the step unless the set passed. */
export async function publishSetOutcome(
  io: StepIo,
  outcome: SetOutcome,
  work: ReadonlyMap<number, TaskWork>,
): Promise<void> {
  const { word } = outcome
  io.setOutput('outcome', word)
  setJsonOutput(io, 'runs', runsOutput(outcome.tasks, work))
  const credits = sumCredits(outcome.tasks)
  if (credits !== undefined) io.setOutput('credits', formatNumberOutput(credits))
  const usd = sumUsd(outcome.tasks)
  if (usd !== undefined) io.setOutput('cost_usd', formatNumberOutput(usd))
  try {
    await io.appendSummary(renderSetSummary(outcome, downloadedFolders(outcome.tasks, work)))
  } catch (error) {
    io.warning(`Could not write the job summary: ${safeForLog(String(error))}`)
  }
  const [tally] = setHeadline({ kind: 'ended', outcome }).figures
  const line = `The set ${word.replace('_', ' ')}: ${tally}; ${safeForLog(outcome.reason)}.`
  if (OUTCOME_RECORDS[word].passes) return io.info(line)
  // What GitHub lists first: which tasks did not pass, and why, so nobody opens the summary to find out.
  const names = notSucceededTasks(outcome.tasks)
  io.setFailed(names ? `${line} Not succeeded: ${safeForLog(names, 1_000)}.` : line)
}

/** Where each task's downloaded files went, for the summary: the tasks that have any. */
function downloadedFolders(
  tasks: readonly TaskRun[],
  work: ReadonlyMap<number, TaskWork>,
): DownloadedFolder[] {
  return tasks.flatMap((task) => {
    const done = work.get(task.index)
    const files = done?.downloadedTo?.size ?? 0
    return done?.downloadDir && files > 0 ? [{ task, dir: done.downloadDir, files }] : []
  })
}
