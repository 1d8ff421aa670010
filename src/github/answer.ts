import { agentMarkdown, clipAnswer } from '../text/markdown.ts'

/** The answer in a comment, leaving room for the rest of it within GitHub's 65,536 characters. */
export const COMMENT_ANSWER_CHARS = 50_000

/** The answer as the body of a comment (below the comment's own headline). */
export function renderCommentAnswer(answer: string | undefined): string | undefined {
  if (answer === undefined || answer.trim() === '') return undefined
  return agentMarkdown(clipAnswer(answer, COMMENT_ANSWER_CHARS)) || undefined
}
