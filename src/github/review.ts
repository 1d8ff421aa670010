/**
 * `pull_request_review`: the agent's review document becomes one pull-request review with
 * inline comments, written with the workflow's token, so the agent needs no GitHub access.
 * Comments are anchored against the pull request's diff as GitHub has it; one that GitHub
 * would refuse (a file or a line outside the diff) moves into the review's body, with its
 * `path:line`, and is never dropped. Everything the agent wrote goes through agentMarkdown.
 */
import type { ReviewComment, ReviewDocument, ReviewVerdict } from '../agent/review-document.ts'
import type { Log } from '../log.ts'
import { agentMarkdown, escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import { cut } from '../text/plain.ts'
import { reasonOf, tokenIdentity, withDeadline, type Octokit } from './octokit.ts'

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
function agentText(text: string): string {
  const shown =
    text.length > AGENT_TEXT_CHARS ? `${cut(text, AGENT_TEXT_CHARS)}\n\n_(cut here)_` : text
  return agentMarkdown(shown) || '_(empty)_'
}

const VERDICT_WORDS: Record<ReviewVerdict, string> = {
  approve: '✅ Approve',
  comment: '💬 Comment',
  request_changes: '❌ Changes requested',
}

/** What ties a review to the step that wrote it: a later step on the same head says so. */
export function reviewMarker(key: string, runId: string): string {
  // JSON of our own key and the service's ID; `--` cannot end the comment early.
  return `<!-- cloud-agent-review: ${JSON.stringify({ key, run_id: runId }).replace(/--/g, '-\\u002d')} -->`
}

/** The key in a review body's marker, when it has one. */
export function reviewKeyOf(body: string): string | undefined {
  const match = /<!-- cloud-agent-review: (\{.*?\}) -->/.exec(body)
  if (!match?.[1]) return undefined
  try {
    const key: unknown = (JSON.parse(match[1]) as { key?: unknown }).key
    return typeof key === 'string' ? key : undefined
  } catch {
    return undefined
  }
}

export interface ReviewBodyContext {
  key: string
  runId: string
  sessionLink?: string
  /** Earlier reviews of the same head by this step's key, which this one replaces. */
  replaces: readonly string[]
}

/** The review's body: the verdict, the agent's summary, and the comments that are not inline. */
export function renderReviewBody(
  review: ReviewDocument,
  inBody: AnchoredComments['inBody'],
  context: ReviewBodyContext,
): string {
  const lines = [reviewMarker(context.key, context.runId), `### ${VERDICT_WORDS[review.verdict]}`]
  if (review.verdict === 'approve') {
    lines.push('', '_Posted as a comment: the action never approves a pull request._')
  }
  lines.push('', agentText(review.summary))
  if (inBody.length > 0) {
    lines.push('', `**Comments outside the diff (${inBody.length})**`)
    for (const { comment, reason } of inBody) {
      const where = `${escapeMarkdown(normalizePath(comment.path))}:${comment.line}`
      lines.push('', `<code>${where}</code> (${reason})`, '', agentText(comment.body))
    }
  }
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
  lines.push('', '---', `<sub>${footer.join(' · ')}</sub>`)
  return clipBody(lines.join('\n'))
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

/**
 * Posts the review: reads the diff, anchors the comments, and writes one review. A 422 (the
 * diff moved under us) is retried once with every comment in the body. A re-run on the same
 * head points to the review it replaces, and the earlier one is marked as replaced. Any GitHub
 * failure is a warning; the run's outcome is not affected.
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
    const [files, earlier] = await Promise.all([
      readDiff(octokit, target),
      earlierReviews(octokit, target),
    ])
    const anchored = anchorComments(review.comments, files)
    const body = (inBody: AnchoredComments['inBody']) =>
      renderReviewBody(review, inBody, {
        key: target.key,
        ...context,
        replaces: earlier.map((r) => r.url),
      })
    const event = review.verdict === 'request_changes' ? 'REQUEST_CHANGES' : 'COMMENT'
    let created: { id: number; html_url?: string }
    let inBody = anchored.inBody
    try {
      created = await createReview(octokit, target, event, body(inBody), anchored.inline)
    } catch (error) {
      if ((error as { status?: number }).status !== 422 || anchored.inline.length === 0) throw error
      log.warning(
        `GitHub: the review's inline comments on ${pr} were refused (${reasonOf(error)}); posting them in the review's body instead.`,
      )
      inBody = [
        ...review.comments.map((comment) => ({ comment, reason: 'GitHub refused it inline' })),
      ]
      created = await createReview(octokit, target, event, body(inBody), [])
    }
    const url = created.html_url
    log.info(
      `Posted the review on ${pr}: ${event === 'REQUEST_CHANGES' ? 'changes requested' : 'a comment review'}, ${review.comments.length - inBody.length} inline comment(s), ${inBody.length} in its body.${url ? ` ${url}` : ''}`,
    )
    await markReplaced(octokit, target, earlier, url, log)
    return { url, inline: review.comments.length - inBody.length, inBody: inBody.length }
  } catch (error) {
    log.warning(
      `GitHub: could not post the review on ${pr} (${reasonOf(error)}). pull_request_review needs pull-requests: write. The run is not affected.`,
    )
    return undefined
  }
}

async function createReview(
  octokit: Octokit,
  target: ReviewTarget,
  event: 'COMMENT' | 'REQUEST_CHANGES',
  body: string,
  comments: InlineComment[],
): Promise<{ id: number; html_url?: string }> {
  const { data } = await octokit.rest.pulls.createReview({
    owner: target.owner,
    repo: target.repo,
    pull_number: target.number,
    commit_id: target.sha,
    event,
    body,
    comments,
    ...withDeadline(),
  })
  return data
}

/** The most changed files read; GitHub lists at most 3,000. */
const MAX_FILES = 3_000

/** The pull request's diff as GitHub has it: each changed file's commentable lines. */
async function readDiff(octokit: Octokit, target: ReviewTarget): Promise<Map<string, DiffLines>> {
  const files = new Map<string, DiffLines>()
  const pages = octokit.paginate.iterator(octokit.rest.pulls.listFiles, {
    owner: target.owner,
    repo: target.repo,
    pull_number: target.number,
    per_page: 100,
    ...withDeadline(),
  })
  for await (const page of pages) {
    for (const file of page.data) files.set(file.filename, diffLines(file.patch))
    if (files.size >= MAX_FILES) break
  }
  return files
}

interface EarlierReview {
  id: number
  url: string
  body: string
}

/** This key's reviews by this token on the same head: the ones a new review replaces. */
async function earlierReviews(octokit: Octokit, target: ReviewTarget): Promise<EarlierReview[]> {
  const [identity, reviews] = await Promise.all([
    tokenIdentity(octokit),
    octokit.paginate(octokit.rest.pulls.listReviews, {
      owner: target.owner,
      repo: target.repo,
      pull_number: target.number,
      per_page: 100,
      ...withDeadline(),
    }),
  ])
  return reviews
    .filter(
      (review) =>
        review.user?.login === identity &&
        review.commit_id === target.sha &&
        reviewKeyOf(review.body ?? '') === target.key &&
        !(review.body ?? '').includes(REPLACED_NOTE),
    )
    .map((review) => ({ id: review.id, url: review.html_url, body: review.body ?? '' }))
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
      await octokit.rest.pulls.updateReview({
        owner: target.owner,
        repo: target.repo,
        pull_number: target.number,
        review_id: review.id,
        body: clipBody(`${marker}\n${note}${rest.join('\n')}`),
        ...withDeadline(),
      })
    } catch (error) {
      log.warning(
        `GitHub: could not mark the earlier review ${review.url} as replaced (${reasonOf(error)}).`,
      )
    }
  }
}
