import type { RunItem } from '../api/types.ts'
import { reasonOf, withDeadline, type Octokit } from './octokit.ts'
import { GITHUB_LIMITS } from '../timing.ts'
import { wordsFor } from './words.ts'
import { NewestWrites } from './writes.ts'
import { safeHttpUrl } from '../text/markdown.ts'
import { clip, cut } from '../text/plain.ts'
import { type CommitState } from '../model/outcome.ts'
import { describeEnding, endingOf } from '../model/ending.ts'
import type { StepOutcome } from '../model/step.ts'
import type { Log } from '../log.ts'

/** One commit status, as GitHub takes it. */
export interface StatusReport {
  state: CommitState
  /** One line of at most 140 characters. */
  description: string
  targetUrl?: string
}

/** The commit the run works on, and where its status goes. */
export interface StatusTarget {
  owner: string
  repo: string
  sha: string
  /** `cloud-agent/<key>`. */
  context: string
}

/** GitHub refuses a longer description. */
export const MAX_DESCRIPTION = 140

export function statusContext(key: string): string {
  return cut(`cloud-agent/${key}`, 100)
}

/** Text for a description: one line, no control characters, at most 140 characters. */
export function oneLine(text: string, max = MAX_DESCRIPTION): string {
  const flat = text
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return flat.length > max ? clip(flat, max - 1) : flat
}

/** While the run works: pending, in the comment's words, linking to the session once there is one. */
export function pendingStatus(run: RunItem, fallbackTarget?: string): StatusReport {
  return {
    state: 'pending',
    description: oneLine(`${wordsFor(run).label} (run ${run.run_id})`),
    targetUrl: safeHttpUrl(run.session_link) ?? fallbackTarget,
  }
}

/** Where the step ended, as a commit status, in the comment's plain words. */
export function finalStatus(outcome: StepOutcome, fallbackTarget?: string): StatusReport {
  const ending = endingOf(outcome)
  const words = describeEnding(ending)
  const reason = words.showsReason ? ending.run?.statusMessage : undefined
  const question = outcome.kind === 'blocked' ? outcome.question : undefined
  const description = oneLine(
    ending.kind === 'started'
      ? `Started (run ${ending.run.runId}); this step does not wait for it`
      : ending.kind === 'superseded'
        ? `Superseded by run ${ending.newerRunId}`
        : [words.label, reason ?? question].filter(Boolean).join(': '),
  )
  return {
    state: words.commitState,
    description,
    targetUrl: safeHttpUrl(outcome.run?.session_link) ?? fallbackTarget,
  }
}

/**
 * Keeps one commit status up to date: one write per change, in order. A
 * GitHub failure never fails the step: it becomes a warning.
 */
export class CommitStatusReporter {
  readonly #octokit: Octokit
  readonly #target: StatusTarget
  readonly #log: Log
  readonly #writes = new NewestWrites<StatusReport>((report) => this.#write(report))

  constructor(octokit: Octokit, target: StatusTarget, log: Log) {
    this.#octokit = octokit
    this.#target = target
    this.#log = log
  }

  /** `final`: the end's status; a pending one shown after it is dropped, never written over it. */
  show(report: StatusReport, final = false): void {
    this.#writes.pushChanged(report, final)
  }

  /** Waits for the writes on their way, for a bounded time: GitHub can never hold the step. */
  async settled(maxMs: number = GITHUB_LIMITS.settleMs): Promise<void> {
    await this.#writes.settle(maxMs, this.#log, `the commit status ${this.#target.context}`)
  }

  async #write(report: StatusReport): Promise<void> {
    const { owner, repo, sha, context } = this.#target
    try {
      await this.#octokit.rest.repos.createCommitStatus({
        owner,
        repo,
        sha,
        context,
        state: report.state,
        description: report.description,
        target_url: report.targetUrl,
        ...withDeadline(),
      })
    } catch (error) {
      this.#log.warning(
        `GitHub: could not set the commit status ${context} on ${sha.slice(0, 7)} (${reasonOf(error)}). The run is not affected.`,
      )
    }
  }
}
