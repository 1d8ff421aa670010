/**
 * What applying a campaign again did besides starting runs, for the job summary: per
 * repository, why no new run was started (skipped), or which run got the changed instruction
 * (followed up). Keys are the campaign's and the task's repository's: escaped all the same. Pure.
 */
import { escapeMarkdown } from '../text/markdown.ts'
import { cut } from '../text/plain.ts'

export function campaignPlan(
  campaign: string,
  said: readonly { key: string; done: 'skip' | 'follow-up'; why: string }[],
  tasks: number,
): string {
  const skipped = said.filter((one) => one.done === 'skip').length
  const followed = said.length - skipped
  const started = tasks - said.length
  const shown = said.slice(0, MAX_ROWS)
  const table = [
    '| Repository | Done | Why |',
    '| --- | --- | --- |',
    ...shown.map(({ key, done, why }) => {
      const repository = key.slice(campaign.length + 1)
      const word = done === 'skip' ? 'skipped' : 'followed up'
      return `| ${escapeMarkdown(repository)} | ${word} | ${escapeMarkdown(cut(why, MAX_WHY))} |`
    }),
    ...(said.length > shown.length
      ? ['', `${said.length - shown.length} more, each said in the step's log.`]
      : []),
  ]
  const lines = [
    `#### Campaign ${escapeMarkdown(campaign)}: ${started} of ${tasks} repositories started, ${followed} followed up, ${skipped} skipped`,
    '',
    // Applied again, a campaign of hundreds skips hundreds: the headline says it, the rows fold.
    ...(said.length > OPEN_ROWS
      ? [
          '<details>',
          `<summary>The ${said.length} repositories skipped or followed up, one row each</summary>`,
          '',
          ...table,
          '',
          '</details>',
        ]
      : table),
    '',
  ]
  return `${lines.join('\n')}\n`
}

/** Past this many rows, the table is folded away; past `MAX_ROWS`, the rest are the log's. */
const OPEN_ROWS = 50
const MAX_ROWS = 500
/** A reason is a line or two; a longer one (a hostile repository's run) is cut. */
const MAX_WHY = 400
