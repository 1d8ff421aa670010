/**
 * Where a review's comments go, pure: the lines of the pull request's diff (as GitHub has it)
 * a comment may be on, and the agent's comments split into those GitHub takes inline and the
 * rest, which the review's body lists.
 */
import type { ReviewComment } from '../agent/review-document.ts'
import { agentText, normalizePath, type OutsideDiff } from './review-body.ts'

/** GitHub takes many more, but a review of more than this many inline comments reads badly. */
export const MAX_INLINE_COMMENTS = 50

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
  inBody: OutsideDiff[]
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
