/**
 * The `report` action's one step (and `cloud-agent-run report`): what the action's runs of a
 * period did and cost, from the service's own records. Outputs `credits`, `runs` and `report`
 * (the ledger as JSON), the summary with its chart, and with `report_dir` the rows as files.
 * See docs/report.md. Each door hands in its world and port.
 */
import { homeOf } from '../model/home.ts'
import { runStepBody } from '../summary/publish.ts'
import { serviceClient } from '../service.ts'
import type { InputSource, StepIo } from '../step-io.ts'
import { formatAmount } from '../model/money.ts'
import { formatDecimal, formatNumberOutput } from '../text/format.ts'
import { errorMessage } from '../text/plain.ts'
import { readCampaignTracking } from './campaign.ts'
import { collectRows } from './collect.ts'
import { countFollowups } from './followups.ts'
import { writeLedgerFiles } from './files.ts'
import { readReportSettings } from './inputs.ts'
import { renderLedger } from './render.ts'
import { sumUp } from './sums.ts'

/** How long listing the period may take, all its pages together. */
const LIST_DEADLINE_MS = 5 * 60_000

export async function run(io: StepIo, inputs: InputSource): Promise<{ error?: unknown }> {
  const ended = await runStepBody(io, async () => {
    const now = Date.now()
    const settings = readReportSettings(inputs, now)
    const { world } = inputs
    const home = settings.scope === 'project' ? homeOf(world) : undefined
    const client = serviceClient(settings, io)
    const deps = { deadline: now + LIST_DEADLINE_MS, log: io }
    const what = { period: settings.period, home, campaign: settings.campaign }
    const { rows, complete } = await collectRows(client, what, deps)
    const followups = await countFollowups(client, rows, deps.deadline)
    const sums = sumUp(rows, { ...settings, complete, followups })
    const ledger = settings.campaign
      ? {
          ...sums,
          tracking: await readCampaignTracking(
            rows,
            { ...settings, githubToken: settings.githubToken ?? '', apiUrl: world.apiUrl },
            deps,
          ),
        }
      : sums
    const { runs, credits, costUsd, withoutUsd } = ledger.totals
    const forge = world.forge ?? world.projectForge
    const links = forge ? { [forge]: world.serverUrl } : {}
    const summary = renderLedger(ledger, links)
    io.setOutput('credits', formatNumberOutput(credits))
    // Dollars only where every run that spent reports them: a sum that left runs out would mislead.
    io.setOutput('cost_usd', withoutUsd === 0 ? formatNumberOutput(costUsd) : '')
    io.setOutput('runs', String(runs))
    io.setOutput('report', JSON.stringify(ledger))
    const counted = `${formatDecimal(runs, 0)} ${runs === 1 ? 'run' : 'runs'}`
    const spent = formatAmount({
      value: ledger.unit === 'usd' ? costUsd : credits,
      unit: ledger.unit,
    })
    io.info(`${counted} in ${ledger.period.label} used ${spent}.`)
    await io.appendSummary(summary).catch((error: unknown) => {
      io.debug(`No summary written: ${errorMessage(error)}`)
    })
    if (settings.reportDir) {
      const written = await writeLedgerFiles(settings.reportDir, world.workspace, {
        rows,
        summary,
        tracking: ledger.tracking,
      })
      io.info(`Wrote ${written.join(', ')}.`)
    }
  })
  return 'error' in ended ? { error: ended.error } : {}
}
