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
      /** The run that covers the repository; none when its budget is what holds it back. */
      readonly runId?: string
      /** Why, in words: `run … is still working`, `run … succeeded on this instruction`. */
      readonly why: string
    }
  | {
      readonly kind: 'follow-up'
      /** The run that opened the repository's pull request: it gets the changed instruction. */
      readonly run: RunItem
      readonly why: string
    }

/** What applying a campaign again knows of a repository: its runs of the task's key. */
export interface RepositoryRuns {
  /** The newest run of the key (an agent's children aside). */
  readonly latest: RunItem | undefined
  /** The newest run of the key that opened a pull request; undefined for none. */
  readonly opener: RunItem | undefined
  /**
   * Whether the opener's conversation already holds this instruction as a campaign follow-up;
   * undefined when it was not read (not needed, or the read failed).
   */
  readonly sent?: boolean | undefined
}

/**
 * Applying a campaign again never pays twice (v1.5): a repository whose latest campaign run of
 * its key is working, or succeeded on the same instruction (the prompt the step would send, or
 * a follow-up of it), gets no new run. A changed instruction goes as a follow-up to the run that
 * opened the repository's pull request, where one did; any other (none, a failure) starts a run.
 * Pure.
 */
export function applyAgain(prompt: string, runs: RepositoryRuns): Applied {
  const { latest, opener } = runs
  if (!latest) return { kind: 'start' }
  const meaning = meaningOf(latest.state)
  if (meaning === 'active' || meaning === 'blocked') {
    return { kind: 'skip', runId: latest.run_id, why: `run ${latest.run_id} is still working` }
  }
  if (meaning === 'succeeded' && latest.prompt === prompt) {
    const why = `run ${latest.run_id} succeeded on this instruction`
    return { kind: 'skip', runId: latest.run_id, why }
  }
  if (!opener || opener.prompt === prompt) return { kind: 'start' }
  if (runs.sent === undefined) {
    // Not known whether the change was sent: never risk sending (and paying for) it twice.
    const why = `could not read whether run ${opener.run_id}, which opened its pull request, has this instruction; apply again to try once more`
    return { kind: 'skip', runId: opener.run_id, why }
  }
  if (runs.sent && meaningOf(opener.state) === 'succeeded') {
    const why = `run ${opener.run_id} succeeded on this instruction, sent as a follow-up`
    return { kind: 'skip', runId: opener.run_id, why }
  }
  const why = `the instruction changed: sent to run ${opener.run_id}, which opened its pull request`
  return { kind: 'follow-up', run: opener, why }
}

/** The marker line of a campaign's follow-up: how applying again finds it in a conversation. */
function followUpMarker(campaign: string): string {
  return `Campaign ${campaign} changed its instruction to the above.`
}

/**
 * The follow-up that takes a changed instruction to the run that opened a repository's pull
 * request: the instruction, then where it comes from. Pure.
 */
export function campaignFollowUp(campaign: string, prompt: string, change: string): string {
  return `${prompt}\n\n---\n${followUpMarker(campaign)} You made ${change}: keep what you know of this work; change only what this asks.`
}

/** Whether a user message of a conversation is this campaign's follow-up with `prompt`. Linear. */
export function isCampaignFollowUp(text: string, campaign: string, prompt: string): boolean {
  return text.startsWith(`${prompt}\n\n---\n${followUpMarker(campaign)}`)
}
