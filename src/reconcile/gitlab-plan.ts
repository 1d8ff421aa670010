/**
 * The rules of a reconcile pass over a GitLab project's runs (`cloud-agent-run reconcile`),
 * pure: what a pass does with a run, from its metadata, its state, the note that records it
 * and what GitLab says of the job awaiting it.
 */
import type { RunItem } from '../api/types.ts'
import { HANDOFF_KEYS, STEP_KEYS } from '../model/handoff.ts'
import { FORGE_KEY } from '../model/home.ts'
import { isTerminal } from '../model/states.ts'

/** What a GitLab run carries that a pass reads (run/create.ts, model/handoff.ts). */
export interface GitLabRunTag {
  readonly project: string
  /** The merge request's IID, when the run's job ran for one. */
  readonly mergeRequest: number | undefined
  /** `false` for a job run with `--no-wait`: it leaves the run going, and its note to a pass. */
  readonly waits: boolean
  /** The job that started the run (CI_JOB_ID). */
  readonly job: string | undefined
  /** `true` when its job steers its key's run (`--previous-run steer`): it may hand it over. */
  readonly steers: boolean
}

/** A run's GitLab tag, or undefined for a run of another forge or one with no project. */
export function gitlabTagOf(run: Pick<RunItem, 'metadata'>): GitLabRunTag | undefined {
  const metadata = (run.metadata ?? {}) as Record<string, unknown>
  const text = (key: string) => (typeof metadata[key] === 'string' ? metadata[key] : undefined)
  const project = text(STEP_KEYS.repository)
  if (text(FORGE_KEY) !== 'gitlab' || !project) return undefined
  const iid = Number(text(HANDOFF_KEYS.thread))
  const job = text('gh_step')
  return {
    project,
    mergeRequest: Number.isSafeInteger(iid) && iid > 0 ? iid : undefined,
    waits: text(HANDOFF_KEYS.wait) !== 'false',
    job: job && /^\d{1,20}$/.test(job) ? job : undefined,
    steers: text(HANDOFF_KEYS.steer) === 'true',
  }
}

/** A pass's first look at a run, before it asks GitLab anything. */
export type GitLabLook =
  | { readonly kind: 'leave'; readonly why: string }
  /** Ended: its merge request's note may still show it going. */
  | { readonly kind: 'finish'; readonly tag: GitLabRunTag & { mergeRequest: number } }
  /** Going, and a job was waiting for it: swept once GitLab reports that job finished. */
  | { readonly kind: 'sweep-check'; readonly tag: GitLabRunTag }

export function firstGitLabLook(
  run: Pick<RunItem, 'metadata' | 'state'>,
  options: { sweep: boolean },
): GitLabLook {
  const tag = gitlabTagOf(run)
  if (!tag) return { kind: 'leave', why: 'it is not a GitLab run of this project' }
  if (isTerminal(run.state)) {
    if (tag.mergeRequest === undefined) {
      return { kind: 'leave', why: 'it ended, and no merge request note shows it' }
    }
    return { kind: 'finish', tag: { ...tag, mergeRequest: tag.mergeRequest } }
  }
  if (!tag.waits) return { kind: 'leave', why: 'its job left it going by design (--no-wait)' }
  if (!options.sweep) return { kind: 'leave', why: 'the sweep is off (--no-sweep)' }
  return { kind: 'sweep-check', tag }
}

/**
 * The job a sweep asks GitLab about: the newest job awaiting the run. When the merge request's
 * note records the run, the job it names (a later job that steered the run took it over), else
 * the job that started it.
 */
export function awaitingJob(
  tag: GitLabRunTag,
  record: { run?: string; job?: string } | undefined,
  runId: string,
): string | undefined {
  if (record?.run === runId && record.job && /^\d{1,20}$/.test(record.job)) return record.job
  return tag.job
}

/**
 * A steering key's job that GitLab cancelled may have handed its run to a job of a newer
 * pipeline of the merge request (superseded), which steers it and need not have written the
 * note yet: the newest such pipeline, when there is one, decides, as a newer workflow run does
 * on GitHub. Still going, its job may await the run; ended in success, it lost no runner and
 * let the run go on; else its runner was lost too. Pure.
 */
export function handedOnInGitLab(
  judged: { status: string; pipeline: number | undefined },
  tag: Pick<GitLabRunTag, 'steers' | 'mergeRequest'>,
  pipelines: readonly { id: number; status: string }[],
): { kind: 'leave'; why: string } | { kind: 'sweep' } {
  const { pipeline } = judged
  if (judged.status !== 'canceled' || !tag.steers || pipeline === undefined) {
    return { kind: 'sweep' }
  }
  const newer = pipelines.filter((one) => one.id > pipeline).sort((a, b) => b.id - a.id)[0]
  if (!newer) return { kind: 'sweep' }
  const which = `a newer pipeline of its merge request (${newer.id})`
  if (!FINISHED_PIPELINE.has(newer.status)) {
    return {
      kind: 'leave',
      why: `its job was cancelled, and ${which} is ${newer.status}: a job there steers it (--previous-run steer)`,
    }
  }
  if (newer.status === 'success') {
    return {
      kind: 'leave',
      why: `its job was cancelled, and ${which} succeeded: a job there steered it and let it run on`,
    }
  }
  return { kind: 'sweep' }
}

/** The statuses of a pipeline that will not run on. */
const FINISHED_PIPELINE = new Set(['success', 'failed', 'canceled', 'skipped'])
