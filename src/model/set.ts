import { treeCostOf } from './tree.ts'
import { clip } from '../text/plain.ts'
import type { Outcome } from './outcome.ts'
import { isTerminal, meaningOf } from './states.ts'
import type { CreateRunRequest, RunItem } from '../api/types.ts'
import type { RunRecord } from './record.ts'

/** `pass_when`: how many of a set's runs must succeed for the step to pass. */
export type PassWhen = { kind: 'all' } | { kind: 'any' } | { kind: 'at-least'; count: number }

/** How many of a set's runs must succeed under `pass_when`. */
export function runsNeeded(rule: PassWhen, taskCount: number): number {
  switch (rule.kind) {
    case 'all':
      return taskCount
    case 'any':
      return 1
    case 'at-least':
      return rule.count
  }
}

/** Where a set stands against its `pass_when`, from the runs that have ended so far. */
export type PassWhenStanding = 'met' | 'open' | 'cannot-be-met'

/**
 * Pure: `met` once enough runs succeeded; `cannot-be-met` as soon as too many
 * ended otherwise (or will never start) for the rest to make up the number;
 * else `open`.
 */
export function passWhenStanding(
  rule: PassWhen,
  counts: { tasks: number; succeeded: number; notSucceeded: number },
): PassWhenStanding {
  const needed = runsNeeded(rule, counts.tasks)
  if (counts.succeeded >= needed) return 'met'
  const stillPossible = counts.tasks - counts.notSucceeded
  return stillPossible < needed ? 'cannot-be-met' : 'open'
}

/** `pass_when` in words, for the log and the summary: "all 20 runs", "at least 3 of 20 runs". */
export function describePassWhen(rule: PassWhen, taskCount: number): string {
  switch (rule.kind) {
    case 'all':
      return `all ${taskCount} runs`
    case 'any':
      return `at least one of ${taskCount} runs`
    case 'at-least':
      return `at least ${rule.count} of ${taskCount} runs`
  }
}

/** What the step does with one task's run: the run's record, with the task it runs. */
export interface TaskRun extends RunRecord {
  /** 0-based, in the order of the `tasks` input. */
  readonly index: number
  readonly request: CreateRunRequest
}

/**
 * Pure: where one run stands for `pass_when`: succeeded (or handed to a person with on_blocked:
 * pass), ended otherwise (a failed create too), or still open.
 */
export function standingOf(record: RunRecord): 'succeeded' | 'not-succeeded' | 'open' {
  if (record.createError !== undefined) return 'not-succeeded'
  if (record.handedOff) return record.handedOff.passes ? 'succeeded' : 'not-succeeded'
  if (record.invalidOutput) return 'not-succeeded'
  if (!record.run || !isTerminal(record.run.state)) return 'open'
  return meaningOf(record.run.state) === 'succeeded' ? 'succeeded' : 'not-succeeded'
}

/**
 * A task as a person reads it: numbered from 1, with its title when it has one ("task 3
 * (Package c)"). The `runs` output keeps the 0-based index a workflow uses.
 */
export function taskLabel(task: Pick<TaskRun, 'index' | 'request'>): string {
  const title = task.request.title
  return `task ${task.index + 1}${title ? ` (${clip(title, 79)})` : ''}`
}

/** How the set ended: its rule held or not, or the step stopped it (timeout, cap, signal). */
export interface SetOutcome {
  /**
   * The set's `outcome` output: the contract's word for one run, said of the set (succeeded
   * when its `pass_when` held); its record gives every surface its words.
   */
  word: Outcome
  tasks: readonly TaskRun[]
  /** One sentence: why the set ended so. */
  reason: string
  elapsedMs: number
  /** The service cannot filter the list by metadata: each run was read on its own. */
  listFallback: boolean
  /**
   * The set's ID (its runs' `gh_set`), when its step handed its runs over (wait: false): its
   * commit status names it, so that the reconcile pass that finishes the set knows it its own.
   */
  handedOver?: string
  /** Superseded: the newer run of its key that replaced one of its runs. */
  newer?: RunItem
}

/** `pass_when` as a run's metadata carries it: `all`, `any`, or the number. */
export function passWhenText(rule: PassWhen): string {
  return rule.kind === 'at-least' ? String(rule.count) : rule.kind
}

/** Pure: `pass_when` read back from a run's metadata; undefined when it is not one for `taskCount`. */
export function passWhenOf(text: string | undefined, taskCount: number): PassWhen | undefined {
  if (text === 'all' || text === 'any') return { kind: text }
  if (!text || !/^\d{1,6}$/.test(text)) return undefined
  const count = Number(text)
  return count >= 1 && count <= taskCount ? { kind: 'at-least', count } : undefined
}

/** The credits of every run together; undefined while the service reports none. */
export function sumCredits(tasks: readonly TaskRun[]): number | undefined {
  let sum: number | undefined
  for (const task of tasks) {
    const credits = treeCostOf(task.run, task.children).credits
    if (credits !== undefined) sum = (sum ?? 0) + credits
  }
  return sum
}

/** The USD cost of every run together; undefined while the service reports none. */
export function sumUsd(tasks: readonly TaskRun[]): number | undefined {
  let sum: number | undefined
  for (const task of tasks) {
    const usd = treeCostOf(task.run, task.children).usd
    if (usd !== undefined) sum = (sum ?? 0) + usd
  }
  return sum
}

/** wait: false: the run was created and handed over; the step does not wait for it. */
export function isDetached(record: RunRecord): boolean {
  return record.end?.kind === 'started'
}
