/**
 * What applying a campaign again skipped, for the job summary: per repository, why no new run
 * was started. Keys are the campaign's and the task's repository's: escaped all the same. Pure.
 */
import { escapeMarkdown } from '../text/markdown.ts'

export function campaignSkips(
  campaign: string,
  skipped: readonly { key: string; why: string }[],
  tasks: number,
): string {
  const lines = [
    `#### Campaign ${escapeMarkdown(campaign)}: ${skipped.length} of ${tasks} repositories need no new run`,
    '',
    '| Repository | Skipped |',
    '| --- | --- |',
    ...skipped.map(({ key, why }) => {
      const repository = key.slice(campaign.length + 1)
      return `| ${escapeMarkdown(repository)} | ${escapeMarkdown(why)} |`
    }),
    '',
  ]
  return `${lines.join('\n')}\n`
}
