import type { RunItem } from '../api/types.ts'
import { readHandoff, type Handoff } from '../model/handoff.ts'
import { parseIsoDuration } from '../model/run-item.ts'
import {
  describePassWhen,
  passWhenStanding,
  standingOf,
  type SetOutcome,
  type TaskRun,
} from '../model/set.ts'
import { meaningOf, isTerminal } from '../model/states.ts'

/**
 * The pass's rules, pure: what it does with a run, from the run, its
 * hand-over, and what it found on GitHub. Reading GitHub is the pass's; each
 * rule here asks only for the facts it needs, so nothing is read for a run
 * that is left on its first look.
 */

/** The first look, from the run alone: leave it, or look at what its step left on GitHub. */
export type FirstLook =
  | { kind: 'leave'; why: string }
  /** Ended: finish its comment or status if they still show it going. */
  | { kind: 'finish'; handoff: Handoff }
  /** Still going, though its step waited: was the step's runner lost? */
  | { kind: 'sweep-check'; handoff: Handoff }
  /** Ended, one of a detached set's: once the set's last run ended, finish its comment and status. */
  | { kind: 'finish-set'; handoff: Handoff }
  /** Still going, one of a detached set's: did its step hand the set over, or lose its runner first? */
  | { kind: 'set-sweep-check'; handoff: Handoff }

export function firstLook(
  run: RunItem,
  handoff: Handoff | undefined,
  options: { repository: string; sweep: boolean },
): FirstLook {
  if (!handoff) {
    return { kind: 'leave', why: 'its metadata has no hand-over (an older version started it)' }
  }
  // The list is filtered by repository, but the fallback filters here, and metadata is only text.
  if (handoff.repository !== options.repository) {
    return { kind: 'leave', why: `it belongs to ${handoff.repository}` }
  }
  if (isTerminal(run.state)) {
    if (handoff.set && handoff.waits) {
      return {
        kind: 'leave',
        why: "it is a run of a `tasks` step, whose comment and commit status show the whole set: they are that step's",
      }
    }
    if (!handoff.comment && !handoff.commitStatus) {
      return { kind: 'leave', why: 'its step asked for no comment or commit status' }
    }
    return { kind: handoff.set ? 'finish-set' : 'finish', handoff }
  }
  // A detached set's runs are handed over, as one detached run is, once its step created them all.
  if (handoff.set && !handoff.waits) {
    if (options.sweep && meaningOf(run.state) !== 'blocked')
      return { kind: 'set-sweep-check', handoff }
    return { kind: 'leave', why: DETACHED_SET_GOING }
  }
  // A later step (continue_run) may wait for a run its first step did not: only its comment says.
  if (!handoff.waits && handoff.thread === undefined) {
    return { kind: 'leave', why: 'it is still running; a later pass finishes it' }
  }
  if (meaningOf(run.state) === 'blocked') {
    return { kind: 'leave', why: 'it waits for a person (BLOCKED), and cannot be cancelled' }
  }
  if (!options.sweep) {
    return {
      kind: 'leave',
      why: handoff.waits
        ? 'its step waits for it (sweep is off)'
        : 'it is still running; a later pass finishes it',
    }
  }
  return { kind: 'sweep-check', handoff }
}

/** Why a pass leaves a detached set's run still going. */
export const DETACHED_SET_GOING = 'it is still running; a later pass finishes its set'

/**
 * A detached set's run still going (wait: false). Its step hands the set over once it has
 * created every run: the set's record in its comment then has an outcome, or its commit status
 * names the set. Whether it did, as far as the pass can tell: by what GitHub shows when the step
 * showed the set somewhere (`shows`), else by a run of every task having been created. Pure.
 */
export function detachedSetHandedOver(
  shown: {
    shows: boolean
    comment: { outcome?: string } | undefined
    status: { state: string; description: string } | undefined
    everyTaskRan: () => boolean
  },
  setId: string,
): boolean {
  const { comment, status } = shown
  if (comment?.outcome !== undefined) return true
  if (status && (status.state !== 'pending' || status.description.includes(`(set ${setId})`))) {
    return true
  }
  return !shown.shows && shown.everyTaskRan()
}

/** How many of a set's tasks the runs listed have a run for. Pure. */
export function tasksWithRuns(setId: string, runs: readonly RunItem[]): number {
  const tasks = new Set<number>()
  for (const run of runs) {
    const own = readHandoff(run.metadata)
    if (own?.set === setId && own.task !== undefined) tasks.add(own.task)
  }
  return tasks.size
}

/**
 * A detached set's run going, its step not shown to have handed the set over: a step whose
 * runner was lost while it created the runs never did, and the runs it created go on unwatched.
 * Once its workflow run completed, not successfully (a lost runner fails its job), they are
 * swept; a workflow run that succeeded lost no runner. Pure.
 */
export function setStarterLost(
  workflow: { over: boolean; status: string; conclusion: string | undefined } | undefined,
): { kind: 'leave'; why: string } | { kind: 'sweep' } {
  if (!workflow?.over) {
    return {
      kind: 'leave',
      why: `its step is still starting its set (workflow run ${workflow?.status ?? 'unknown'})`,
    }
  }
  if (workflow.conclusion === 'success') {
    return {
      kind: 'leave',
      why: 'its workflow run succeeded, and a lost runner fails its job: its step handed the set over',
    }
  }
  return { kind: 'sweep' }
}

/** A workflow run, in one attempt. */
export interface WorkflowRunRef {
  workflowRunId: string
  attempt: number | undefined
}

/** A step that showed the run in a comment, as the run's record there says. */
export interface StepTrace {
  /** The workflow run of the step that last wrote the record. */
  workflowRun: WorkflowRunRef
  /** How that step ended (the `outcome` word); undefined while it waits, or since it was lost. */
  outcome: string | undefined
}

/** The step a still-going run is to be judged by, or why none waits for it. */
export type WaitingStep<T> =
  | { kind: 'leave'; why: string }
  /** This step waited for the run when last seen, or meant to stop it: is it gone? */
  | { kind: 'check'; workflowRun: WorkflowRunRef; trace: T | undefined }

/**
 * Outcomes of a step that meant its run to stop (it cancels the run on them): a
 * run still going after one was not let go, and is its step's to account for.
 */
const MEANT_TO_STOP: ReadonlySet<string> = new Set([
  'timed_out',
  'over_budget',
  'interrupted',
  'error',
])

/**
 * Who waits for a run that is still going now: the newest step that showed it
 * in a comment (a `continue_run` step in a later workflow run, say), else the
 * step that started it. A step whose record shows that it ended and let the
 * run go on (handed to a person, detached, or done with a run that a person
 * later set working again) left nothing behind, and an older step's workflow
 * run tells nothing about it.
 */
export function waitingStep<T extends StepTrace>(
  handoff: Handoff,
  traces: readonly T[],
): WaitingStep<T> {
  const [latest] = [...traces].sort((a, b) => compareWorkflowRuns(b.workflowRun, a.workflowRun))
  if (latest) {
    const { outcome } = latest
    if (outcome === 'started') {
      return { kind: 'leave', why: 'it is still running; a later pass finishes it' }
    }
    if (outcome !== undefined && !MEANT_TO_STOP.has(outcome)) {
      return {
        kind: 'leave',
        why: `its latest step (workflow run ${latest.workflowRun.workflowRunId}) ended on purpose (${outcome}) and let it run on: it was not left behind`,
      }
    }
    return { kind: 'check', workflowRun: latest.workflowRun, trace: latest }
  }
  if (!handoff.waits) return { kind: 'leave', why: 'it is still running; a later pass finishes it' }
  if (!handoff.workflowRunId) {
    return { kind: 'leave', why: 'its metadata names no workflow run to check' }
  }
  return {
    kind: 'check',
    workflowRun: { workflowRunId: handoff.workflowRunId, attempt: handoff.attempt },
    trace: undefined,
  }
}

/**
 * A run of an awaited set that its step handed to a person (BLOCKED, `on_blocked` fail or pass)
 * before it ended, as the set's record in its comment lists it: it was let go on purpose, not
 * left behind, whatever the job's conclusion. Undefined when the record does not list it. Pure.
 */
export function handedToPerson(
  shown: { handedOff?: readonly string[]; workflowRun?: string } | undefined,
  runId: string,
  repository: string,
): { kind: 'leave'; why: string } | undefined {
  if (!shown?.handedOff?.includes(runId)) return undefined
  const workflowRun = workflowRunOf(shown.workflowRun, repository)
  const which = workflowRun ? ` (workflow run ${workflowRun.workflowRunId})` : ''
  return {
    kind: 'leave',
    why: `its set's step${which} handed it to a person (BLOCKED) and ended: it was not left behind`,
  }
}

/** Newer workflow runs have larger IDs; a later attempt of one is newer than an earlier one. */
function compareWorkflowRuns(a: WorkflowRunRef, b: WorkflowRunRef): number {
  const ids = BigInt(a.workflowRunId) - BigInt(b.workflowRunId)
  if (ids !== 0n) return ids > 0n ? 1 : -1
  return (a.attempt ?? 1) - (b.attempt ?? 1)
}

/**
 * The workflow run (and attempt) a comment's link names, when it is one of
 * `repository`'s; undefined for any other link, or none.
 */
export function workflowRunOf(
  url: string | undefined,
  repository: string,
): WorkflowRunRef | undefined {
  const link = url ?? ''
  const match = /\/actions\/runs\/(\d{1,20})(?:\/attempts\/(\d{1,6}))?$/.exec(link)
  if (!match?.[1] || !/^https?:\/\//.test(link)) return undefined
  if (!link.slice(0, match.index).endsWith(`/${repository}`)) return undefined
  return { workflowRunId: match[1], attempt: match[2] ? Number(match[2]) : undefined }
}

/** Whether a waiting step's workflow run says its runner was lost, as GitHub reports it now. */
export function lostRunner(
  workflow: { over: boolean; status: string; conclusion: string | undefined } | undefined,
): { lost: true } | { lost: false; why: string } {
  if (!workflow?.over) {
    return {
      lost: false,
      why: `its step waits for it (workflow run ${workflow?.status ?? 'unknown'})`,
    }
  }
  // A runner that is lost fails its job, so a workflow run that succeeded lost none.
  if (workflow.conclusion === 'success') {
    return {
      lost: false,
      why: 'its workflow run succeeded, and a lost runner fails its job: its step ended on purpose and let it run on',
    }
  }
  return { lost: true }
}

/**
 * A step whose workflow cancelled it may have handed its run to a step of a newer workflow run
 * for the same thread (previous_run: steer), which need not show it anywhere (no comment): the
 * newest such workflow run, when there is one, decides. Still going, it may await the run; ended
 * in success, it lost no runner, and let the run go on; else its runner was lost too. Pure.
 */
export function handedOnTo(
  judged: { conclusion: string | undefined } | undefined,
  newer: { id: string; status: string; conclusion: string | undefined } | undefined,
): { kind: 'leave'; why: string } | { kind: 'sweep' } {
  if (judged?.conclusion !== 'cancelled' || !newer) return { kind: 'sweep' }
  const which = `a newer workflow run of the same workflow for its pull request (${newer.id})`
  if (newer.status !== 'completed') {
    return {
      kind: 'leave',
      why: `its step's workflow run was cancelled, and ${which} is ${newer.status}: a step there may steer it (previous_run: steer)`,
    }
  }
  if (newer.conclusion === 'success') {
    return {
      kind: 'leave',
      why: `its step's workflow run was cancelled, and ${which} succeeded: a step there may have steered it and let it run on`,
    }
  }
  return { kind: 'sweep' }
}

/** How a run shows in its step's comment, as far as the pass cares. */
export interface ShownRecord {
  state: string
  outcome?: string
}

/**
 * Whether the comment already shows the run at its end: with a final outcome
 * (any but `started`), or, without one, in a terminal state (as the post step
 * and a sweep leave it). Then a pass writes nothing.
 */
export function commentShowsEnd(shown: ShownRecord): boolean {
  return shown.outcome !== undefined ? shown.outcome !== 'started' : isTerminal(shown.state)
}

/**
 * Whether the commit status is the one the run's step left pending: still
 * pending, and naming the run. Anything else (a final state, or a newer run's
 * pending status in the same context) is not the pass's to touch.
 */
export function statusLeftPending(
  status: { state: string; description: string } | undefined,
  runId: string,
): boolean {
  return status?.state === 'pending' && status.description.includes(`(run ${runId})`)
}

/**
 * Whether the commit status is the one a detached set's step left: pending, naming the set.
 * Anything else (its end, a newer step's status in the same context) is not a pass's to touch.
 */
export function setStatusLeftPending(
  status: { state: string; description: string } | undefined,
  setId: string,
): boolean {
  return status?.state === 'pending' && status.description.includes(`(set ${setId})`)
}

/** Where a detached set stands, from the runs of it the service lists. */
export type SetStanding =
  /** Its runs carry no size or rule (or another set's): nothing to judge it by. */
  | { kind: 'unknown'; why: string }
  /** Some run is still going: the set is left to a later pass. */
  | { kind: 'going'; ended: number; total: number }
  /** Every run has ended: the set's outcome, as its step would have reached it. */
  | { kind: 'ended'; outcome: SetOutcome }

/**
 * Pure: a detached set (wait: false) judged as its step would have judged it had it waited:
 * once every run has ended, `pass_when` (carried in the runs' metadata) over the runs, in
 * task order; a task none of whose runs is listed counts as not succeeded (its create failed).
 */
export function detachedSetStanding(handoff: Handoff, runs: readonly RunItem[]): SetStanding {
  const { set, tasks: total, passWhen } = handoff
  if (set === undefined || total === undefined || passWhen === undefined) {
    return { kind: 'unknown', why: "its metadata does not say the set's size and pass_when" }
  }
  const byTask = new Map<number, RunItem>()
  for (const run of runs) {
    const own = readHandoff(run.metadata)
    if (own?.set !== set || own.task === undefined || byTask.has(own.task)) continue
    byTask.set(own.task, run)
  }
  const going = [...byTask.values()].filter((run) => !isTerminal(run.state)).length
  if (going > 0) return { kind: 'going', ended: byTask.size - going, total }
  const tasks = Array.from({ length: total }, (_, index): TaskRun => {
    const run = byTask.get(index)
    if (!run) {
      return {
        index,
        request: {},
        invocation: '',
        createError: 'no run of this task was found: its create failed',
        settled: true,
      }
    }
    const startedAt = Date.parse(run.created_at ?? '')
    const at = Number.isFinite(startedAt) ? startedAt : 0
    return {
      index,
      request: { prompt: run.prompt, title: run.title },
      invocation: run.run_id,
      runId: run.run_id,
      run,
      startedAt: at,
      endedAt: at + elapsedOf(run),
      settled: true,
    }
  })
  const counts = { tasks: total, succeeded: 0, notSucceeded: 0 }
  for (const task of tasks) {
    if (standingOf(task) === 'succeeded') counts.succeeded += 1
    else counts.notSucceeded += 1
  }
  const started = tasks.flatMap((task) => (task.run ? [task.startedAt ?? 0] : []))
  const ended = tasks.flatMap((task) => (task.run ? [task.endedAt ?? 0] : []))
  const elapsedMs = started.length > 0 ? Math.max(...ended) - Math.min(...started) : 0
  return {
    kind: 'ended',
    outcome: {
      word: passWhenStanding(passWhen, counts) === 'met' ? 'succeeded' : 'failed',
      tasks,
      reason: `the step asked for ${describePassWhen(passWhen, total)}`,
      elapsedMs,
      listFallback: false,
    },
  }
}

/** A run's time, by the service's figure, else from its creation to its last update. */
export function elapsedOf(run: RunItem): number {
  const fromService = run.run_time ? parseIsoDuration(run.run_time) : undefined
  if (fromService !== undefined) return fromService
  const span = Date.parse(run.updated_at ?? '') - Date.parse(run.created_at ?? '')
  return Number.isFinite(span) && span > 0 ? span : 0
}
