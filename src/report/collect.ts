/**
 * The runs of a period, from the service's own list: one request a page of 500, by creation
 * time, filtered by the project's tag where the service can (else here), and only the runs the
 * action made (its tag). A run of another forge's project of the same path is left out.
 */
import type { AgentRunsClient } from '../api/client.ts'
import type { Log } from '../log.ts'
import { CAMPAIGN_KEY } from '../model/campaign.ts'
import { ofHomeForge, type RunHome } from '../model/home.ts'
import { STEP_KEYS } from '../model/handoff.ts'
import { carriesTags, listTaggedRuns } from '../run/listing.ts'
import type { Period } from './period.ts'
import { madeByTheAction, rowOf, type LedgerRow } from './rows.ts'

/** The service's largest page. */
const PAGE = 500
/** At most this many pages (100,000 runs): past it, the report says it is a lower bound. */
const MAX_PAGES = 200

export interface Collected {
  readonly rows: LedgerRow[]
  /** False when the list was longer than the pages read: the sums are then lower bounds. */
  readonly complete: boolean
}

export async function collectRows(
  client: Pick<AgentRunsClient, 'iterateRuns'>,
  what: { period: Period; home: RunHome | undefined; campaign?: string | undefined },
  deps: { deadline: number; log: Log },
): Promise<Collected> {
  const { period, home } = what
  const tags: Record<string, string> = {}
  if (home?.project) tags[STEP_KEYS.repository] = home.project
  if (what.campaign) tags[CAMPAIGN_KEY] = what.campaign
  const query = {
    created_after: new Date(period.from).toISOString(),
    created_before: new Date(period.to).toISOString(),
    limit: PAGE,
  }
  const listed = await listTaggedRuns(client, tags, query, {
    maxPages: MAX_PAGES,
    deadline: deps.deadline,
  })
  if (listed.filteredHere) {
    deps.log.info(
      'The service cannot filter runs by metadata on this plan (feature_not_available): listed every run of the period and kept the project’s here.',
    )
  }
  // Checked here too: a service that ignores the metadata filter (an older deployment) must never
  // put another project's runs, titles and threads in this project's report.
  const runs = [...listed.runs, ...listed.children].filter(
    (run) =>
      madeByTheAction(run) &&
      carriesTags(run, tags) &&
      (home === undefined || ofHomeForge(run, home)),
  )
  return { rows: runs.map(rowOf), complete: listed.complete }
}
