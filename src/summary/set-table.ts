import { childRunsBlock, treeCostOf } from '../model/tree.ts'
import { OUTCOME_RECORDS, type CheckConclusion, type CommitState } from '../model/outcome.ts'
import { describeInvalidOutput } from '../model/ending.ts'
import {
  isDetached,
  standingOf,
  sumCredits,
  taskLabel,
  type SetOutcome,
  type TaskRun,
} from '../model/set.ts'
import { outcomeWordOfRun } from '../model/run-outcome.ts'
import { statusMessageOf } from '../model/run-item.ts'
import { meaningOf } from '../model/states.ts'
import { formatCredits, formatDuration } from '../text/format.ts'
import { escapeMarkdown, inlineText, safeHttpUrl } from '../text/markdown.ts'
import { clip } from '../text/plain.ts'

/**
 * A set as its surfaces show it: still running (the comment and the commit
 * status, once per poll), or ended (the summary too). One table for all.
 * While it runs, nothing shown moves with the clock, so a poll that saw no
 * change writes nothing to GitHub.
 */
export type SetView =
  { kind: 'running'; tasks: readonly TaskRun[] } | { kind: 'ended'; outcome: SetOutcome }

/**
 * A task has ended once its run did, its create failed, or the step stopped it (each sets
 * `endedAt`); a run handed over (wait: false) goes on.
 */
function hasEnded(task: TaskRun): boolean {
  return task.endedAt !== undefined && !isDetached(task)
}

/** A task's icon and words: its outcome's, or where it stands while the set runs. */
function taskWords(task: TaskRun, running: boolean): string {
  if (running && !hasEnded(task)) {
    const state = task.run?.state
    if (task.invocation === undefined) return '⏸️ waiting to start'
    if (state === undefined) return '⏳ starting'
    if (state === 'QUEUED' || state === 'PENDING') return '⏳ queued'
    const { blocked } = OUTCOME_RECORDS
    return meaningOf(state) === 'blocked' ? `${blocked.icon} ${blocked.short}` : '⏳ in progress'
  }
  const word = outcomeWordOfRun(task)
  return word === 'not_started'
    ? '⏸️ not started'
    : `${OUTCOME_RECORDS[word].icon} ${OUTCOME_RECORDS[word].short}`
}

const TABLE_HEAD = [
  '| # | Task | Outcome | State | Duration | Credits | Session |',
  '| --: | --- | --- | --- | --: | --: | --- |',
]

function rowOf(task: TaskRun, view: SetView): string {
  const running = view.kind === 'running'
  const title = task.run?.title ?? task.request.title ?? task.request.prompt ?? ''
  const duration =
    task.startedAt !== undefined && task.endedAt !== undefined && hasEnded(task)
      ? formatDuration(task.endedAt - task.startedAt)
      : ''
  // A run at work spends as it goes: its credits show once it ended, so a poll that saw
  // no other change writes nothing.
  const credits =
    running && !hasEnded(task) ? undefined : treeCostOf(task.run, task.children).credits
  const link = safeHttpUrl(task.run?.session_link)
  return [
    '',
    String(task.index + 1),
    inlineText(clip(title, 79)),
    taskWords(task, running),
    task.run?.state ? inlineText(task.run.state) : '',
    duration,
    credits !== undefined ? formatCredits(credits) : '',
    link ? `[open](${link})` : '',
    '',
  ]
    .join(' | ')
    .trim()
}

/**
 * The set's table, a row per task; rows past `maxChars` give way to one line
 * that says how many more the job summary lists.
 */
export function renderSetTable(
  view: SetView,
  maxChars = Number.POSITIVE_INFINITY,
  /** Where the rows left out are: the job summary's, for a comment or a check run. */
  rest = 'the job summary lists every one',
): string {
  const tasks = tasksOf(view)
  const lines = [...TABLE_HEAD]
  let length = lines.join('\n').length
  for (const [shown, task] of tasks.entries()) {
    const row = rowOf(task, view)
    if (length + row.length + 1 + MORE_ROWS_ROOM > maxChars) {
      const more = tasks.length - shown
      return `${lines.join('\n')}\n\n_…and ${more} more ${more === 1 ? 'task' : 'tasks'}: ${rest}._`
    }
    lines.push(row)
    length += row.length + 1
  }
  return lines.join('\n')
}

/** Room kept for the line that replaces the rows that do not fit. */
const MORE_ROWS_ROOM = 80

/**
 * Why each task that ended without success did: the service's reason, or the
 * create's error, one line each, under the table. Empty when there is none.
 */
export function renderSetReasons(view: SetView, maxChars = Number.POSITIVE_INFINITY): string {
  const lines: string[] = []
  let length = 0
  for (const task of tasksOf(view)) {
    if (!hasEnded(task) || outcomeWordOfRun(task) === 'succeeded') continue
    const reason = reasonOf(task)
    if (!reason) continue
    const title = task.run?.title ?? task.request.title ?? task.request.prompt ?? ''
    const line = `- **${task.index + 1}** ${inlineText(clip(title, 79))}: ${inlineText(clip(reason, 300))}`
    if (length + line.length + 1 > maxChars) break
    lines.push(line)
    length += line.length + 1
  }
  return lines.join('\n')
}

/**
 * The tasks that ended without success, for the step's error line: the first `shown` by
 * number and title, each with its outcome and reason, then how many more. Plain text: the
 * caller makes it safe for the log.
 */
export function notSucceededTasks(tasks: readonly TaskRun[], shown = 3): string {
  const failed = tasks.flatMap((task) => {
    const word = outcomeWordOfRun(task)
    return hasEnded(task) && word !== 'succeeded' && word !== 'not_started' ? [{ task, word }] : []
  })
  const named = failed.slice(0, shown).map(({ task, word }) => {
    const reason =
      reasonOf(task) ??
      (task.stoppedBy === 'pass-when' ? 'the set could no longer pass' : undefined)
    const because = reason ? ` (${clip(reason, 200).replace(/\.$/, '')})` : ''
    return `${taskLabel(task)} ${OUTCOME_RECORDS[word].short}${because}`
  })
  const more = failed.length - named.length
  return [...named, ...(more > 0 ? [`and ${more} more`] : [])].join('; ')
}

/** Why a task's run did not succeed, in the service's words or the create's error. */
function reasonOf(task: TaskRun): string | undefined {
  // The fields that failed, as one run's error names them.
  if (task.invalidOutput) return `the agent's result ${describeInvalidOutput(task.invalidOutput)}`
  return task.createError ?? (task.run ? statusMessageOf(task.run) : undefined)
}

function tasksOf(view: SetView): readonly TaskRun[] {
  return view.kind === 'running' ? view.tasks : view.outcome.tasks
}

/** Where a running set stands, in numbers. */
export function setCounts(tasks: readonly TaskRun[]) {
  let succeeded = 0
  let done = 0
  let inFlight = 0
  for (const task of tasks) {
    if (hasEnded(task)) {
      done += 1
      if (standingOf(task) === 'succeeded') succeeded += 1
    } else if (task.invocation !== undefined) inFlight += 1
  }
  return { total: tasks.length, done, succeeded, inFlight }
}

/** How many of a set's runs were handed over (wait: false). */
function setStarted(tasks: readonly TaskRun[]): number {
  return tasks.filter(isDetached).length
}

/** The headline's icon and words, and one line of figures. */
export interface SetHeadline {
  icon: string
  /** "3 of 20 done" while running; the outcome's words once ended. */
  title: string
  /** Figures: the tally, the time, the credits. */
  figures: string[]
  /** Why the set ended so; absent while it runs. */
  reason?: string
}

export function setHeadline(view: SetView): SetHeadline {
  const tasks = tasksOf(view)
  const counts = setCounts(tasks)
  if (view.kind === 'running') {
    const failed = counts.done - counts.succeeded
    const credits = sumCredits(tasks.filter(hasEnded))
    return {
      icon: '⏳',
      title: `${counts.done} of ${counts.total} done`,
      figures: [
        `${counts.succeeded} succeeded${failed > 0 ? `, ${failed} did not` : ''}`,
        `${counts.inFlight} in flight`,
        ...(credits !== undefined ? [`${formatCredits(credits)} by the runs done`] : []),
      ],
    }
  }
  const credits = sumCredits(tasks)
  const { word } = view.outcome
  if (word === 'started') {
    const started = setStarted(tasks)
    const failed = counts.done
    return {
      icon: OUTCOME_RECORDS.started.icon,
      title: 'started',
      figures: [
        `${started} of ${counts.total} runs started and handed over${failed > 0 ? `, ${failed} could not be created` : ''}`,
      ],
      reason: `${capitalized(view.outcome.reason)}.`,
    }
  }
  return {
    icon: OUTCOME_RECORDS[word].icon,
    title: word.replace('_', ' '),
    figures: [
      `${counts.succeeded} of ${counts.total} runs succeeded`,
      `⏱ ${formatDuration(view.outcome.elapsedMs)}`,
      ...(credits !== undefined ? [`${formatCredits(credits)} in all`] : []),
    ],
    reason: `${capitalized(view.outcome.reason)}.`,
  }
}

/** download_artifacts: the folder a task's files went into, and how many. */
export interface DownloadedFolder {
  readonly task: TaskRun
  readonly dir: string
  readonly files: number
}

/**
 * Pure: the job summary of a set, a headline with its outcome and one table row per task;
 * under it, where each task's downloaded files are.
 */
export function renderSetSummary(
  outcome: SetOutcome,
  downloaded: readonly DownloadedFolder[] = [],
): string {
  const view: SetView = { kind: 'ended', outcome }
  const headline = setHeadline(view)
  const table = renderSetTable(view, SUMMARY_TABLE_CHARS, 'the runs output lists every one')
  const count = outcome.tasks.length
  const lines = [
    `## ${headline.icon} Cloud agent tasks: ${headline.title}`,
    '',
    `${headline.figures.join(' · ')}. ${inlineText(headline.reason ?? '')}`,
    '',
    // A campaign's hundreds of rows fold away: the headline says how it went, the runs output has each.
    ...(count > OPEN_ROWS
      ? [
          '<details>',
          `<summary>The ${count} tasks, one row each (the runs output has them as data)</summary>`,
          '',
          table,
          '',
          '</details>',
        ]
      : [table]),
  ]
  const reasons = renderSetReasons(view, SUMMARY_REASONS_CHARS)
  if (reasons) lines.push('', reasons)
  const started = renderStartedRuns(outcome.tasks)
  if (started) lines.push('', started)
  if (downloaded.length > 0) lines.push('', renderDownloadedFolders(downloaded))
  if (outcome.listFallback) lines.push('', LIST_FALLBACK_NOTE)
  return `${lines.join('\n')}\n`
}

/** Past this many tasks, the summary's table is folded away. */
const OPEN_ROWS = 50
/**
 * The summary's table and reasons stay within these (a row is a few hundred characters): the
 * job summary stays far under GitHub's 1 MiB with 1,000 tasks, whatever their titles and reasons.
 */
const SUMMARY_TABLE_CHARS = 600_000
const SUMMARY_REASONS_CHARS = 150_000

/** Under each task whose agent started runs of its own, those runs, collapsed. */
function renderStartedRuns(tasks: readonly TaskRun[]): string | undefined {
  const blocks = tasks.flatMap((task) => {
    const block = childRunsBlock(task.children)
    return block ? [`**Task ${task.index + 1}**\n\n${block}`] : []
  })
  return blocks.length > 0 ? blocks.join('\n\n') : undefined
}

/** At most this many tasks' folders are listed; the `runs` output has every file's path. */
const FOLDERS_SHOWN = 100

function renderDownloadedFolders(downloaded: readonly DownloadedFolder[]): string {
  const lines = ['**Downloaded files**', '']
  for (const { task, dir, files } of downloaded.slice(0, FOLDERS_SHOWN)) {
    const title = task.run?.title ?? task.request.title ?? task.request.prompt ?? ''
    const count = `${files} ${files === 1 ? 'file' : 'files'}`
    lines.push(
      `- **${task.index + 1}** ${inlineText(clip(title, 79))}: ${count} in <code>${escapeMarkdown(dir)}</code>`,
    )
  }
  const more = downloaded.length - FOLDERS_SHOWN
  if (more > 0) lines.push(`- … and ${more} more; the runs output lists every file's path`)
  return lines.join('\n')
}

const LIST_FALLBACK_NOTE =
  "The service's plan cannot filter runs by metadata, so each run was read on its own at every poll."

/**
 * Pure: the set's comment, without its marker: the headline, the figures, a
 * link to the workflow run, and the table, within `maxChars`.
 */
export function renderSetComment(view: SetView, workflowRun: string | undefined, maxChars: number) {
  const headline = setHeadline(view)
  const link = safeHttpUrl(workflowRun)
  const head = [
    `### ${headline.icon} Cloud agent tasks: ${headline.title}`,
    headline.figures.join(' · '),
    ...(headline.reason ? [inlineText(headline.reason)] : []),
    ...(link ? [`[Workflow run](${link})`] : []),
  ].join('\n\n')
  // The reasons take at most a tenth of the room; the table, the rest.
  const reasons = renderSetReasons(view, maxChars / 10)
  const table = renderSetTable(view, maxChars - head.length - reasons.length - 4)
  return [head, table, ...(reasons ? [reasons] : [])].join('\n\n')
}

/**
 * Pure: the set's check run once it ended: its outcome's conclusion, the tally as its title,
 * and as its summary (within `maxChars`) why it ended so, then the table and the reasons. The
 * first paragraph is what the post step keeps, should GitHub not take the completion.
 */
export function renderSetCheck(
  outcome: SetOutcome,
  maxChars: number,
): { conclusion: CheckConclusion; title: string; summary: string } {
  const view: SetView = { kind: 'ended', outcome }
  const headline = setHeadline(view)
  const { word } = outcome
  const head = [
    `${inlineText(headline.reason ?? '')} Outcome: \`${word}\`.`,
    headline.figures.join(' · '),
  ].join('\n\n')
  // As on the comment: the reasons take at most a tenth of the room; the table, the rest.
  const reasons = renderSetReasons(view, maxChars / 10)
  const table = renderSetTable(view, maxChars - head.length - reasons.length - 4)
  return {
    conclusion: OUTCOME_RECORDS[word].check.conclusion,
    title: `${capitalized(headline.title)}: ${headline.figures[0]}`,
    summary: [head, table, ...(reasons ? [reasons] : [])].join('\n\n'),
  }
}

/** The set's commit status: pending with its tally while it runs, then its outcome's state. */
export function setStatusOf(view: SetView): { state: CommitState; description: string } {
  const headline = setHeadline(view)
  if (view.kind === 'running') {
    return { state: 'pending', description: `${headline.title}: ${headline.figures[0]}` }
  }
  const { word, handedOver } = view.outcome
  if (word === 'started') {
    // Names the set, as one run's names its run: the pass finishes only the status its set left.
    return {
      state: OUTCOME_RECORDS.started.commitState,
      description: `Started ${setStarted(view.outcome.tasks)} of ${view.outcome.tasks.length} runs; this step does not wait for them (set ${handedOver ?? ''})`,
    }
  }
  return {
    state: OUTCOME_RECORDS[word].commitState,
    description: `${capitalized(headline.title)}: ${view.outcome.reason}`,
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
