/**
 * A campaign as its maintainer tracks it (v1.5, "Tracking"): one line per repository, with its
 * runs' latest outcome, session and spend, the pull request they opened and, where the forge was
 * read, that pull request's state, checks and review; the totals; and the burndown (open against
 * merged pull requests per day). Pure: rows and pull request states in, figures out.
 */
import { repositoryName } from '../model/campaign.ts'
import type { PullState, PullStatus, PullUnknown } from '../model/pull-status.ts'
import { roundTo } from '../text/format.ts'
import type { Forge } from '../world.ts'
import { daysOf, type Period } from './period.ts'
import type { LedgerRow } from './rows.ts'

/** One repository of a campaign. */
export interface RepositoryLine {
  /** As a task names it: `owner/repo`, `gitlab:group/app`. */
  readonly repository: string
  readonly forge: Forge | undefined
  readonly project: string
  /** Its runs (an agent's children counted with their root) and what they all used. */
  readonly runs: number
  readonly credits: number
  readonly costUsd: number
  /** Its newest run: its outcome, session and ID. */
  readonly runId: string
  readonly outcome: string
  readonly link: string
  /** The pull or merge request its newest run that opened one opened; '' for none. */
  readonly pullRequest: string
  /** What the forge says of it; `unknown` (and why) where it was not read; undefined for none. */
  readonly status: PullStatus | PullUnknown | undefined
}

/** The campaign's totals, burndown and lines (the report's `campaign` member). */
export interface CampaignTracking {
  readonly repositories: number
  readonly pullRequests: Readonly<Record<PullState | 'unknown', number>>
  /** Open (or draft) pull requests whose checks fail. */
  readonly checksFailing: number
  readonly changesRequested: number
  /** Every day of the period, oldest first: pull requests open at its end, and merged by it. */
  readonly burndown: readonly { day: string; open: number; merged: number }[]
  readonly lines: readonly RepositoryLine[]
}

/** A row's repository, as a campaign's task names it. */
function repositoryOf(row: LedgerRow): string {
  return row.forge ? repositoryName({ forge: row.forge, project: row.project }) : row.project
}

/**
 * The campaign's lines, by repository name, and its totals. `statuses` holds what the forge said
 * of each pull request, by its URL; a pull request missing from it is "state unknown".
 */
export function trackCampaign(
  rows: readonly LedgerRow[],
  statuses: ReadonlyMap<string, PullStatus | PullUnknown>,
  period: Period,
  /** Why a pull request missing from `statuses` is unknown: no token, a GitLab merge request. */
  notRead: (url: string) => string,
): CampaignTracking {
  const byRepository = new Map<string, LedgerRow[]>()
  for (const row of rows) {
    const name = repositoryOf(row)
    const list = byRepository.get(name)
    if (list) list.push(row)
    else byRepository.set(name, [row])
  }
  const lines = [...byRepository]
    .map(([repository, own]) =>
      lineOf(repository, own, (url) => statuses.get(url) ?? { unknown: notRead(url) }),
    )
    .sort((a, b) => a.repository.localeCompare(b.repository))
  const pullRequests = { draft: 0, open: 0, merged: 0, closed: 0, unknown: 0 }
  let checksFailing = 0
  let changesRequested = 0
  for (const line of lines) {
    if (!line.pullRequest) continue
    const status = line.status
    if (!status || 'unknown' in status) {
      pullRequests.unknown += 1
      continue
    }
    pullRequests[status.state] += 1
    if (status.checks === 'failing') checksFailing += 1
    if (status.review === 'changes_requested') changesRequested += 1
  }
  return {
    repositories: lines.length,
    pullRequests,
    checksFailing,
    changesRequested,
    burndown: burndownOf(lines, period),
    lines,
  }
}

function lineOf(
  repository: string,
  rows: readonly LedgerRow[],
  statusOf: (url: string) => PullStatus | PullUnknown,
): RepositoryLine {
  const newestFirst = [...rows].sort(
    (a, b) => b.created.localeCompare(a.created) || b.runId.localeCompare(a.runId),
  )
  const trees = newestFirst.filter((row) => row.parentRunId === '')
  const latest = trees[0] ?? newestFirst[0]
  const opened = newestFirst.find((row) => row.pullRequest)?.pullRequest?.url ?? ''
  let credits = 0
  let usd = 0
  for (const row of rows) {
    credits += row.credits
    usd += row.costUsd ?? 0
  }
  return {
    repository,
    forge: latest?.forge,
    project: latest?.project ?? '',
    runs: trees.length,
    credits: roundTo(credits, 4),
    costUsd: roundTo(usd, 4),
    runId: latest?.runId ?? '',
    outcome: latest?.outcome ?? '',
    link: latest?.link ?? '',
    pullRequest: opened,
    status: opened ? statusOf(opened) : undefined,
  }
}

/**
 * Per day of the period: the pull requests open (or draft) at the day's end, and those merged
 * by then. A pull request whose state was not read counts in neither.
 */
function burndownOf(
  lines: readonly RepositoryLine[],
  period: Period,
): { day: string; open: number; merged: number }[] {
  const known = lines.flatMap((line) =>
    line.status && !('unknown' in line.status) ? [line.status] : [],
  )
  return daysOf(period).map((day) => {
    const end = `${day}T23:59:59.999Z`
    let open = 0
    let merged = 0
    for (const pull of known) {
      if (!pull.createdAt || pull.createdAt > end) continue
      if (pull.mergedAt && pull.mergedAt <= end) merged += 1
      else if (!pull.closedAt || pull.closedAt > end) open += 1
    }
    return { day, open, merged }
  })
}
