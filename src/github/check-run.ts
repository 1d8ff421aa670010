/**
 * `check_run`: the step as a check run `cloud-agent/<key>` on the commit the run works on,
 * in progress while the run works, then a conclusion. The conclusion tells the agent's verdict
 * on the work from a run that broke: only a review that requests changes is "changes
 * requested"; a run that failed, errored or gave no valid result says so in its title.
 */
import { randomUUID } from 'node:crypto'
import type { ReviewComment, ReviewDocument } from '../agent/review-document.ts'
import type { Log } from '../log.ts'
import { type CheckConclusion } from '../model/outcome.ts'
import { describeEnding, endingOf } from '../model/ending.ts'
import type { StepOutcome } from '../model/step.ts'
import { agentDetails, clipAnswer, escapeMarkdown } from '../text/markdown.ts'
import { clip } from '../text/plain.ts'
import type { CheckRunLookup, CheckRunStateStore, SavedCheckReport } from '../state.ts'
import { failureHint, reasonOf, withRetries, type Deadline, type Octokit } from './octokit.ts'
import { statusContext } from './status.ts'

export interface CheckReport {
  conclusion: CheckConclusion
  title: string
  summary: string
}

/** GitHub takes at most 50 annotations a request, and 65,535 characters of summary. */
export const ANNOTATIONS_PER_REQUEST = 50
export const CHECK_SUMMARY_CHARS = 65_535
const ANSWER_CHARS = 40_000

/** The conclusion and its words, from the step's outcome and, with a review, its verdict. */
export function checkReport(
  outcome: StepOutcome,
  extras: { answer?: string; review?: ReviewDocument },
): CheckReport {
  // With a review, the verdict is in the outcome's words (reviewVerdict): the check, the status
  // and the headlines all read it there.
  const words = describeEnding(endingOf(outcome))
  const { review } = extras
  const { conclusion, title } = words.check
  // GitHub shows the title above the summary: the summary goes on from it. A review's `why`
  // says already that the run succeeded, and what the verdict is.
  const parts = [
    review
      ? escapeMarkdown(words.why)
      : `${escapeMarkdown(words.why)} Outcome: \`${words.outcome}\`.`,
  ]
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
    summary:
      summary.length > CHECK_SUMMARY_CHARS ? clip(summary, CHECK_SUMMARY_CHARS - 1) : summary,
  }
}

/**
 * A step that stopped before it completed its check run: cancelled, or else failed. `runs`:
 * what was cancelled, in the title ("the run", or a set's "the runs left").
 */
export function stoppedCheckReport(
  why: string,
  cancelled: boolean,
  runs = 'the run was',
): CheckReport {
  const title = cancelled ? `The step stopped; ${runs} cancelled` : 'The step stopped'
  return {
    conclusion: cancelled ? 'cancelled' : 'failure',
    title,
    summary: escapeMarkdown(why),
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

/** The summary kept for the post step: the outcome's sentence, not the agent's text. */
const SAVED_SUMMARY_CHARS = 1_000

/**
 * What the post step completes the check run with when GitHub never took the main step's
 * completion: the conclusion and title reached. The state is no place for the agent's text.
 */
export function savedCheckReport(report: CheckReport): SavedCheckReport {
  const [first = ''] = report.summary.split('\n\n')
  return {
    conclusion: report.conclusion,
    title: report.title,
    summary: first.length > SAVED_SUMMARY_CHARS ? clip(first, SAVED_SUMMARY_CHARS - 1) : first,
  }
}

/** The report the post step writes from what the main step saved. */
export function reportFromSaved(saved: SavedCheckReport): CheckReport {
  return {
    conclusion: saved.conclusion as CheckConclusion,
    title: saved.title,
    summary: [
      saved.summary,
      '',
      "GitHub did not take the step's own completion of this check, so the post step completed it. " +
        "The agent's answer is in the workflow run's job summary; a review's comments are on the pull request.",
    ].join('\n'),
  }
}

/**
 * One check run, created in progress at once, completed at the end. A GitHub failure (most
 * often a token without `checks: write`) is a warning, and the step goes on without it. A
 * 5xx or a broken connection is asked again; a write whose answer was lost is looked for
 * before it is sent again, so nothing is made or annotated twice. With a record (the main
 * step), the state says how to find the check run, the conclusion reached, and only once
 * GitHub took it, that it is complete: until then, the post step completes it.
 */
export class CheckRunReporter {
  readonly #octokit: Octokit
  readonly #target: Omit<CheckTarget, 'sha'>
  readonly #log: Log
  readonly #record: CheckRunStateStore | undefined
  readonly #id: Promise<number | undefined>

  private constructor(
    octokit: Octokit,
    target: Omit<CheckTarget, 'sha'>,
    log: Log,
    record: CheckRunStateStore | undefined,
    id: (reporter: CheckRunReporter) => Promise<number | undefined>,
  ) {
    this.#octokit = octokit
    this.#target = target
    this.#log = log
    this.#record = record
    this.#id = id(this)
  }

  /** Creates the check run, in progress, on the target's commit. */
  static open(
    octokit: Octokit,
    target: CheckTarget,
    log: Log,
    detailsUrl?: string,
    record?: CheckRunStateStore,
  ) {
    return new CheckRunReporter(octokit, target, log, record, (reporter) =>
      reporter.#create(target.sha, detailsUrl),
    )
  }

  /**
   * The check run an earlier step created (the post step completes what the main step left):
   * by its ID, or, when the answer to its create never came, found by its `external_id`.
   */
  static adopt(
    octokit: Octokit,
    target: Omit<CheckTarget, 'sha'>,
    known: { id: number } | CheckRunLookup,
    log: Log,
  ) {
    return new CheckRunReporter(octokit, target, log, undefined, (reporter) =>
      'id' in known ? Promise.resolve(known.id) : reporter.#lookUp(known),
    )
  }

  /** The check run's ID once created; undefined when GitHub refused it. */
  get id(): Promise<number | undefined> {
    return this.#id
  }

  get name(): string {
    return statusContext(this.#target.key)
  }

  /**
   * Completes the check run, with its annotations 50 a request. True once GitHub took the
   * completing write.
   */
  async finish(report: CheckReport, annotations: readonly Annotation[] = []): Promise<boolean> {
    const id = await this.#id
    if (id === undefined) return false
    const batches: Annotation[][] = []
    for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
      batches.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST))
    }
    const output = { title: report.title, summary: report.summary }
    this.#record?.saveCheckRunReport(savedCheckReport(report))
    try {
      // The check run is this step's, created without annotations.
      let expected = 0
      // GitHub adds each request's annotations to the earlier ones': a lost answer is
      // looked for by the count before the batch goes again.
      for (const batch of batches.slice(0, -1)) {
        expected += batch.length
        await this.#update(
          id,
          { output: { ...output, annotations: batch } },
          (run) => run.annotations >= expected,
        )
      }
      expected += batches.at(-1)?.length ?? 0
      await this.#update(
        id,
        {
          status: 'completed',
          conclusion: report.conclusion,
          completed_at: new Date().toISOString(),
          output: { ...output, annotations: batches.at(-1) ?? [] },
        },
        (run) => run.status === 'completed' && run.annotations >= expected,
      )
    } catch (error) {
      const next = this.#record ? ' The post step completes it.' : ' The run is not affected.'
      this.#log.warning(
        `GitHub: could not complete the check run ${this.name} (${reasonOf(error)}).${failureHint(error, CHECKS_PERMISSION)}${next}`,
      )
      return false
    }
    this.#record?.markCheckRunDone()
    return true
  }

  /** One update, asked again after a transient failure unless `took` shows it took effect. */
  async #update(
    id: number,
    fields: Omit<
      Parameters<Octokit['rest']['checks']['update']>[0] & object,
      'owner' | 'repo' | 'check_run_id'
    >,
    took: (run: { status: string; annotations: number }) => boolean,
  ): Promise<void> {
    const { owner, repo } = this.#target
    await withRetries(
      async (deadline) => {
        await this.#octokit.rest.checks.update({
          owner,
          repo,
          check_run_id: id,
          ...fields,
          ...deadline,
        })
        return true
      },
      {
        tookEffect: async (deadline) => {
          const { data } = await this.#octokit.rest.checks.get({
            owner,
            repo,
            check_run_id: id,
            ...deadline,
          })
          return (
            took({ status: data.status, annotations: data.output.annotations_count }) || undefined
          )
        },
      },
    )
  }

  async #create(sha: string, detailsUrl: string | undefined): Promise<number | undefined> {
    const { owner, repo } = this.#target
    // A unique reference: a create whose answer was lost is found by it, not made twice.
    const lookup = { sha, externalId: randomUUID() }
    this.#record?.saveCheckRunLookup(lookup)
    try {
      const id = await withRetries(
        async (deadline) => {
          const { data } = await this.#octokit.rest.checks.create({
            owner,
            repo,
            name: this.name,
            head_sha: sha,
            external_id: lookup.externalId,
            status: 'in_progress',
            started_at: new Date().toISOString(),
            details_url: detailsUrl,
            ...deadline,
          })
          return data.id
        },
        { tookEffect: (deadline) => this.#find(lookup, deadline) },
      )
      this.#record?.saveCheckRunId(id)
      return id
    } catch (error) {
      // GitHub answered that it made nothing: there is nothing for the post step to look for.
      if (refused(error)) this.#record?.saveCheckRunLookup(undefined)
      this.#log.warning(
        `GitHub: could not create the check run ${this.name} on ${sha.slice(0, 7)} (${reasonOf(error)}).${failureHint(error, CHECKS_PERMISSION)} The run goes on without it.`,
      )
      return undefined
    }
  }

  /** The post step's search for a check run whose create answer the main step never had. */
  async #lookUp(lookup: CheckRunLookup): Promise<number | undefined> {
    try {
      const id = await withRetries((deadline) => this.#find(lookup, deadline))
      if (id === undefined) {
        this.#log.info(
          `No check run ${this.name} with external_id ${lookup.externalId} on ${lookup.sha.slice(0, 7)}: the main step's create made none.`,
        )
      }
      return id
    } catch (error) {
      this.#log.warning(
        `GitHub: could not look for the check run ${this.name} on ${lookup.sha.slice(0, 7)} (${reasonOf(error)}).${failureHint(error, CHECKS_PERMISSION)} It may be left in progress.`,
      )
      return undefined
    }
  }

  /** The check run of this name on the commit that carries the `external_id`, if any. */
  async #find(lookup: CheckRunLookup, deadline: Deadline): Promise<number | undefined> {
    const runs = await this.#octokit.paginate(this.#octokit.rest.checks.listForRef, {
      owner: this.#target.owner,
      repo: this.#target.repo,
      ref: lookup.sha,
      check_name: this.name,
      filter: 'all',
      per_page: 100,
      ...deadline,
    })
    return runs.find((run) => run.external_id === lookup.externalId)?.id
  }
}

const CHECKS_PERMISSION = 'check_run needs the permission checks: write.'

/** GitHub answered a 4xx: the request was refused, and made nothing. */
function refused(error: unknown): boolean {
  const { status, response } = error as { status?: number; response?: unknown }
  return response !== undefined && status !== undefined && status >= 400 && status < 500
}
