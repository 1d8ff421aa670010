import type { RunItem } from '../api/types.ts'

/**
 * Runs that spawn runs: a run's agent can start child runs (orchestration), and each child
 * inherits every tag of its parent, so a list filtered by the action's tags returns the
 * children too. A child is part of its root's run, never a run of the key of its own: it is
 * never steered, followed up, adopted, superseded or swept as the key's run. Pure.
 */

type TreeFields = Pick<RunItem, 'run_id' | 'parent_run_id' | 'root_run_id'>

/**
 * Whether an agent started the run: it names a parent, or a root other than itself. A run that
 * shows neither (an older service) is a run of its own.
 */
export function isChildRun(run: TreeFields): boolean {
  if (typeof run.parent_run_id === 'string' && run.parent_run_id !== '') return true
  return (
    typeof run.root_run_id === 'string' && run.root_run_id !== '' && run.root_run_id !== run.run_id
  )
}

/** The runs of a list that are runs of their own (the roots): the children left out, in order. */
export function ownRuns<Run extends TreeFields>(runs: readonly Run[]): Run[] {
  return runs.filter((run) => !isChildRun(run))
}

/** The top of the run's tree: its `root_run_id`, its parent where it shows only that, or itself. */
export function rootIdOf(run: TreeFields): string {
  if (typeof run.root_run_id === 'string' && run.root_run_id !== '') return run.root_run_id
  if (typeof run.parent_run_id === 'string' && run.parent_run_id !== '') return run.parent_run_id
  return run.run_id
}

/**
 * The children of `rootId` among `runs`: a run whose root or parent is it, each once. A run
 * the list cannot place in its tree (a grandchild that shows only its parent) is left out.
 */
export function childrenOf<Run extends TreeFields>(runs: readonly Run[], rootId: string): Run[] {
  const seen = new Set<string>()
  return runs.filter((run) => {
    if (run.run_id === rootId || seen.has(run.run_id) || !isChildRun(run)) return false
    if (rootIdOf(run) !== rootId && run.parent_run_id !== rootId) return false
    seen.add(run.run_id)
    return true
  })
}
