/**
 * `check_run`: the step as a check run `cloud-agent/<key>` on the commit the run works on,
 * in progress while the run works, then a conclusion. The conclusion tells the agent's verdict
 * on the work from a run that broke: only a review that requests changes is "changes
 * requested"; a run that failed, errored or gave no valid result says so in its title.
 */
import type { ReviewComment, ReviewDocument } from '../agent/review-document.ts'
import type { Log } from '../log.ts'
import { describeEnding, endingOf, type CheckConclusion } from '../model/outcome.ts'
import type { StepOutcome } from '../model/step.ts'
import { agentDetails, clipAnswer, escapeMarkdown } from '../text/markdown.ts'
import { clip } from '../text/plain.ts'
import { reasonOf, withDeadline, type Octokit } from './octokit.ts'
import { statusContext } from './status.ts'

export interface CheckReport {
  conclusion: CheckConclusion
  title: string
  summary: string
}

/** GitHub takes at most 50 annotations a request, and 65,535 characters of summary. */
export const ANNOTATIONS_PER_REQUEST = 50
const MAX_SUMMARY_CHARS = 65_535
const ANSWER_CHARS = 40_000

/** The conclusion and its words, from the step's outcome and, with a review, its verdict. */
export function checkReport(
  outcome: StepOutcome,
  extras: { answer?: string; review?: ReviewDocument },
): CheckReport {
  const words = describeEnding(endingOf(outcome))
  const { review } = extras
  const { conclusion, title } =
    words.outcome === 'succeeded' && review ? reviewCheck(review.verdict) : words.check
  // GitHub shows the title above the summary: the summary goes on from it.
  const parts = [`${escapeMarkdown(words.why)} Outcome: \`${words.outcome}\`.`]
  const answer = review?.summary ?? extras.answer
  if (answer) {
    parts.push(
      '',
      agentDetails(
        review ? "The agent's review" : "The agent's answer",
        clipAnswer(answer, ANSWER_CHARS),
        true,
      ),
    )
  }
  const summary = parts.join('\n')
  return {
    conclusion,
    title,
    summary: summary.length > MAX_SUMMARY_CHARS ? clip(summary, MAX_SUMMARY_CHARS - 1) : summary,
  }
}

/** A step that stopped before it completed its check run: cancelled, or else failed. */
export function stoppedCheckReport(why: string, cancelled: boolean): CheckReport {
  const title = cancelled ? 'The step stopped; the run was cancelled' : 'The step stopped'
  return {
    conclusion: cancelled ? 'cancelled' : 'failure',
    title,
    summary: escapeMarkdown(why),
  }
}

/** A run that succeeded with a review: the agent's verdict on the work decides. */
function reviewCheck(
  verdict: ReviewDocument['verdict'],
): Pick<CheckReport, 'conclusion' | 'title'> {
  switch (verdict) {
    case 'request_changes':
      return { conclusion: 'failure', title: 'Changes requested' }
    case 'approve':
      return { conclusion: 'success', title: 'Approved by the agent' }
    case 'comment':
      return { conclusion: 'success', title: 'Reviewed, with comments' }
  }
}

export interface Annotation {
  path: string
  start_line: number
  end_line: number
  annotation_level: 'notice' | 'warning' | 'failure'
  message: string
  title?: string
}

/** GitHub keeps 64 KB of an annotation's message; ours are shorter. */
const MAX_MESSAGE_CHARS = 4_000

/**
 * The review's comments as annotations: plain text, which GitHub shows as typed. A comment on a
 * removed line (LEFT) has no line in the commit, so it has no annotation.
 */
export function annotationsOf(
  comments: readonly ReviewComment[],
  verdict: ReviewDocument['verdict'],
): Annotation[] {
  return comments
    .filter((comment) => comment.side !== 'LEFT')
    .map((comment) => ({
      path: comment.path.replace(/\\/g, '/').replace(/^(\.\/|\/)+/, ''),
      start_line: Math.min(comment.start_line ?? comment.line, comment.line),
      end_line: comment.line,
      annotation_level: verdict === 'request_changes' ? 'warning' : 'notice',
      message:
        comment.body.length > MAX_MESSAGE_CHARS
          ? clip(comment.body, MAX_MESSAGE_CHARS - 1)
          : comment.body,
    }))
}

/** Where the check run goes. */
export interface CheckTarget {
  owner: string
  repo: string
  sha: string
  key: string
}

/**
 * One check run, created in progress at once, completed at the end. A GitHub failure (most
 * often a token without `checks: write`) is a warning, and the step goes on without it.
 */
export class CheckRunReporter {
  readonly #octokit: Octokit
  readonly #target: Omit<CheckTarget, 'sha'>
  readonly #log: Log
  readonly #id: Promise<number | undefined>

  private constructor(
    octokit: Octokit,
    target: Omit<CheckTarget, 'sha'>,
    log: Log,
    id: (reporter: CheckRunReporter) => Promise<number | undefined>,
  ) {
    this.#octokit = octokit
    this.#target = target
    this.#log = log
    this.#id = id(this)
  }

  /** Creates the check run, in progress, on the target's commit. */
  static open(octokit: Octokit, target: CheckTarget, log: Log, detailsUrl?: string) {
    return new CheckRunReporter(octokit, target, log, (reporter) =>
      reporter.#create(target.sha, detailsUrl),
    )
  }

  /** The check run an earlier step created (the post step completes what the main step left). */
  static adopt(octokit: Octokit, target: Omit<CheckTarget, 'sha'>, id: number, log: Log) {
    return new CheckRunReporter(octokit, target, log, () => Promise.resolve(id))
  }

  /** The check run's ID once created; undefined when GitHub refused it. */
  get id(): Promise<number | undefined> {
    return this.#id
  }

  get name(): string {
    return statusContext(this.#target.key)
  }

  /** Completes the check run, with its annotations 50 a request. */
  async finish(report: CheckReport, annotations: readonly Annotation[] = []): Promise<void> {
    const id = await this.#id
    if (id === undefined) return
    const { owner, repo } = this.#target
    const batches: Annotation[][] = []
    for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
      batches.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST))
    }
    const output = { title: report.title, summary: report.summary }
    try {
      // GitHub adds each request's annotations to the earlier ones'.
      for (const batch of batches.slice(0, -1)) {
        await this.#octokit.rest.checks.update({
          owner,
          repo,
          check_run_id: id,
          output: { ...output, annotations: batch },
          ...withDeadline(),
        })
      }
      await this.#octokit.rest.checks.update({
        owner,
        repo,
        check_run_id: id,
        status: 'completed',
        conclusion: report.conclusion,
        completed_at: new Date().toISOString(),
        output: { ...output, annotations: batches.at(-1) ?? [] },
        ...withDeadline(),
      })
    } catch (error) {
      this.#log.warning(
        `GitHub: could not complete the check run ${this.name} (${reasonOf(error)}). The run is not affected.`,
      )
    }
  }

  async #create(sha: string, detailsUrl: string | undefined): Promise<number | undefined> {
    const { owner, repo } = this.#target
    try {
      const { data } = await this.#octokit.rest.checks.create({
        owner,
        repo,
        name: this.name,
        head_sha: sha,
        status: 'in_progress',
        started_at: new Date().toISOString(),
        details_url: detailsUrl,
        ...withDeadline(),
      })
      return data.id
    } catch (error) {
      const status = (error as { status?: number }).status
      const hint = status === 403 ? ' check_run needs the permission checks: write.' : ''
      this.#log.warning(
        `GitHub: could not create the check run ${this.name} on ${sha.slice(0, 7)} (${reasonOf(error)}).${hint} The run goes on without it.`,
      )
      return undefined
    }
  }
}
