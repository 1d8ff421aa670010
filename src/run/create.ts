import { randomUUID } from 'node:crypto'
import type { AgentRunsClient, Sleep } from '../api/client.ts'
import { ApiStatusError } from '../api/errors.ts'
import { mayHaveActed } from '../api/retry.ts'
import type { CreateRunRequest, CreateRunResponse, RunItem } from '../api/types.ts'
import type { WaitLog } from './wait.ts'

/**
 * The metadata every run is created with. `invocation` is unique to this
 * execution of the step, so a run found by it is certainly this step's own;
 * the rest says where the run came from, for people and for later attempts.
 */
export interface RunTag {
  readonly invocation: string
  readonly metadata: Readonly<Record<string, string>>
}

export const INVOCATION_KEY = 'gh_invocation'

export function tagFromEnvironment(
  env: NodeJS.ProcessEnv,
  newId: () => string = randomUUID,
): RunTag {
  const invocation = newId()
  const candidates: Record<string, string | undefined> = {
    [INVOCATION_KEY]: invocation,
    gh_repository: env.GITHUB_REPOSITORY,
    gh_run_id: env.GITHUB_RUN_ID,
    gh_run_attempt: env.GITHUB_RUN_ATTEMPT,
    gh_job: env.GITHUB_JOB,
    gh_step: env.GITHUB_ACTION,
    gh_workflow: env.GITHUB_WORKFLOW,
  }
  const metadata: Record<string, string> = {}
  for (const [key, value] of Object.entries(candidates)) {
    // The service takes values of at most 256 bytes; a longer one is cut rather than refused.
    if (value)
      metadata[key] = Buffer.from(value)
        .subarray(0, 256)
        .toString('utf8')
        .replace(/\uFFFD$/, '')
  }
  return { invocation, metadata }
}

export interface CreateDeps {
  client: Pick<AgentRunsClient, 'createRun' | 'listRuns'>
  now: () => number
  sleep: Sleep
  log: WaitLog
}

/** Looks for the run this many times before concluding none was made. */
const LOOKUPS = [0, 1_000, 3_000] as const
/** Slack for the service's clock being behind ours. */
const CLOCK_SLACK_MS = 5 * 60_000

export class RunNotCreatedError extends Error {
  override name = 'RunNotCreatedError'
}

/**
 * Creates the run exactly once. When the create request's answer is lost after
 * the service may have acted (a timeout, a reset, a 5xx, a garbled body), the
 * request is not repeated: the run it made is looked up by its tag and adopted.
 */
export async function createRunOnce(
  request: CreateRunRequest,
  tag: RunTag,
  deps: CreateDeps,
): Promise<CreateRunResponse> {
  const sentAt = deps.now()
  try {
    return await deps.client.createRun({ ...request, metadata: { ...tag.metadata } })
  } catch (error) {
    if (!mayHaveActed(error)) throw error
    const reason = error instanceof Error ? error.message : String(error)
    deps.log.warning(
      `The answer to the create request was lost (${reason}). Looking for the run it may have made, instead of creating a second one.`,
    )
    for (const delay of LOOKUPS) {
      if (delay > 0) await deps.sleep(delay)
      const found = await findTaggedRun(request, tag, sentAt - CLOCK_SLACK_MS, deps)
      if (found) {
        deps.log.info(`Found run ${found.run_id}, made by the lost create request; adopting it.`)
        return { run_id: found.run_id, state: found.state }
      }
    }
    throw new RunNotCreatedError(
      `The create request failed (${reason}), and no run made by it was found after ${LOOKUPS.length} lookups, so no run is being waited on. ` +
        'The action does not repeat a create whose outcome is unknown, to never start a run twice; re-run the job to try again.',
      { cause: error },
    )
  }
}

/**
 * The run created with this invocation tag, if any. Throws the service's
 * `feature_not_available` error where the plan cannot filter by metadata.
 */
export async function findRunByInvocation(
  client: Pick<AgentRunsClient, 'listRuns'>,
  invocation: string,
  createdAfter?: string,
): Promise<RunItem | undefined> {
  const { runs } = await client.listRuns({
    metadata: { [INVOCATION_KEY]: invocation },
    created_after: createdAfter,
    limit: 10,
  })
  return runs[0]
}

async function findTaggedRun(
  request: CreateRunRequest,
  tag: RunTag,
  createdAfterMs: number,
  deps: CreateDeps,
): Promise<RunItem | undefined> {
  const createdAfter = new Date(createdAfterMs).toISOString()
  try {
    return await findRunByInvocation(deps.client, tag.invocation, createdAfter)
  } catch (error) {
    if (!(error instanceof ApiStatusError) || error.code !== 'feature_not_available') throw error
  }
  // Without metadata filtering, the same request within the window is the best evidence left.
  const { runs } = await deps.client.listRuns({ created_after: createdAfter, limit: 100 })
  return runs.find((run) => isSameRequest(run, request, tag))
}

function isSameRequest(
  run: RunItem & { metadata?: unknown },
  request: CreateRunRequest,
  tag: RunTag,
): boolean {
  const metadata = run.metadata as Record<string, string> | undefined
  if (metadata?.[INVOCATION_KEY] !== undefined) return metadata[INVOCATION_KEY] === tag.invocation
  return (
    run.prompt === request.prompt &&
    (request.title === undefined || run.title === request.title) &&
    run.agent_config?.skill_spec === request.config?.skill_spec
  )
}

/**
 * On a re-run (attempt > 1), the run the previous attempt of this same step
 * created, found by its tag. Only for the log: a failed lookup changes nothing.
 */
export async function findSupersededRun(
  tag: RunTag,
  deps: { client: Pick<AgentRunsClient, 'listRuns'> },
): Promise<RunItem | undefined> {
  const { gh_run_id: runId, gh_run_attempt: attempt, gh_job: job, gh_step: step } = tag.metadata
  if (!runId || !job || !step || !(Number(attempt) > 1)) return undefined
  const { runs } = await deps.client.listRuns({
    metadata: {
      gh_run_id: runId,
      gh_run_attempt: String(Number(attempt) - 1),
      gh_job: job,
      gh_step: step,
    },
    limit: 1,
  })
  return runs[0]
}
