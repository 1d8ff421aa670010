/**
 * The review document of `pull_request_review`: the schema the agent's result must validate
 * against, and its type once it has.
 */

export const VERDICTS = ['approve', 'comment', 'request_changes'] as const
export type ReviewVerdict = (typeof VERDICTS)[number]

export interface ReviewComment {
  readonly path: string
  readonly line: number
  readonly start_line?: number
  readonly side?: 'LEFT' | 'RIGHT'
  readonly body: string
}

/** The document, once it has validated against REVIEW_SCHEMA. */
export interface ReviewDocument {
  readonly summary: string
  readonly verdict: ReviewVerdict
  readonly comments: readonly ReviewComment[]
}
/** GitHub's own limits, well inside: a review body and a comment hold at most 65,536 characters. */
const MAX_TEXT = 20_000

/** The built-in schema (draft 2020-12). */
export const REVIEW_SCHEMA = {
  type: 'object',
  required: ['summary', 'verdict', 'comments'],
  additionalProperties: false,
  properties: {
    summary: { type: 'string', maxLength: MAX_TEXT },
    verdict: { enum: [...VERDICTS] },
    comments: {
      type: 'array',
      maxItems: 500,
      items: {
        type: 'object',
        required: ['path', 'line', 'body'],
        additionalProperties: false,
        properties: {
          path: { type: 'string', minLength: 1, maxLength: 1000 },
          line: { type: 'integer', minimum: 1 },
          start_line: { type: 'integer', minimum: 1 },
          side: { enum: ['LEFT', 'RIGHT'] },
          body: { type: 'string', minLength: 1, maxLength: MAX_TEXT },
        },
      },
    },
  },
} as const

/** What the agent is told of the review, before the schema. */
export const REVIEW_INSTRUCTION = [
  "Your result is a review of this pull request's changes. Put each remark you can tie to a",
  'changed line in `comments`: `path` relative to the repository root, `line` in the new version',
  '(`side` RIGHT, the default) or, for a removed line, in the old one (`side` LEFT); `start_line`',
  'for a range. `verdict` is `approve`, `comment` or `request_changes`; `summary` says why.',
].join('\n')
