import type { RunItem } from '../api/types.ts'
import { GITHUB_LIMITS, reasonOf, withDeadline, type Octokit } from './octokit.ts'
import { NewestWrites } from './writes.ts'
import { safeHttpUrl } from '../text/markdown.ts'
import { statusMessageOf } from '../model/run.ts'
import type { StepOutcome } from '../model/step.ts'
import { formatDuration } from '../text/format.ts'
import type { Log } from '../log.ts'

export type CommitState = 'pending' | 'success' | 'failure' | 'error'

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
  return `cloud-agent/${key}`.slice(0, 100)
}

/** Text for a description: one line, no control characters, at most 140 characters. */
export function oneLine(text: string, max = MAX_DESCRIPTION): string {
  const flat = text
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** While the run works: pending, linking to the session once there is one. */
export function pendingStatus(run: RunItem, fallbackTarget?: string): StatusReport {
  const waiting = run.state === 'BLOCKED'
  return {
    state: 'pending',
    description: oneLine(
      waiting
        ? `The agent waits for a person (run ${run.run_id})`
        : `The agent is working (run ${run.run_id}, ${run.state})`,
    ),
    targetUrl: safeHttpUrl(run.session_link) ?? fallbackTarget,
  }
}

/** Where the step ended, as a commit status. */
export function finalStatus(outcome: StepOutcome, fallbackTarget?: string): StatusReport {
  const run = outcome.run
  const targetUrl = safeHttpUrl(run?.session_link) ?? fallbackTarget
  const because = (prefix: string) => {
    const message = run ? statusMessageOf(run) : undefined
    return oneLine(message ? `${prefix}: ${message}` : prefix)
  }
  switch (outcome.kind) {
    case 'started':
      return {
        state: 'pending',
        description: oneLine(`Run ${outcome.run.run_id} started; this step does not wait for it`),
        targetUrl,
      }
    case 'finished':
      switch (outcome.run.state) {
        case 'SUCCEEDED':
          return { state: 'success', description: 'The agent succeeded', targetUrl }
        case 'FAILED':
          return { state: 'failure', description: because('The agent failed'), targetUrl }
        case 'CANCELLED':
          return { state: 'error', description: because('The run was cancelled'), targetUrl }
        default:
          return { state: 'error', description: because('The run ended in error'), targetUrl }
      }
    case 'timed-out':
      return {
        state: 'failure',
        description: oneLine(`Timed out after ${formatDuration(outcome.timeoutMs)}; run cancelled`),
        targetUrl,
      }
    case 'interrupted':
      return {
        state: 'error',
        description: 'Stopped: the workflow was cancelled',
        targetUrl,
      }
    case 'over-budget':
      return {
        state: 'failure',
        description: oneLine(`Over max_credits (${outcome.maxCredits}); run cancelled`),
        targetUrl,
      }
    case 'blocked':
      return {
        state: outcome.passes ? 'success' : 'failure',
        description: oneLine(`The agent waits for a person (run ${outcome.run.run_id})`),
        targetUrl,
      }
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
  #last = ''

  constructor(octokit: Octokit, target: StatusTarget, log: Log) {
    this.#octokit = octokit
    this.#target = target
    this.#log = log
  }

  show(report: StatusReport): void {
    const key = JSON.stringify(report)
    if (key === this.#last) return
    this.#last = key
    this.#writes.push(report)
  }

  /** Waits for the writes on their way, for a bounded time: GitHub can never hold the step. */
  async settled(maxMs: number = GITHUB_LIMITS.settleMs): Promise<void> {
    if ((await this.#writes.settled(maxMs)) === 'gave-up') {
      this.#log.warning(
        `GitHub: the commit status ${this.#target.context} was not brought up to date within ${maxMs / 1000}s; GitHub is not answering. The run is not affected.`,
      )
    }
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
