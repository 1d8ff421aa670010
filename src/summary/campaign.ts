/**
 * What applying a campaign again did besides starting runs, for the job summary: per
 * repository, why no new run was started (skipped), or which run got the changed instruction
 * (followed up). Keys are the campaign's and the task's repository's: escaped all the same. Pure.
 */
import { escapeMarkdown } from '../text/markdown.ts'

export function campaignPlan(
  campaign: string,
  said: readonly { key: string; done: 'skip' | 'follow-up'; why: string }[],
  tasks: number,
): string {
  const skipped = said.filter((one) => one.done === 'skip').length
  const followed = said.length - skipped
  const started = tasks - said.length
  const lines = [
    `#### Campaign ${escapeMarkdown(campaign)}: ${started} of ${tasks} repositories started, ${followed} followed up, ${skipped} skipped`,
    '',
    '| Repository | Done | Why |',
    '| --- | --- | --- |',
    ...said.map(({ key, done, why }) => {
      const repository = key.slice(campaign.length + 1)
      const word = done === 'skip' ? 'skipped' : 'followed up'
      return `| ${escapeMarkdown(repository)} | ${word} | ${escapeMarkdown(why)} |`
    }),
    '',
  ]
  return `${lines.join('\n')}\n`
}
