/**
 * Wire types of the Cloud Agent Runs API: the schema's, generated into `wire.gen.ts` from the
 * vendored OpenAPI facts (`npm run wire-types`), loosened where the action must tolerate more
 * than the schema promises, and widened by what the live service sends beyond it
 * (service-facts.md). Only `run_id` and `state` are relied on in a run: the service adds
 * fields, states and codes over time, so its enumerations stay open and its fields optional.
 */
import { runStateValues, type components, type operations } from './wire.gen.ts'

type Schemas = components['schemas']

/** A value the schema enumerates, or one a newer service sends. */
type Open<T extends string> = T | (string & {})

/** The schema's fields, each optional, less those this module types itself. */
type Loose<T, Own extends keyof T = never> = Partial<Omit<T, Own>>

/** States the service is known to report. New ones may appear at any time. */
export const KNOWN_RUN_STATES: readonly KnownRunState[] = runStateValues

export type KnownRunState = Schemas['RunState']

/** A state string as received: a known state, or one the action has never heard of. */
export type RunState = Open<KnownRunState>

export interface RunStatusMessage extends Loose<Schemas['RunStatusMessage'], 'error_code'> {
  /** The schema's `PlatformErrorCode`, or one it does not name yet. */
  error_code?: Open<Schemas['PlatformErrorCode']>
  /** RFC 3339: until when a failed run's session stays open for a person to look inside. */
  session_debug_until?: string
}

/** Credits and the billed US dollars (`*_cost_usd`); each may be absent; they grow while the run works. */
export interface RequestUsage extends Loose<Schemas['RequestUsage']> {
  platform_cost?: number
  inference_cost_usd?: number
  compute_cost_usd?: number
  platform_cost_usd?: number
  total_tokens?: number
}

export type RunCreator = Schemas['RunCreatorInfo']

/**
 * The agent that works a run (`config.harness.type`): the schema names `oz` and `claude`; the
 * service takes more (`codex`, `gemini`) where it offers them, and refuses one it does not.
 */
export type HarnessType = Open<NonNullable<Schemas['Harness']['type']>>

export interface AgentConfig extends Omit<Schemas['AmbientAgentConfig'], 'harness'> {
  harness?: { type?: HarnessType }
}

/** Exactly one of `warp_id` (a server saved in the service), `command` or `url`. */
export type McpServerConfig = Schemas['MCPServerConfig']

/** An artifact as a run lists it (`ArtifactItem`), discriminated by `artifact_type`. */
export type RunArtifact = Schemas['ArtifactItem']

/** A run (`RunItem`): every field but `run_id` and `state` may be missing. */
export interface RunItem extends Loose<
  Schemas['RunItem'],
  | 'run_id'
  | 'state'
  | 'status_message'
  | 'request_usage'
  | 'source'
  | 'execution_location'
  | 'agent_config'
> {
  run_id: string
  agent_config?: AgentConfig
  state: RunState
  status_message?: RunStatusMessage
  request_usage?: RequestUsage
  source?: Open<Schemas['RunSourceType']>
  execution_location?: Open<Schemas['RunExecutionLocation']>
  /** ISO 8601 duration, e.g. `PT2M30S`. */
  run_time?: string
  is_run_type_cancellable?: boolean
}

/** Metadata: at most 20 keys of 1–64 `[a-zA-Z0-9._-]`; values at most 256 bytes. */
export interface CreateRunRequest extends Omit<Schemas['RunAgentRequest'], 'config'> {
  config?: AgentConfig
}

export interface CreateRunResponse extends Loose<Schemas['RunAgentResponse'], 'run_id' | 'state'> {
  run_id: string
  state: RunState
}

/** `GET /agent/runs`'s query; `metadata` is sent as `metadata[key]=value`, at most 5 pairs. */
export interface ListRunsQuery extends Omit<
  NonNullable<operations['listRuns']['parameters']['query']>,
  'state'
> {
  state?: RunState[]
}

export type FollowupRequest =
  operations['submitFollowup']['requestBody']['content']['application/json']

/**
 * How the service routed a follow-up: to the running session (`live_session`), into the prompt
 * of a run not yet started (`queued_prompt`), to a new execution of an ended run
 * (`handoff_execution`), or queued until the run can take it (`queue_pending`).
 */
export type FollowupOutcome = Open<Schemas['FollowupOutcome']>

/**
 * What a follow-up's 2xx said, in the client's words. Both members are undefined when an older
 * service answered without them (accepted all the same); `followupId` is null for a
 * `queued_prompt`, which has no follow-up of its own.
 */
export interface FollowupAccepted {
  followupId?: string | null
  outcome?: FollowupOutcome
}

export interface ListRunsResponse {
  runs: RunItem[]
  page_info?: Partial<Schemas['PageInfo']>
}

/** A step of the agent's work; steps nest for delegated work. The service adds a description and a summary. */
export interface ConversationStep extends Omit<Schemas['ConversationStep'], 'steps'> {
  description?: string
  summary?: string
  steps: ConversationStep[]
}

export interface ConversationResponse extends Omit<Schemas['ConversationResponse'], 'steps'> {
  steps: ConversationStep[]
}

/** `GET /agent/artifacts/{uid}` (`ArtifactResponse`), discriminated by `artifact_type`. */
export type ArtifactResponse = Schemas['ArtifactResponse']

/** An RFC 7807 problem document (the schema's `Error`), with the service's extensions. */
export interface ProblemDocument extends Loose<Schemas['Error']> {
  auth_url?: string
}
