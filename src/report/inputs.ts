/**
 * Reads and checks the `report` action's inputs (report/action.yml), or the `report` command's
 * flags, before any request: a bad one is an InputError naming it, and nothing is listed.
 */
import { lstatSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { readCreditBudgets } from '../inputs/budgets.ts'
import { readConnection, type Connection } from '../inputs/connection.ts'
import { InputError } from '../input-error.ts'
import { readGitHubToken } from '../inputs/github.ts'
import { readCampaign } from '../inputs/values.ts'
import type { InputSource } from '../step-io.ts'
import type { Forge } from '../world.ts'
import { parsePeriod, type Period } from './period.ts'
import type { Budgets, UnitChoice } from './sums.ts'

export interface ReportSettings extends Connection {
  readonly period: Period
  readonly scope: 'project' | 'all'
  /** The project whose runs the report counts (`scope: project`), and its forge. */
  readonly project: string | undefined
  readonly forge: Forge | undefined
  /** Where runs.csv, runs.json and report.md go; '' for nowhere. */
  readonly reportDir: string
  readonly budgets: Budgets
  /** The unit the summary shows: `auto` (dollars where every run reports them), `usd`, `credits`. */
  readonly unit: UnitChoice
  /** `campaign`: the campaign's runs, of every repository, by repository; undefined for none. */
  readonly campaign?: string
  /** With `campaign`: the token that reads its pull requests' state, checks and review; '' for none. */
  readonly githubToken?: string
}

const DEFAULT_PERIOD = '7d'
/** A campaign's runs and pull requests go on for weeks: its report looks back further. */
const CAMPAIGN_PERIOD = '90d'

/** Reads the report's inputs at `now`. Throws InputError before any request. */
export function readReportSettings(source: InputSource, now: number): ReportSettings {
  const campaign = readCampaign(source)
  const given = source.get('period') || (campaign ? CAMPAIGN_PERIOD : DEFAULT_PERIOD)
  const period = parsePeriod(given, now)
  if (!period) {
    throw new InputError(
      'period',
      `must be a duration back from now, such as 24h, 7d or 30d (at most a year), a month such as 2026-11 (not in the future), or last-month; got "${given}".`,
    )
  }
  const scope = source.get('scope') || 'project'
  if (scope !== 'project' && scope !== 'all') {
    throw new InputError('scope', `must be project or all; got "${scope}".`)
  }
  const unit = source.get('unit') || 'auto'
  if (unit !== 'auto' && unit !== 'usd' && unit !== 'credits') {
    throw new InputError('unit', `must be auto, usd or credits; got "${unit}".`)
  }
  if (campaign) {
    // A campaign's runs are of many repositories: the campaign names them, grouped by each.
    return {
      ...readConnection(source),
      period,
      scope: 'all',
      project: undefined,
      forge: source.world.forge,
      reportDir: readReportDir(source),
      budgets: readCreditBudgets(source),
      unit,
      campaign,
      githubToken: readGitHubToken(source),
    }
  }
  const { project, forge } = source.world
  if (scope === 'project' && !project) {
    throw new InputError(
      'scope',
      'is project, and no project is named: outside GitHub and GitLab, name it with --project, or report every project the key can list with scope all.',
    )
  }
  return {
    ...readConnection(source),
    period,
    scope,
    project: scope === 'project' ? project : undefined,
    forge,
    reportDir: readReportDir(source),
    budgets: readCreditBudgets(source),
    unit,
  }
}

/** `report_dir`, inside the workspace: the report never writes outside it. */
function readReportDir(source: InputSource): string {
  const dir = source.get('report_dir')
  if (!dir) return ''
  if (dir.includes('\0')) throw new InputError('report_dir', 'must not hold a NUL character.')
  const { workspace } = source.world
  const full = resolve(workspace, dir)
  const inside = relative(workspace, full)
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new InputError(
      'report_dir',
      `must be a folder inside the workspace (${workspace}); got "${dir}".`,
    )
  }
  // A checked-out change can hold `reports -> /`: no folder on the way may be a link or a file.
  let folder = workspace
  for (const part of inside.split(sep).filter(Boolean)) {
    folder = join(folder, part)
    const stats = lstatSync(folder, { throwIfNoEntry: false })
    if (!stats) break
    if (part.toLowerCase() === '.git' || !stats.isDirectory()) {
      throw new InputError(
        'report_dir',
        `must be a plain folder inside the workspace; "${folder}" is ${part.toLowerCase() === '.git' ? 'inside .git' : 'a link or a file'}, which could lead the report out of it.`,
      )
    }
  }
  return full
}
