/**
 * What a step hands over to a later reconcile pass (its run's or its set's metadata), and where a
 * run is at home on GitHub: its thread, and the source `continue_from: pull_request` looks at.
 */
import type { GitHubSettings } from '../inputs/github.ts'
import type { PreviousRun } from '../inputs/main-step.ts'
import { handoffMetadata } from '../model/handoff.ts'
import type { RunHome } from '../model/home.ts'
import type { GitHubContext } from './context.ts'

/** The metadata by which a step hands its run over to a later reconcile pass. */
export function stepHandoff(
  settings: { github: GitHubSettings; wait: boolean; previousRun: PreviousRun },
  home: RunHome,
): Record<string, string> {
  const { github } = settings
  return handoffMetadata({
    thread: home.thread,
    key: github.key,
    wait: settings.wait,
    comment: github.comment,
    commitStatus: github.commitStatus,
    steer: settings.previousRun === 'steer',
  })
}

/**
 * The hand-over of a `tasks` step's runs: each counts toward the pull request's budget, and
 * carries the set's size and `pass_when`. An awaited set's comment and status show the whole
 * set, so they are its step's own, never a pass's to rewrite for one run; a detached set's
 * (wait: false) are finished by the reconcile pass that finds the set's last run ended.
 */
export function setHandoff(
  github: GitHubSettings,
  home: RunHome,
  set: { wait: boolean; tasks: number; passWhen: string },
): Record<string, string> {
  return handoffMetadata({
    thread: home.thread,
    key: github.key,
    wait: set.wait,
    comment: !set.wait && github.comment,
    commitStatus: !set.wait && github.commitStatus,
    set: { tasks: set.tasks, passWhen: set.passWhen },
  })
}

/**
 * The pull request or issue the run was started for, as the event names it (a check's pull
 * request too, for a CI fix): its thread, and its pull request, which `pr_credit_budget` counts by.
 */
export function githubThread(context: Pick<GitHubContext, 'named' | 'pullRequest'>): {
  thread: number | undefined
  pullRequest: number | undefined
} {
  return { thread: context.named?.number, pullRequest: context.pullRequest }
}

/**
 * Where `continue_from: pull_request` looks: the step's home, whose pull request is the one the
 * event names (a workflow_run's or check_suite's first, for a failed check), and the head the
 * step works on.
 */
export function continueSource(
  home: RunHome,
  head: string | undefined,
): { home: RunHome; head?: string } {
  return { home, ...(head ? { head } : {}) }
}
