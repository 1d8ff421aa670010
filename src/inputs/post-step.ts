/** The post step's inputs: the connection, and the GitHub surfaces it finishes. */
import type { InputSource } from '../step-io.ts'
import { readConnection, type Connection } from './connection.ts'
import { conversationKey, readGitHubToken, type GitHubSettings } from './github.ts'
import { parseBoolean } from './values.ts'

/** What the post step needs: the API's key and address, and the GitHub surfaces to finish. */
export type PostSettings = Connection & { github: GitHubSettings }

export function readPostSettings(source: InputSource): PostSettings {
  const connection = readConnection(source)
  const token = readGitHubToken(source)
  const comment = parseBoolean('comment', source.get('comment') || 'false')
  const commitStatus = parseBoolean('commit_status', source.get('commit_status') || 'false')
  const checkRun = parseBoolean('check_run', source.get('check_run') || 'false')
  return {
    ...connection,
    github: {
      token: comment || commitStatus || checkRun ? token : '',
      comment,
      commitStatus,
      key: conversationKey(source),
      commenterPermission: 'write',
      allowedBots: [],
      approval: 'none',
      approverPermission: 'write',
    },
  }
}
