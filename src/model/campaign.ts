/**
 * Campaigns (v1.5): one instruction over many repositories. Each run of a campaign carries its
 * name, and a task that names its `repository` makes that repository the run's project (its
 * tags, budgets, cancels and report) and `<campaign>/<repository>` its key. Pure.
 */
import type { RunItem } from '../api/types.ts'
import { FORGE_KEY } from './home.ts'
import { meaningOf } from './states.ts'
import { HANDOFF_KEYS, STEP_KEYS } from './handoff.ts'
import type { Forge } from '../world.ts'

/** The metadata key every run of a campaign carries: one list request finds them all. */
export const CAMPAIGN_KEY = 'gh_campaign'

/** A task's repository: a GitHub `owner/repo`, or a GitLab project path. */
export interface TaskRepository {
  readonly forge: Forge
  readonly project: string
}

/** A campaign's name: what the report and the command group by, and part of every key. */
export function isCampaignName(text: string): boolean {
  return /^[\w.-]{1,64}$/.test(text)
}

/**
 * The repository `text` names: `owner/repo` (or `github:owner/repo`) on GitHub,
 * `gitlab:group/sub/app` on GitLab; undefined for anything else.
 */
export function parseRepository(text: string): TaskRepository | undefined {
  // Every part starts with a letter, a digit or an underscore: never `.` or `..`.
  const gitlab = /^gitlab:(\w[\w.-]*(?:\/\w[\w.-]*)+)$/.exec(text)
  if (gitlab?.[1]) return { forge: 'gitlab', project: gitlab[1] }
  const github = /^(?:github:)?(\w[\w-]*\/\w[\w.-]*)$/.exec(text)
  if (github?.[1]) return { forge: 'github', project: github[1] }
  return undefined
}

/** `owner/repo`, `gitlab:group/app`: a repository as a task names it. */
export function repositoryName(repository: TaskRepository): string {
  return repository.forge === 'gitlab' ? `gitlab:${repository.project}` : repository.project
}

/** A campaign task's key: `<campaign>/<repository>`, the run's name. */
export function campaignKey(campaign: string, repository: TaskRepository): string {
  return `${campaign}/${repositoryName(repository)}`
}

/**
 * A campaign task's tags over its step's: the campaign; with a repository, that repository as
 * the run's project and forge, its key, and none of the step's own thread and commit, which are
 * of another repository.
 */
export function campaignTags(
  step: Readonly<Record<string, string>>,
  campaign: string,
  repository: TaskRepository | undefined,
): Record<string, string> {
  if (!repository) return { ...step, [CAMPAIGN_KEY]: campaign }
  const stepOwn: readonly string[] = [HANDOFF_KEYS.thread, STEP_KEYS.headSha]
  const kept = Object.entries(step).filter(([key]) => !stepOwn.includes(key))
  return {
    ...Object.fromEntries(kept),
    [CAMPAIGN_KEY]: campaign,
    [FORGE_KEY]: repository.forge,
    [STEP_KEYS.repository]: repository.project,
    [HANDOFF_KEYS.key]: campaignKey(campaign, repository),
  }
}

/** What applying a campaign again does for a repository's task. */
export type Applied =
  | { readonly kind: 'start' }
  | {
      readonly kind: 'skip'
      readonly runId: string
      /** Why, in words: `run … is still working`, `run … succeeded on this instruction`. */
      readonly why: string
    }

/**
 * Applying a campaign again never pays twice (v1.5): a repository whose latest campaign run of
 * its key is working, or succeeded on the same instruction (the prompt the step would send), gets
 * no new run; any other (none, a failure, a changed instruction) starts one. Pure.
 */
export function applyAgain(
  prompt: string,
  latest: Pick<RunItem, 'run_id' | 'state' | 'prompt'> | undefined,
): Applied {
  if (!latest) return { kind: 'start' }
  const meaning = meaningOf(latest.state)
  if (meaning === 'active' || meaning === 'blocked') {
    return { kind: 'skip', runId: latest.run_id, why: `run ${latest.run_id} is still working` }
  }
  if (meaning === 'succeeded' && latest.prompt === prompt) {
    const why = `run ${latest.run_id} succeeded on this instruction`
    return { kind: 'skip', runId: latest.run_id, why }
  }
  return { kind: 'start' }
}
