/**
 * A review's text, pure: its marker (what ties it to the step that wrote it), the verdict, the
 * agent's summary and the comments outside the diff, within GitHub's limit, continued in the
 * next review when they do not fit. Everything the agent wrote goes through agentMarkdown.
 */
import type { ReviewComment, ReviewDocument, ReviewVerdict } from '../agent/review-document.ts'
import { REVIEW_VERDICT_RECORDS } from '../model/outcome.ts'
import { agentMarkdown, escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import { cut } from '../text/plain.ts'

/** GitHub refuses a review body or a comment longer than this. */
const MAX_BODY_CHARS = 65_536

/** Room kept for our own text around the agent's, in the body. */
const AGENT_TEXT_CHARS = 20_000

/** A comment the review's body lists, with why it is not inline. */
export interface OutsideDiff {
  comment: ReviewComment
  reason: string
}

/** A comment's path as the diff names it. */
export function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/|\/)+/, '')
}

/** The verdict as the summary, comment, status and check say it (one record). */
function verdictHeading(verdict: ReviewVerdict): string {
  const { icon, title } = REVIEW_VERDICT_RECORDS[verdict]
  return `${icon} ${title}`
}

/** The agent's Markdown, made safe, and short enough for GitHub. */
export function agentText(text: string): string {
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
  rest: OutsideDiff[]
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
  inBody: OutsideDiff[],
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
  rest: OutsideDiff[],
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
  comments: OutsideDiff[],
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

/** A review's body within GitHub's limit, cut between lines. */
export function clipBody(body: string): string {
  if (body.length <= MAX_BODY_CHARS) return body
  const note = '\n\n_(The review is cut here: GitHub keeps at most 65,536 characters.)_'
  // Cut between lines, so that no escape or tag is split; agentMarkdown closed every fence.
  const room = body.lastIndexOf('\n', MAX_BODY_CHARS - note.length)
  return body.slice(0, Math.max(0, room)) + note
}
