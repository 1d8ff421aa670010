import { costOf, describeCost, type RunCost } from '../agent/cost.ts'
import type { RunItem } from '../api/types.ts'
import { roundTo } from '../text/format.ts'
import { codeSpan, escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'

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

const NO_COST: RunCost = { credits: undefined, usd: undefined }

/**
 * A tree's spend: the sum of its runs' own usage (the service does not say that a parent's
 * usage includes its children's), each run counted once; undefined where no run reports it.
 */
export function treeCostOf(run: RunItem | undefined, children: readonly RunItem[] = []): RunCost {
  // Most runs start none: their own cost, with no set or list made (a set's headline sums a
  // thousand runs at every poll).
  if (children.length === 0) return run ? costOf(run.request_usage) : NO_COST
  const seen = new Set<string>()
  let credits: number | undefined
  let usd: number | undefined
  for (const one of run ? [run, ...children] : children) {
    if (seen.has(one.run_id)) continue
    seen.add(one.run_id)
    const cost = costOf(one.request_usage)
    if (cost.credits !== undefined) credits = (credits ?? 0) + cost.credits
    if (cost.usd !== undefined) usd = (usd ?? 0) + cost.usd
  }
  return {
    credits: credits === undefined ? undefined : roundTo(credits, 6),
    usd: usd === undefined ? undefined : roundTo(usd, 6),
  }
}

/** `children` with `seen` laid over them by run ID (newer readings win), oldest first. */
export function mergeChildren(
  children: readonly RunItem[] | undefined,
  seen: readonly RunItem[],
): RunItem[] {
  const byId = new Map((children ?? []).map((child) => [child.run_id, child]))
  for (const child of seen) byId.set(child.run_id, child)
  return [...byId.values()]
}

/**
 * The runs the agent started, collapsed, for the job summary, the pull request comment and the
 * GitLab note alike: each with its state, its session and its own spend. Undefined for none.
 */
export function childRunsBlock(children: readonly RunItem[] | undefined): string | undefined {
  if (!children || children.length === 0) return undefined
  const lines = children.map((child) => {
    const parts = [codeSpan(child.run_id), escapeMarkdown(child.state)]
    const session = safeHttpUrl(child.session_link)
    if (session) parts.push(`[Session](${session})`)
    const cost = describeCost(costOf(child.request_usage))
    if (cost) parts.push(escapeMarkdown(cost))
    return `- ${parts.join(' · ')}`
  })
  const title = `The agent started ${children.length} run${children.length === 1 ? '' : 's'}`
  return `<details><summary>${title}</summary>\n\n${lines.join('\n')}\n\n</details>`
}
