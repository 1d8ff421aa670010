import type { RunItem } from '../api/types.ts'
import { HANDOFF_KEYS, STEP_KEYS } from './handoff.ts'
import type { Forge, World } from '../world.ts'

/**
 * Where a run belongs, the same for every door (the contract's "one identity"): the forge, the
 * project, and the thread (a pull request's or issue's number, a merge request's IID). Each door
 * reads it once from its own world; budgets, `previous_run`, `cancel_previous` and `cancel_only`
 * scope by it. Pure.
 */
export interface RunHome {
  readonly forge: Forge | undefined
  /** `owner/repo`, a GitLab project path, or the command's `--project`; undefined when unnamed. */
  readonly project: string | undefined
  /** The thread the step is about, when it is about one. */
  readonly thread: number | undefined
  /** The pull or merge request the step is about, when it is about one: what pr_credit_budget counts. */
  readonly change: number | undefined
  /**
   * The commit the run works on, where the door's world names it (a GitLab job's CI_COMMIT_SHA);
   * on GitHub, the head the step's surfaces show, which the step reads from GitHub.
   */
  readonly head?: string
}

/** The metadata key that names the forge: runs made before it carry none, and are GitHub's. */
export const FORGE_KEY = 'gh_forge'

/**
 * A step's home: its world's forge and project, and its thread, which GitHub's event names (the
 * caller reads it through GitHubContext) and other forges' worlds name themselves.
 */
export function homeOf(
  world: Pick<World, 'forge' | 'projectForge' | 'project' | 'thread' | 'sha'>,
  github: { thread: number | undefined; pullRequest: number | undefined } = {
    thread: undefined,
    pullRequest: undefined,
  },
): RunHome {
  if (world.forge === 'github') {
    return {
      forge: 'github',
      project: world.project,
      thread: github.thread,
      change: github.pullRequest,
    }
  }
  // A merge request pipeline's thread is its merge request; outside CI, `--project` may name a forge.
  const { project, thread } = world
  const forge = world.forge ?? world.projectForge
  return { forge, project, thread, change: thread, ...(world.sha ? { head: world.sha } : {}) }
}

/**
 * The tags that find this home's runs: its project and, where the step has a thread, its thread.
 * Undefined without a project: nothing can be scoped, so nothing is listed.
 */
export function homeScope(
  home: RunHome,
  options: { byThread: boolean } = { byThread: true },
): Record<string, string> | undefined {
  if (!home.project) return undefined
  return {
    [STEP_KEYS.repository]: home.project,
    ...(options.byThread && home.thread !== undefined
      ? { [HANDOFF_KEYS.thread]: String(home.thread) }
      : {}),
  }
}

/**
 * Whether a listed run belongs to this home's forge (v1.5, "one number per project"): the same
 * forge, or either names none (the command's runs made with a bare `--project`, or a step whose
 * project names no forge). So every door counts one total for one project path, while two
 * forges' projects of one path stay apart when both are named. A run without the forge key was
 * made before the key existed, by the Action, on GitHub.
 */
export function ofHomeForge(run: Pick<RunItem, 'metadata'>, home: RunHome): boolean {
  const forge = forgeTagOf(run)
  return forge === 'none' || home.forge === undefined || forge === home.forge
}

/** The forge a run's tag names: `github` (also a run tagged before the key), `gitlab` or `none`. */
export function forgeTagOf(run: Pick<RunItem, 'metadata'>): string {
  const metadata: unknown = run.metadata
  const shown =
    typeof metadata === 'object' && metadata !== null
      ? (metadata as Record<string, unknown>)[FORGE_KEY]
      : undefined
  return typeof shown === 'string' ? shown : 'github'
}

/** The forge's name for a pull or merge request, for a person: `pull request #3`, `merge request !3`. */
export function changeName(home: Pick<RunHome, 'forge'>, change: number): string {
  switch (home.forge) {
    case 'github':
      return `pull request #${change}`
    case 'gitlab':
      return `merge request !${change}`
    case undefined:
      return `thread ${change}`
  }
}

/** The home a run's tag names (homeMetadata read back): a step's own tag, or a listed run's. */
export function homeOfTag(metadata: Readonly<Record<string, string>>): RunHome {
  const forge = metadata[FORGE_KEY]
  const thread = Number(metadata[HANDOFF_KEYS.thread])
  const known = Number.isSafeInteger(thread) && thread > 0 ? thread : undefined
  return {
    forge: forge === 'gitlab' ? 'gitlab' : forge === 'none' ? undefined : 'github',
    project: metadata[STEP_KEYS.repository] || undefined,
    thread: known,
    change: known,
  }
}

/** The home for a person: `octo-org/app`, `group/app merge request !7`. */
export function describeHome(home: RunHome): string {
  const project = home.project ?? 'no project'
  if (home.change !== undefined) return `${project} ${changeName(home, home.change)}`
  return home.thread === undefined ? project : `${project} #${home.thread}`
}
