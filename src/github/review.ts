/**
 * `pull_request_review`: the agent's review document becomes one pull-request review with
 * inline comments, written with the workflow's token, so the agent needs no GitHub access.
 * Comments are anchored against the pull request's diff as GitHub has it; one that GitHub
 * would refuse (a file or a line outside the diff) moves into the review's body, with its
 * `path:line`, and is never dropped. Everything the agent wrote goes through agentMarkdown.
 */
import type { ReviewComment, ReviewDocument, ReviewVerdict } from '../agent/review-document.ts'
import type { Log } from '../log.ts'
import { REVIEW_VERDICT_RECORDS } from '../model/outcome.ts'
import { agentMarkdown, escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import { cut } from '../text/plain.ts'
import {
  failureHint,
  reasonOf,
  tokenIdentity,
  withRetries,
  type Deadline,
  type Octokit,
} from './octokit.ts'

/** GitHub takes many more, but a review of more than this many inline comments reads badly. */
export const MAX_INLINE_COMMENTS = 50

/** GitHub refuses a review body or a comment longer than this. */
const MAX_BODY_CHARS = 65_536

/** Room kept for our own text around the agent's, in the body. */
const AGENT_TEXT_CHARS = 20_000

export type Side = 'LEFT' | 'RIGHT'

/** The lines of one file that a review comment may be on, each with its hunk's number. */
export interface DiffLines {
  readonly RIGHT: ReadonlyMap<number, number>
  readonly LEFT: ReadonlyMap<number, number>
}

/**
 * Reads a unified diff's hunks (GitHub's `patch` of a file): context and added lines are on
 * the RIGHT at their new number, context and removed lines on the LEFT at their old number.
 * One pass; a patch GitHub left out (a binary or huge file) has no lines.
 */
export function diffLines(patch: string | undefined): DiffLines {
  const right = new Map<number, number>()
  const left = new Map<number, number>()
  let hunk = -1
  let oldLine = 0
  let newLine = 0
  for (const line of (patch ?? '').split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line)
    if (header) {
      hunk += 1
      oldLine = Number(header[1])
      newLine = Number(header[2])
      continue
    }
    if (hunk < 0) continue
    const mark = line.charAt(0)
    if (mark === '+') {
      right.set(newLine++, hunk)
    } else if (mark === '-') {
      left.set(oldLine++, hunk)
    } else if (mark === ' ' || line === '') {
      right.set(newLine++, hunk)
      left.set(oldLine++, hunk)
    }
    // `\ No newline at end of file` belongs to no side.
  }
  return { RIGHT: right, LEFT: left }
}

/** A comment as GitHub's "create a review" takes it. */
export interface InlineComment {
  path: string
  line: number
  side: Side
  start_line?: number
  start_side?: Side
  body: string
}

export interface AnchoredComments {
  inline: InlineComment[]
  /** Comments GitHub would refuse inline, or past the first 50: listed in the body. */
  inBody: Array<{ comment: ReviewComment; reason: string }>
}

/** Splits the comments into those GitHub takes on the diff, and the rest. */
export function anchorComments(
  comments: readonly ReviewComment[],
  files: ReadonlyMap<string, DiffLines>,
  max = MAX_INLINE_COMMENTS,
): AnchoredComments {
  const anchored: AnchoredComments = { inline: [], inBody: [] }
  for (const comment of comments) {
    const path = normalizePath(comment.path)
    const side: Side = comment.side ?? 'RIGHT'
    const lines = files.get(path)?.[side]
    const hunk = lines?.get(comment.line)
    if (!lines) {
      anchored.inBody.push({ comment, reason: 'the file is not in the diff' })
    } else if (hunk === undefined) {
      anchored.inBody.push({ comment, reason: 'the line is not in the diff' })
    } else if (anchored.inline.length >= max) {
      anchored.inBody.push({ comment, reason: `past the first ${max} inline comments` })
    } else {
      const start = comment.start_line
      // A range must lie within one hunk; else the comment stays on its last line.
      const range =
        start !== undefined && start < comment.line && lines.get(start) === hunk
          ? { start_line: start, start_side: side }
          : {}
      anchored.inline.push({
        path,
        line: comment.line,
        side,
        ...range,
        body: agentText(comment.body),
      })
    }
  }
  return anchored
}

function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/|\/)+/, '')
}

/** The agent's Markdown, made safe, and short enough for GitHub. */
/** The verdict as the summary, comment, status and check say it (one record). */
function verdictHeading(verdict: ReviewVerdict): string {
  const { icon, title } = REVIEW_VERDICT_RECORDS[verdict]
  return `${icon} ${title}`
}

function agentText(text: string): string {
  const shown =
    text.length > AGENT_TEXT_CHARS ? `${cut(text, AGENT_TEXT_CHARS)}\n\n_(cut here)_` : text
  return agentMarkdown(shown) || '_(empty)_'
}

/**
 * What ties a review to the step that wrote it: a later step on the same head says so, and a
 * review whose answer was lost is found by it. `part` numbers the reviews a long list of
 * comments outside the diff goes on in (the first has none).
 */
export function reviewMarker(key: string, runId: string, part?: number): string {
  // JSON of our own key and the service's ID; `--` cannot end the comment early.
  const json = JSON.stringify({ key, run_id: runId, ...(part ? { part } : {}) })
  return `<!-- cloud-agent-review: ${json.replace(/--/g, '-\\u002d')} -->`
}

/** What a review body's marker says, when it has one. */
export function reviewMarkOf(
  body: string,
): { key: string; runId: string | undefined; part: number | undefined } | undefined {
  const match = /<!-- cloud-agent-review: (\{.*?\}) -->/.exec(body)
  if (!match?.[1]) return undefined
  try {
    const { key, run_id: runId, part } = JSON.parse(match[1]) as Record<string, unknown>
    if (typeof key !== 'string') return undefined
    return {
      key,
      runId: typeof runId === 'string' ? runId : undefined,
      part: typeof part === 'number' ? part : undefined,
    }
  } catch {
    return undefined
  }
}

/** The key in a review body's marker, when it has one. */
export function reviewKeyOf(body: string): string | undefined {
  return reviewMarkOf(body)?.key
}

export interface ReviewBodyContext {
  key: string
  runId: string
  sessionLink?: string
  /** Earlier reviews of the same head by this step's key, which this one replaces. */
  replaces: readonly string[]
}

/** A review's body, and the comments outside the diff that did not fit in it. */
export interface ReviewBody {
  body: string
  rest: AnchoredComments['inBody']
}

/** The most reviews one review takes, with the ones its comments outside the diff go on in. */
export const MAX_REVIEW_PARTS = 10

/**
 * The review's body: the verdict, the agent's summary, and the comments that are not inline,
 * as many as GitHub's 65,536 characters hold. The body says how many more follow, in the
 * next review (`renderContinuation`): none is dropped.
 */
export function renderReviewBody(
  review: ReviewDocument,
  inBody: AnchoredComments['inBody'],
  context: ReviewBodyContext,
): ReviewBody {
  const head = [reviewMarker(context.key, context.runId), `### ${verdictHeading(review.verdict)}`]
  if (review.verdict === 'approve') {
    head.push('', '_Posted as a comment: the action never approves a pull request._')
  }
  head.push('', agentText(review.summary))
  if (inBody.length > 0) head.push('', `**Comments outside the diff (${inBody.length})**`)
  const footer: string[] = []
  const session = safeHttpUrl(context.sessionLink)
  if (session) footer.push(`[Session](${session})`)
  footer.push(`run <code>${escapeMarkdown(context.runId)}</code>`)
  const replaced = context.replaces.flatMap((url) => safeHttpUrl(url) ?? [])
  if (replaced.length > 0) {
    footer.push(
      `replaces ${replaced.map((url, i) => `[the earlier review${replaced.length > 1 ? ` ${i + 1}` : ''}](${url})`).join(', ')} of this commit`,
    )
  }
  return fillBody(head, inBody, `<sub>${footer.join(' · ')}</sub>`, {
    first: true,
    last: false,
  })
}

/**
 * A review that goes on with the comments outside the diff the one before could not hold:
 * part `part` of the review `firstUrl` links to.
 */
export function renderContinuation(
  rest: AnchoredComments['inBody'],
  context: { key: string; runId: string; part: number; firstUrl: string | undefined },
): ReviewBody {
  const first = safeHttpUrl(context.firstUrl)
  const head = [
    reviewMarker(context.key, context.runId, context.part),
    `### 💬 Comments outside the diff, continued (${rest.length} more)`,
    '',
    `_This review is ${first ? `continued from [the review](${first})` : 'the continuation of the review'} of run <code>${escapeMarkdown(context.runId)}</code>, whose body could not hold every comment._`,
  ]
  return fillBody(head, rest, `<sub>run <code>${escapeMarkdown(context.runId)}</code></sub>`, {
    first: false,
    last: context.part >= MAX_REVIEW_PARTS,
  })
}

/** Room kept for the line that says how many comments follow. */
const POINTER_CHARS = 300

/**
 * `head`, then as many of `comments` as fit, then `footer`, within GitHub's limit. A
 * continuation always takes its first comment, cut if it alone is too long, so every part
 * moves the list on.
 */
function fillBody(
  head: readonly string[],
  comments: AnchoredComments['inBody'],
  footer: string,
  part: { first: boolean; last: boolean },
): ReviewBody {
  const end = `\n\n---\n${footer}`
  const room = MAX_BODY_CHARS - end.length - POINTER_CHARS
  let text = clipText(head.join('\n'), room)
  let placed = 0
  for (const { comment, reason } of comments) {
    const where = `${escapeMarkdown(normalizePath(comment.path))}:${comment.line}`
    const block = `\n\n<code>${where}</code> (${reason})\n\n${agentText(comment.body)}`
    if (text.length + block.length <= room) {
      text += block
    } else if (placed === 0 && !part.first) {
      text = clipText(text + block, room)
    } else {
      break
    }
    placed += 1
  }
  const rest = comments.slice(placed)
  if (rest.length > 0) {
    text += part.last
      ? `\n\n_${rest.length} more comments outside the diff did not fit in ${MAX_REVIEW_PARTS} reviews: every comment is in the step's \`structured_output\` output._`
      : `\n\n_${rest.length} more comments outside the diff are in the next review._`
  }
  return { body: text + end, rest: part.last ? [] : rest }
}

/** `text` within `max` characters, cut between lines so that no escape or tag is split. */
function clipText(text: string, max: number): string {
  if (text.length <= max) return text
  const note = '\n\n_(cut here: GitHub keeps at most 65,536 characters.)_'
  // Cut between lines, so that no escape or tag is split.
  const at = text.lastIndexOf('\n', max - note.length)
  return text.slice(0, Math.max(0, at)) + note
}

function clipBody(body: string): string {
  if (body.length <= MAX_BODY_CHARS) return body
  const note = '\n\n_(The review is cut here: GitHub keeps at most 65,536 characters.)_'
  // Cut between lines, so that no escape or tag is split; agentMarkdown closed every fence.
  const room = body.lastIndexOf('\n', MAX_BODY_CHARS - note.length)
  return body.slice(0, Math.max(0, room)) + note
}

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
    const body = (inBody: AnchoredComments['inBody']) =>
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
  rest: AnchoredComments['inBody'],
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
