/**
 * The campaign report's reading of the forge (v1.5, "Tracking"): each GitHub pull request the
 * campaign's runs opened, read with `github_token`; without one, or for a GitLab merge request,
 * its link and "state unknown", with why.
 */
import { loadOctokit } from '../github/octokit.ts'
import { readPullStatuses } from '../github/pull-states.ts'
import type { Log } from '../log.ts'
import { pullAddressOf, type PullAddress } from '../model/pull-status.ts'
import type { Period } from './period.ts'
import { trackCampaign, type CampaignTracking } from './repositories.ts'
import type { LedgerRow } from './rows.ts'

export async function readCampaignTracking(
  rows: readonly LedgerRow[],
  what: { period: Period; githubToken: string; apiUrl: string | undefined },
  deps: { deadline: number; log: Log },
): Promise<CampaignTracking> {
  const pulls = new Map<string, PullAddress>()
  for (const row of rows) {
    const address = row.pullRequest ? pullAddressOf(row.pullRequest.url) : undefined
    if (address) pulls.set(address.url, address)
  }
  const notRead = (url: string) =>
    !pulls.has(url)
      ? 'a merge request is not read'
      : what.githubToken
        ? 'not read'
        : 'no github_token to read it'
  if (pulls.size === 0 || !what.githubToken) {
    return trackCampaign(rows, new Map(), what.period, notRead)
  }
  const octokit = await loadOctokit(what.githubToken, what.apiUrl)
  const statuses = await readPullStatuses(octokit, [...pulls.values()], deps.deadline)
  const unknown = [...statuses.values()].filter((status) => 'unknown' in status).length
  deps.log.info(
    `Read ${pulls.size - unknown} of ${pulls.size} pull requests' state, checks and review from GitHub.`,
  )
  return trackCampaign(rows, statuses, what.period, notRead)
}
