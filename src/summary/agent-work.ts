import type { ArtifactEntry } from '../agent/artifacts.ts'
import { agentDetails, escapeMarkdown, safeHttpUrl, clipAnswer } from '../text/markdown.ts'
import { clip } from '../text/plain.ts'

/**
 * The parts of the job summary and the comment that show the agent's work:
 * its answer, its files, and what a BLOCKED run waits for. Agent text goes
 * through agentMarkdown; service text through escapeMarkdown.
 */

/** The answer shown in the job summary: GitHub keeps at most 1 MiB of summary per step. */
export const SUMMARY_ANSWER_CHARS = 200_000
/** The summary's block with the agent's final message, open so that it reads at a glance. */
export function renderAnswerBlock(
  answer: string | undefined,
  label = "The agent's answer",
): string | undefined {
  if (answer === undefined || answer.trim() === '') return undefined
  return agentDetails(label, clipAnswer(answer, SUMMARY_ANSWER_CHARS), true)
}

const ICONS: Record<string, string> = {
  PULL_REQUEST: '🔀',
  FILE: '📄',
  SCREENSHOT: '🖼️',
  PLAN: '📝',
}

/** The list of artifacts, with where downloaded files went. */
export function renderArtifacts(
  artifacts: readonly ArtifactEntry[],
  downloadedTo: ReadonlyMap<ArtifactEntry, string>,
  downloadDir: string | undefined,
): string | undefined {
  if (artifacts.length === 0) return undefined
  const lines = ['**Artifacts**', '']
  for (const artifact of artifacts.slice(0, 200)) {
    const icon = ICONS[artifact.type] ?? '📦'
    const label = escapeMarkdown(clip(artifact.filepath ?? artifact.name ?? artifact.type, 300))
    const url = safeHttpUrl(artifact.url)
    const named = url ? `[${label}](${url})` : label
    const path = downloadedTo.get(artifact)
    const where = path ? ` → <code>${escapeMarkdown(path)}</code>` : ''
    lines.push(`- ${icon} ${escapeMarkdown(artifact.type)}: ${named}${where}`)
  }
  if (artifacts.length > 200) lines.push(`- … and ${artifacts.length - 200} more`)
  if (downloadDir && downloadedTo.size > 0) {
    lines.push('', `Downloaded files are in <code>${escapeMarkdown(downloadDir)}</code>.`)
  }
  return lines.join('\n')
}

/** What a BLOCKED run waits for (agent text, shown safely) and how to answer. */
export function renderBlocked(
  question: string | undefined,
  answerWays: { sessionLink: string | undefined; continueRun: boolean },
): string {
  const link = safeHttpUrl(answerWays.sessionLink)
  const ways = [link ? `answer in the [session](${link})` : 'answer in the session, in the app']
  if (answerWays.continueRun) ways.push('reply with a comment here; continue_run passes it on')
  const lines = [
    '> [!WARNING]',
    `> The run is BLOCKED: it waits for a person. To move it on, ${ways.join(', or ')}.`,
    '',
  ]
  if (question) lines.push(agentDetails('What it waits for', clip(question, 20_000), true), '')
  return lines.join('\n')
}
