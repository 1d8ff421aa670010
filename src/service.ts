import { AgentRunsClient } from './api/client.ts'
import type { Log } from './log.ts'
import { USER_AGENT } from './version.ts'

/**
 * The API client as the main and post steps use it: this action's user agent,
 * and every retry told in the log. The one place either step builds a client.
 */
export function serviceClient(
  connection: { baseUrl: string; apiKey: string },
  log: Log,
  options: { maxRetries?: number } = {},
): AgentRunsClient {
  return new AgentRunsClient({
    baseUrl: connection.baseUrl,
    apiKey: connection.apiKey,
    userAgent: USER_AGENT,
    ...options,
    onRetry: (message) => log.info(message),
  })
}
