/**
 * `cloud-agent-run campaign close NAME --comment TEXT` (v1.5, "Verbs"): closes the campaign's
 * open pull requests, each with the maintainer's comment. It reads what the report reads (the
 * campaign's runs, the pull requests they opened, each one's state on GitHub), closes the open
 * and draft ones, and says of every pull request what it did: outputs `closed` and `left`.
 */
import { closePulls } from '../github/close-pulls.ts'
import { loadOctokit } from '../github/octokit.ts'
import { readPullStatuses } from '../github/pull-states.ts'
import { InputError } from '../input-error.ts'
import { pullAddressOf, type PullAddress } from '../model/pull-status.ts'
import { serviceClient } from '../service.ts'
import type { InputSource, StepIo } from '../step-io.ts'
import { runStepBody } from '../summary/publish.ts'
import { safeForLog } from '../text/log.ts'
import { escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import { collectRows } from './collect.ts'
import { readReportSettings } from './inputs.ts'

/** How long listing, reading and closing may take, all together. */
const CLOSE_DEADLINE_MS = 10 * 60_000
/** GitHub takes a comment of at most this many characters. */
const MAX_COMMENT = 65_536

export async function run(io: StepIo, inputs: InputSource): Promise<{ error?: unknown }> {
  const ended = await runStepBody(io, async () => {
    const now = Date.now()
    const settings = readReportSettings(inputs, now)
    const campaign = settings.campaign
    if (!campaign)
      throw new InputError('campaign', 'names the campaign whose pull requests to close.')
    const comment = inputs.get('comment')
    if (!comment || comment.length > MAX_COMMENT) {
      throw new InputError(
        'comment',
        `is the comment each pull request is closed with: give one of at most ${MAX_COMMENT} characters.`,
      )
    }
    if (!settings.githubToken) {
      throw new InputError(
        'github_token',
        "is needed to close pull requests: a token with pull requests write on the campaign's repositories (GITHUB_TOKEN for the command).",
      )
    }
    const deps = { deadline: now + CLOSE_DEADLINE_MS, log: io }
    const client = serviceClient(settings, io)
    const what = { period: settings.period, home: undefined, campaign }
    const { rows } = await collectRows(client, what, deps)
    const pulls = new Map<string, PullAddress>()
    const left: { pull_request: string; why: string }[] = []
    const seen = new Set<string>()
    for (const row of rows) {
      const url = row.pullRequest?.url
      if (!url || seen.has(url)) continue
      seen.add(url)
      const address = pullAddressOf(url)
      if (address) pulls.set(url, address)
      else left.push({ pull_request: url, why: 'a merge request is not closed by this command' })
    }
    const octokit = await loadOctokit(settings.githubToken, inputs.world.apiUrl)
    const statuses = await readPullStatuses(octokit, [...pulls.values()], deps.deadline, {
      stateOnly: true,
    })
    const open: PullAddress[] = []
    for (const [url, status] of statuses) {
      const address = pulls.get(url)
      if ('unknown' in status) left.push({ pull_request: url, why: status.unknown })
      else if (status.state === 'open' || status.state === 'draft') {
        if (address) open.push(address)
      } else left.push({ pull_request: url, why: `already ${status.state}` })
    }
    const results = await closePulls(octokit, open, comment, deps.deadline)
    const closed = results.filter((one) => one.closed).map((one) => one.url)
    for (const one of results) {
      if (!one.closed) left.push({ pull_request: one.url, why: one.why })
    }
    for (const url of closed) io.info(`Closed ${safeForLog(url, 300)}.`)
    for (const one of left) {
      io.info(`Left ${safeForLog(one.pull_request, 300)}: ${safeForLog(one.why, 300)}.`)
    }
    io.setOutput('closed', JSON.stringify(closed))
    io.setOutput('left', JSON.stringify(left))
    await io.appendSummary(closeSummary(campaign, closed, left)).catch(() => {})
    const failed = results.filter((one) => !one.closed)
    io.info(
      `Campaign ${campaign}: closed ${closed.length} of ${open.length} open pull requests; ${left.length} left as they are.`,
    )
    if (failed.length > 0) {
      io.setFailed(
        `${failed.length} of the campaign's open pull requests could not be closed: ${failed.map((one) => `${one.url} (${one.why})`).join('; ')}`,
      )
    }
  })
  return 'error' in ended ? { error: ended.error } : {}
}

/** What closing did, for the summary (and the command's plain text): each pull request once. */
function closeSummary(
  campaign: string,
  closed: readonly string[],
  left: readonly { pull_request: string; why: string }[],
): string {
  const link = (url: string) => {
    const safe = safeHttpUrl(url)
    const address = pullAddressOf(url)
    const name = address ? `${address.owner}/${address.repo}#${address.number}` : url
    return safe ? `[${escapeMarkdown(name)}](${safe})` : escapeMarkdown(url)
  }
  const lines = [
    `### Campaign ${escapeMarkdown(campaign)}: closed ${closed.length} pull ${closed.length === 1 ? 'request' : 'requests'}`,
    '',
    ...closed.map((url) => `- closed ${link(url)}`),
    ...left.map((one) => `- left ${link(one.pull_request)}: ${escapeMarkdown(one.why)}`),
    '',
  ]
  return `${lines.join('\n')}\n`
}
