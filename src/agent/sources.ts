import type { AgentRunsClient } from '../api/client.ts'
import { CONVERSATION_READ } from '../timing.ts'
import type { ArtifactEntry } from './artifacts.ts'
import type { AgentWorkSources } from './work.ts'

/**
 * The agent's work as the API client gives it: the conversation, and a file's
 * bytes through getArtifact and its signed URL (which the client fetches
 * without the key, capped in size and time).
 */
export function agentWorkSources(
  client: Pick<AgentRunsClient, 'getConversation' | 'getArtifact' | 'downloadSignedUrl'>,
): AgentWorkSources {
  return {
    getConversation: (runId, signal, deadline) =>
      client.getConversation(runId, { ...CONVERSATION_READ, signal, deadline }),
    fetchFile: async (artifact: ArtifactEntry, signal: AbortSignal) => {
      const answer: unknown = await client.getArtifact(artifact.artifactUid ?? '', { signal })
      const url = downloadUrlOf(answer)
      if (!url) throw new Error('the service gave no download URL for it')
      const { body } = await client.downloadSignedUrl(url, { signal })
      return body
    },
  }
}

/** `data.download_url` of an artifact answer, read defensively. */
function downloadUrlOf(answer: unknown): string | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined
  const data = (answer as { data?: unknown }).data
  if (typeof data !== 'object' || data === null) return undefined
  const url = (data as { download_url?: unknown }).download_url
  return typeof url === 'string' && url !== '' ? url : undefined
}
