/**
 * `pull_request_review`: the agent's review document becomes one pull-request review with
 * inline comments, written with the workflow's token, so the agent needs no GitHub access.
 * Comments are anchored against the pull request's diff as GitHub has it; one that GitHub
 * would refuse (a file or a line outside the diff) moves into the review's body, with its
 * `path:line`, and is never dropped. Everything the agent wrote goes through agentMarkdown.
 * This module posts it; where the comments go is review-diff.ts, the review's text review-body.ts.
 */
import type { ReviewDocument } from '../agent/review-document.ts'
import type { Log } from '../log.ts'
import { safeHttpUrl } from '../text/markdown.ts'
import {
  failureHint,
  reasonOf,
  tokenIdentity,
  withRetries,
  type Deadline,
  type Octokit,
} from './octokit.ts'
import {
  clipBody,
  MAX_REVIEW_PARTS,
  renderContinuation,
  renderReviewBody,
  reviewMarkOf,
  type OutsideDiff,
} from './review-body.ts'
import { anchorComments, diffLines, type DiffLines, type InlineComment } from './review-diff.ts'

/** The pull request a review goes on. */
export interface ReviewTarget {
  owner: string
  repo: string
  number: number
  /** The commit the run worked on: the review is of it. */
  sha: string
  key: string
}

export interface PostedReview {
  url: string | undefined
  inline: number
  inBody: number
}

const REVIEW_PERMISSION = 'pull_request_review needs pull-requests: write.'

/**
 * Posts the review: reads the diff, anchors the comments, and writes one review; comments
 * outside the diff that its body cannot hold go on in the next reviews, each linking the
 * first. A 422 (the diff moved under us) is retried once with every comment in the body. A
 * 5xx or a broken connection is asked again; a review whose answer was lost is found by its
 * marker, never posted twice. A re-run on the same head points to the review it replaces, and
 * the earlier one is marked as replaced. Any GitHub failure is a warning that names its cause;
 * the run's outcome is not affected.
 */
export async function postReview(
  octokit: Octokit,
  target: ReviewTarget,
  review: ReviewDocument,
  context: { runId: string; sessionLink?: string },
  log: Log,
): Promise<PostedReview | undefined> {
  const { owner, repo, number } = target
  const pr = `${owner}/${repo}#${number}`
  try {
    const [files, { identity, earlier, listed }] = await Promise.all([
      withRetries((deadline) => readDiff(octokit, target, deadline)),
      withRetries((deadline) => earlierReviews(octokit, target, deadline)),
    ])
    const anchored = anchorComments(review.comments, files)
    const post = postOne(octokit, target, { identity, runId: context.runId, listed })
    const body = (inBody: OutsideDiff[]) =>
      renderReviewBody(review, inBody, {
        key: target.key,
        ...context,
        replaces: earlier.filter((r) => r.part === undefined).map((r) => r.url),
      })
    const event = review.verdict === 'request_changes' ? 'REQUEST_CHANGES' : 'COMMENT'
    let created: { id: number; html_url?: string }
    let inBody = anchored.inBody
    let first = body(inBody)
    try {
      created = await post(event, first.body, anchored.inline)
    } catch (error) {
      if ((error as { status?: number }).status !== 422 || anchored.inline.length === 0) throw error
      log.warning(
        `GitHub: the review's inline comments on ${pr} were refused (${reasonOf(error)}); posting them in the review's body instead.`,
      )
      inBody = [
        ...review.comments.map((comment) => ({ comment, reason: 'GitHub refused it inline' })),
      ]
      first = body(inBody)
      created = await post(event, first.body, [])
    }
    const url = created.html_url
    const parts = await postContinuations(post, first.rest, { key: target.key, ...context, url })
    const more = parts.posted > 0 ? `, continued in ${parts.posted} more review(s)` : ''
    log.info(
      `Posted the review on ${pr}: ${event === 'REQUEST_CHANGES' ? 'changes requested' : 'a comment review'}, ${review.comments.length - inBody.length} inline comment(s), ${inBody.length} in its body${more}.${url ? ` ${url}` : ''}`,
    )
    if (parts.failed) {
      log.warning(
        `GitHub: could not post part ${parts.posted + 2} of the review on ${pr} (${reasonOf(parts.failed)}).${failureHint(parts.failed, REVIEW_PERMISSION)} ${parts.left} comment(s) outside the diff are only in the step's structured_output output.`,
      )
    }
    await markReplaced(octokit, target, earlier, url, log)
    return { url, inline: review.comments.length - inBody.length, inBody: inBody.length }
  } catch (error) {
    log.warning(
      `GitHub: could not post the review on ${pr} (${reasonOf(error)}).${failureHint(error, REVIEW_PERMISSION)} The review is in the step's structured_output output. The run is not affected.`,
    )
    return undefined
  }
}

type PostOne = (
  event: 'COMMENT' | 'REQUEST_CHANGES',
  body: string,
  comments: InlineComment[],
) => Promise<{ id: number; html_url?: string }>

/** The reviews that go on with what the first one's body could not hold, one after another. */
async function postContinuations(
  post: PostOne,
  rest: OutsideDiff[],
  context: { key: string; runId: string; url: string | undefined },
): Promise<{ posted: number; failed?: unknown; left: number }> {
  let left = rest
  let posted = 0
  for (let part = 2; left.length > 0 && part <= MAX_REVIEW_PARTS; part++) {
    const next = renderContinuation(left, { ...context, part, firstUrl: context.url })
    try {
      await post('COMMENT', next.body, [])
    } catch (error) {
      return { posted, failed: error, left: left.length }
    }
    posted += 1
    left = next.rest
  }
  return { posted, left: left.length }
}

/**
 * Posts one review, asked again after a transient failure; when GitHub may have made it
 * before its answer was lost, the pull request's reviews are read first, and one carrying this
 * body's marker that was not there before (the same run's earlier review) is the one made.
 */
function postOne(
  octokit: Octokit,
  target: ReviewTarget,
  ours: { identity: string; runId: string; listed: ReadonlySet<number> },
): PostOne {
  return (event, body, comments) => {
    const mark = reviewMarkOf(body)
    return withRetries(
      async (deadline) => {
        const { data } = await octokit.rest.pulls.createReview({
          owner: target.owner,
          repo: target.repo,
          pull_number: target.number,
          commit_id: target.sha,
          event,
          body,
          comments,
          ...deadline,
        })
        return data
      },
      {
        tookEffect: async (deadline) => {
          const reviews = await listReviews(octokit, target, deadline)
          return reviews.find((review) => {
            const its = reviewMarkOf(review.body ?? '')
            return (
              !ours.listed.has(review.id) &&
              review.user?.login === ours.identity &&
              its?.runId === ours.runId &&
              its.key === mark?.key &&
              its.part === mark.part
            )
          })
        },
      },
    )
  }
}

/** The most changed files read; GitHub lists at most 3,000. */
const MAX_FILES = 3_000

/** The pull request's diff as GitHub has it: each changed file's commentable lines. */
async function readDiff(
  octokit: Octokit,
  target: ReviewTarget,
  deadline: Deadline,
): Promise<Map<string, DiffLines>> {
  const files = new Map<string, DiffLines>()
  const pages = octokit.paginate.iterator(octokit.rest.pulls.listFiles, {
    owner: target.owner,
    repo: target.repo,
    pull_number: target.number,
    per_page: 100,
    ...deadline,
  })
  for await (const page of pages) {
    for (const file of page.data) files.set(file.filename, diffLines(file.patch))
    if (files.size >= MAX_FILES) break
  }
  return files
}

function listReviews(octokit: Octokit, target: ReviewTarget, deadline: Deadline) {
  return octokit.paginate(octokit.rest.pulls.listReviews, {
    owner: target.owner,
    repo: target.repo,
    pull_number: target.number,
    per_page: 100,
    ...deadline,
  })
}

interface EarlierReview {
  id: number
  url: string
  body: string
  /** A continuation's part; undefined for a review's first part. */
  part: number | undefined
}

/**
 * This key's reviews by this token on the same head: the ones a new review replaces (with
 * their continuations), and the login the token writes as.
 */
async function earlierReviews(
  octokit: Octokit,
  target: ReviewTarget,
  deadline: Deadline,
): Promise<{ identity: string; earlier: EarlierReview[]; listed: Set<number> }> {
  const [identity, reviews] = await Promise.all([
    tokenIdentity(octokit, deadline),
    listReviews(octokit, target, deadline),
  ])
  const earlier = reviews.flatMap((review) => {
    const body = review.body ?? ''
    const mark = reviewMarkOf(body)
    return review.user?.login === identity &&
      review.commit_id === target.sha &&
      mark?.key === target.key &&
      !body.includes(REPLACED_NOTE)
      ? [{ id: review.id, url: review.html_url, body, part: mark.part }]
      : []
  })
  return { identity, earlier, listed: new Set(reviews.map((review) => review.id)) }
}

const REPLACED_NOTE = '> [!NOTE]\n> A newer review of this commit replaces this one'

/** Says on each earlier review that a newer one replaces it: nothing is replaced silently. */
async function markReplaced(
  octokit: Octokit,
  target: ReviewTarget,
  earlier: readonly EarlierReview[],
  newer: string | undefined,
  log: Log,
): Promise<void> {
  const link = safeHttpUrl(newer)
  for (const review of earlier) {
    const note = `${REPLACED_NOTE}${link ? `: [the newer review](${link})` : ''}.\n\n`
    // The marker stays first, so the note goes after it.
    const [marker = '', ...rest] = review.body.split('\n')
    try {
      await withRetries((deadline) =>
        octokit.rest.pulls.updateReview({
          owner: target.owner,
          repo: target.repo,
          pull_number: target.number,
          review_id: review.id,
          body: clipBody(`${marker}\n${note}${rest.join('\n')}`),
          ...deadline,
        }),
      )
    } catch (error) {
      log.warning(
        `GitHub: could not mark the earlier review ${review.url} as replaced (${reasonOf(error)}).${failureHint(error, REVIEW_PERMISSION)}`,
      )
    }
  }
}
