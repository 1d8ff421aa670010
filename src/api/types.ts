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

/** Sources the schema names (`RunSourceType`); a newer service may report others. */
export const KNOWN_RUN_SOURCES = [
  'LINEAR',
  'API',
  'SLACK',
  'LOCAL',
  'SCHEDULED_AGENT',
  'WEB_APP',
  'GITHUB_ACTION',
  'CLOUD_MODE',
  'CLI',
] as const
export type RunSource = (typeof KNOWN_RUN_SOURCES)[number] | (string & {})

/** The schema's `PlatformErrorCode`: the last segment of a problem's `type`. */
export const PLATFORM_ERROR_CODES = [
  'insufficient_credits',
  'feature_not_available',
  'external_authentication_required',
  'not_authorized',
  'invalid_request',
  'resource_not_found',
  'budget_exceeded',
  'integration_disabled',
  'integration_not_configured',
  'operation_not_supported',
  'environment_setup_failed',
  'content_policy_violation',
  'conflict',
  'authentication_required',
  'resource_unavailable',
  'internal_error',
] as const
export type PlatformErrorCode = (typeof PLATFORM_ERROR_CODES)[number] | (string & {})

export type RunExecutionLocation = 'LOCAL' | 'REMOTE' | (string & {})

export interface RunStatusMessage {
  message?: string
  error_code?: PlatformErrorCode
  retryable?: boolean
  /** RFC 3339: until when a failed run's session stays open for a person to look inside. */
  session_debug_until?: string
}

/** Exactly one of `warp_id` (a server saved in the service), `command` or `url`. */
export interface McpServerConfig {
  warp_id?: string
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
  computer_use_enabled?: boolean
  /** 1–60. */
  idle_timeout_minutes?: number
  worker_host?: string
  harness?: { type?: 'oz' | 'claude' | (string & {}) }
  harness_auth_secrets?: { claude_auth_secret_name?: string }
}

export interface RunCreator {
  uid?: string
  display_name?: string
  email?: string
  photo_url?: string
  type?: 'user' | 'service_account' | (string & {})
}

/** Credits (the billed unit) and their approximate USD; each may be absent; they grow while the run works. */
export interface RequestUsage {
  inference_cost?: number
  compute_cost?: number
  platform_cost?: number
  inference_cost_usd?: number
  compute_cost_usd?: number
  platform_cost_usd?: number
  total_tokens?: number
}

export interface PlanArtifactData {
  document_uid: string
  artifact_uid?: string
  notebook_uid?: string
  url?: string
  title?: string
}
export interface PullRequestArtifactData {
  url: string
  branch: string
}
export interface ScreenshotArtifactData {
  artifact_uid: string
  mime_type: string
  description?: string
}
export interface FileArtifactData {
  artifact_uid: string
  filepath: string
  filename: string
  mime_type: string
  size_bytes?: number
  description?: string
}

/** An artifact as a run lists it (`ArtifactItem`), discriminated by `artifact_type`. */
export type RunArtifact =
  | { artifact_type: 'PLAN'; created_at: string; data: PlanArtifactData }
  | { artifact_type: 'PULL_REQUEST'; created_at: string; data: PullRequestArtifactData }
  | { artifact_type: 'SCREENSHOT'; created_at: string; data: ScreenshotArtifactData }
  | { artifact_type: 'FILE'; created_at: string; data: FileArtifactData }

export interface ScheduleInfo {
  schedule_id: string
  schedule_name: string
  cron_schedule: string
}

/**
 * A run (`RunItem`). The schema requires more, but only `run_id` and `state`
 * are relied on: the service adds fields and states over time.
 */
export interface RunItem {
  run_id: string
  state: RunState
  /** Deprecated mirror of `run_id`. */
  task_id?: string
  title?: string
  prompt?: string
  created_at?: string
  updated_at?: string
  /** Null until a worker starts the run. */
  started_at?: string | null
  session_id?: string
  session_link?: string
  trigger_url?: string
  agent_config?: AgentConfig
  status_message?: RunStatusMessage
  source?: RunSource
  execution_location?: RunExecutionLocation
  schedule?: ScheduleInfo
  creator?: RunCreator
  /** ISO 8601 duration, e.g. `PT2M30S`. */
  run_time?: string
  request_usage?: RequestUsage
  artifacts?: RunArtifact[]
  is_run_type_cancellable?: boolean
  is_sandbox_running?: boolean
  /** Custom key/value strings fixed at creation. */
  metadata?: Record<string, string>
  conversation_id?: string
  parent_run_id?: string
  agent_skill?: { name?: string; full_path?: string; bundled_skill_id?: string }
  scope?: { type: 'User' | 'Team' | (string & {}); uid?: string }
}

export interface CreateRunRequest {
  prompt?: string
  title?: string
  skill?: string
  config?: AgentConfig
  /** At most 20 keys of 1–64 `[a-zA-Z0-9._-]`; values at most 256 bytes. */
  metadata?: Record<string, string>
  /** Carries an earlier run's conversation on into this one. */
  conversation_id?: string
  parent_run_id?: string
  interactive?: boolean
  team?: boolean
  agent_identity_uid?: string
  /** Up to 5 images, base64 in `data`. */
  attachments?: { file_name: string; mime_type: string; data: string }[]
}

export interface CreateRunResponse {
  run_id: string
  task_id?: string
  state: RunState
  /** The service is at capacity: the run waits in its queue. */
  at_capacity?: boolean
}

export type ListSortBy = 'updated_at' | 'created_at' | 'title' | 'agent'

export interface ListRunsQuery {
  /** 1–500; the service's default is 20. */
  limit?: number
  cursor?: string
  state?: RunState[]
  name?: string
  model_id?: string
  creator?: string
  source?: RunSource
  execution_location?: RunExecutionLocation
  created_after?: string
  created_before?: string
  updated_after?: string
  environment_id?: string
  skill?: string
  skill_spec?: string
  schedule_id?: string
  ancestor_run_id?: string
  artifact_type?: RunArtifact['artifact_type']
  /** At most 5 pairs. */
  metadata?: Record<string, string>
  q?: string
  /** The service's default is `updated_at`, whose pages shift while runs change state. */
  sort_by?: ListSortBy
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
  message?: string
  mode?: string
}

export type ActionCategory =
  | 'command'
  | 'files'
  | 'search'
  | 'integration'
  | 'documents'
  | 'computer'
  | 'review'
  | 'skill'
  | (string & {})

export type ConversationBlock =
  | { type: 'text'; text: string; message_id?: string }
  | {
      type: 'action'
      id: string
      category: ActionCategory
      name: string
      input: Record<string, unknown>
      message_id?: string
    }
  | {
      type: 'action_result'
      action_id: string
      category: ActionCategory
      name: string
      state: 'running' | 'completed' | 'failed' | 'denied' | (string & {})
      output: Record<string, unknown>
      message_id?: string
    }
  | { type: 'event'; name: string; data: Record<string, unknown>; message_id?: string }

export interface ConversationMessage {
  role: 'user' | 'assistant' | 'tool' | 'system' | (string & {})
  timestamp?: string
  content: ConversationBlock[]
  message_ids?: string[]
  request_id?: string
}

/** A step of the agent's work; steps nest for delegated work. */
export interface ConversationStep {
  id: string
  description?: string
  summary?: string
  started_at?: string
  completed_at?: string
  messages: ConversationMessage[]
  steps: ConversationStep[]
}

export interface ConversationResponse {
  conversation_id: string
  steps: ConversationStep[]
}

/** A downloadable artifact (`FILE`, `SCREENSHOT`): the URL is signed, short-lived and on another host. */
export interface DownloadableArtifactData {
  download_url: string
  expires_at: string
  content_type: string
  filename?: string
  filepath?: string
  size_bytes?: number
}

export interface PlanArtifactContent {
  document_uid: string
  notebook_uid: string
  content: string
  content_type: string
  url?: string
  title?: string
}

/** `GET /agent/artifacts/{uid}` (`ArtifactResponse`), discriminated by `artifact_type`. */
export type ArtifactResponse =
  | { artifact_uid: string; artifact_type: 'PLAN'; created_at: string; data: PlanArtifactContent }
  | {
      artifact_uid: string
      artifact_type: 'SCREENSHOT'
      created_at: string
      data: DownloadableArtifactData
    }
  | {
      artifact_uid: string
      artifact_type: 'FILE'
      created_at: string
      data: DownloadableArtifactData & { filename: string; filepath: string }
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
