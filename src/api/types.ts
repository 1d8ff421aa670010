/**
 * Wire types of the Cloud Agent Runs API, as described by the spec and the
 * service facts. Every field but `run_id` and `state` is optional: the service
 * adds fields and states over time, and the action must tolerate that.
 */

/** States the service is known to report. New ones may appear at any time. */
export const KNOWN_RUN_STATES = [
  'QUEUED',
  'PENDING',
  'CLAIMED',
  'INPROGRESS',
  'BLOCKED',
  'SUCCEEDED',
  'FAILED',
  'ERROR',
  'CANCELLED',
] as const

export type KnownRunState = (typeof KNOWN_RUN_STATES)[number]

/** A state string as received: a known state, or one the action has never heard of. */
export type RunState = KnownRunState | (string & {})

export interface RunStatusMessage {
  message?: string
  error_code?: string
  retryable?: boolean
}

export interface McpServerConfig {
  command?: string
  args?: string[]
  env?: Record<string, string>
  url?: string
  headers?: Record<string, string>
}

export interface AgentConfig {
  name?: string
  model_id?: string
  base_prompt?: string
  environment_id?: string
  skill_spec?: string
  mcp_servers?: Record<string, McpServerConfig>
}

export interface RunCreator {
  uid?: string
  display_name?: string
  email?: string
  type?: 'user' | 'service_account' | (string & {})
}

export interface RunArtifact {
  artifact_type?: string
  data?: Record<string, unknown>
}

export interface RunItem {
  run_id: string
  state: RunState
  title?: string
  prompt?: string
  created_at?: string
  updated_at?: string
  started_at?: string
  session_id?: string
  session_link?: string
  agent_config?: AgentConfig
  status_message?: RunStatusMessage
  source?: string
  creator?: RunCreator
  run_time?: string
  request_usage?: Record<string, unknown>
  artifacts?: RunArtifact[]
  is_run_type_cancellable?: boolean
  /** The custom key/value strings the run was created with. */
  metadata?: Record<string, string>
}

export interface CreateRunRequest {
  prompt?: string
  title?: string
  config?: AgentConfig
  metadata?: Record<string, string>
}

export interface CreateRunResponse {
  run_id: string
  state: RunState
  at_capacity?: boolean
}

export interface ListRunsQuery {
  limit?: number
  cursor?: string
  state?: RunState[]
  name?: string
  model_id?: string
  creator?: string
  source?: string
  created_after?: string
  created_before?: string
  metadata?: Record<string, string>
  q?: string
  sort_by?: 'updated_at' | 'created_at'
  sort_order?: 'asc' | 'desc'
}

export interface PageInfo {
  has_next_page?: boolean
  next_cursor?: string
}

export interface ListRunsResponse {
  runs: RunItem[]
  page_info?: PageInfo
}

export interface FollowupRequest {
  message: string
}

/** An RFC 7807 problem document, with the service's extensions. */
export interface ProblemDocument {
  type?: string
  title?: string
  status?: number
  detail?: string
  instance?: string
  error?: string
  retryable?: boolean
  trace_id?: string
  auth_url?: string
}
