import * as core from '@actions/core'
import { AgentRunsClient } from './api/client.ts'
import { USER_AGENT } from './version.ts'

/**
 * The API client as the main and post steps use it: this action's user agent,
 * and every retry told in the log. The one place either step builds a client.
 */
export function serviceClient(
  connection: { baseUrl: string; apiKey: string },
  options: { maxRetries?: number } = {},
): AgentRunsClient {
  return new AgentRunsClient({
    baseUrl: connection.baseUrl,
    apiKey: connection.apiKey,
    userAgent: USER_AGENT,
    ...options,
    onRetry: (message) => core.info(message),
  })
}
