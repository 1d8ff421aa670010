/**
 * The client's wire types follow the schema: every field and enumeration value the schema names
 * has a place in them. Each `Record<keyof T, true>` below must list exactly the keys of its type
 * (the compiler checks that), and the test checks those keys cover the schema's properties.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  KNOWN_RUN_SOURCES,
  KNOWN_RUN_STATES,
  PLATFORM_ERROR_CODES,
  type AgentConfig,
  type ConversationStep,
  type CreateRunRequest,
  type CreateRunResponse,
  type DownloadableArtifactData,
  type ListRunsQuery,
  type McpServerConfig,
  type PlanArtifactContent,
  type ProblemDocument,
  type RequestUsage,
  type RunCreator,
  type RunItem,
  type RunStatusMessage,
} from '../../src/api/types.ts'

interface Schema {
  properties?: Record<string, unknown>
  enum?: string[]
}
interface Facts {
  paths: Record<string, Record<string, { parameters?: { name: string }[] }>>
  components: { schemas: Record<string, Schema> }
}

const facts = JSON.parse(
  readFileSync(new URL('./service-openapi.facts.json', import.meta.url), 'utf8'),
) as Facts
const schema = (name: string): Schema => facts.components.schemas[name] ?? {}
const propertiesOf = (name: string): string[] => Object.keys(schema(name).properties ?? {}).sort()
const keys = (record: Record<string, true>): string[] => Object.keys(record).sort()

const runItem: Record<keyof RunItem, true> = {
  run_id: true,
  task_id: true,
  state: true,
  title: true,
  prompt: true,
  created_at: true,
  updated_at: true,
  started_at: true,
  session_id: true,
  session_link: true,
  trigger_url: true,
  agent_config: true,
  status_message: true,
  source: true,
  execution_location: true,
  schedule: true,
  creator: true,
  run_time: true,
  request_usage: true,
  artifacts: true,
  is_run_type_cancellable: true,
  is_sandbox_running: true,
  metadata: true,
  conversation_id: true,
  parent_run_id: true,
  agent_skill: true,
  scope: true,
}
const createRequest: Record<keyof CreateRunRequest, true> = {
  prompt: true,
  title: true,
  skill: true,
  config: true,
  metadata: true,
  conversation_id: true,
  parent_run_id: true,
  interactive: true,
  team: true,
  agent_identity_uid: true,
  attachments: true,
}
const createResponse: Record<keyof CreateRunResponse, true> = {
  run_id: true,
  task_id: true,
  state: true,
  at_capacity: true,
}
const agentConfig: Record<keyof AgentConfig, true> = {
  name: true,
  model_id: true,
  base_prompt: true,
  environment_id: true,
  skill_spec: true,
  mcp_servers: true,
  computer_use_enabled: true,
  idle_timeout_minutes: true,
  worker_host: true,
  harness: true,
  harness_auth_secrets: true,
}
const mcpServer: Record<keyof McpServerConfig, true> = {
  warp_id: true,
  command: true,
  args: true,
  env: true,
  url: true,
  headers: true,
}
const usage: Record<keyof RequestUsage, true> = {
  inference_cost: true,
  compute_cost: true,
  platform_cost: true,
  inference_cost_usd: true,
  compute_cost_usd: true,
  platform_cost_usd: true,
  total_tokens: true,
}
const statusMessage: Record<keyof RunStatusMessage, true> = {
  message: true,
  error_code: true,
  retryable: true,
  session_debug_until: true,
}
const creator: Record<keyof RunCreator, true> = {
  uid: true,
  display_name: true,
  email: true,
  photo_url: true,
  type: true,
}
const problem: Record<keyof ProblemDocument, true> = {
  type: true,
  title: true,
  status: true,
  detail: true,
  instance: true,
  error: true,
  retryable: true,
  trace_id: true,
  auth_url: true,
}
const listQuery: Record<keyof ListRunsQuery, true> = {
  limit: true,
  cursor: true,
  state: true,
  name: true,
  model_id: true,
  creator: true,
  source: true,
  execution_location: true,
  created_after: true,
  created_before: true,
  updated_after: true,
  environment_id: true,
  skill: true,
  skill_spec: true,
  schedule_id: true,
  ancestor_run_id: true,
  artifact_type: true,
  metadata: true,
  q: true,
  sort_by: true,
  sort_order: true,
}
const conversationStep: Record<keyof ConversationStep, true> = {
  id: true,
  description: true,
  summary: true,
  started_at: true,
  completed_at: true,
  messages: true,
  steps: true,
}
const download: Record<keyof DownloadableArtifactData, true> = {
  download_url: true,
  expires_at: true,
  content_type: true,
  filename: true,
  filepath: true,
  size_bytes: true,
}
const plan: Record<keyof PlanArtifactContent, true> = {
  document_uid: true,
  notebook_uid: true,
  content: true,
  content_type: true,
  url: true,
  title: true,
}

describe('the client types cover the schema', () => {
  it.each([
    ['RunItem', runItem],
    ['RunAgentRequest', createRequest],
    ['RunAgentResponse', createResponse],
    ['AmbientAgentConfig', agentConfig],
    ['MCPServerConfig', mcpServer],
    ['RequestUsage', usage],
    ['RunStatusMessage', statusMessage],
    ['RunCreatorInfo', creator],
    ['Error', problem],
    ['ConversationStep', conversationStep],
    ['FileArtifactResponseData', download],
    ['ScreenshotArtifactResponseData', download],
    ['PlanArtifactResponseData', plan],
  ])('%s', (name, ours) => {
    expect(keys(ours)).toEqual(expect.arrayContaining(propertiesOf(name)))
  })

  it('ListRunsQuery has every list parameter', () => {
    const parameters = facts.paths['/api/v1/agent/runs']?.['get']?.parameters ?? []
    expect(keys(listQuery)).toEqual(parameters.map((p) => p.name).sort())
  })

  it.each([
    ['RunState', KNOWN_RUN_STATES],
    ['RunSourceType', KNOWN_RUN_SOURCES],
    ['PlatformErrorCode', PLATFORM_ERROR_CODES],
  ])('%s values', (name, ours) => {
    expect([...ours].sort()).toEqual([...(schema(name).enum ?? [])].sort())
  })
})
