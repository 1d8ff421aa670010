import { Octokit } from '@octokit/core'
import { paginateRest } from '@octokit/plugin-paginate-rest'
import { restEndpointMethods } from '@octokit/plugin-rest-endpoint-methods'
import { GITHUB_CALL_DEADLINE_MS } from '../timing.ts'
import { nodeFetch } from './fetch.ts'

/**
 * The GitHub client: octokit with the REST methods and pagination, as `@actions/github`'s
 * `getOctokit` builds it, but with a fetch over node:http (./fetch.ts) in place of undici's.
 * Loaded only by a step that talks to GitHub (`loadOctokit`).
 */
const GitHubClient = Octokit.plugin(restEndpointMethods, paginateRest)

export type GitHubClient = InstanceType<typeof GitHubClient>

export function createOctokit(token: string, baseUrl: string): GitHubClient {
  const octokit = new GitHubClient({ auth: token, baseUrl, request: { fetch: nodeFetch } })
  // Every call is given its deadline (withDeadline); one that was not must not hold the step.
  octokit.hook.before('request', (options) => {
    options.request ??= {}
    options.request.signal ??= AbortSignal.timeout(GITHUB_CALL_DEADLINE_MS)
  })
  return octokit
}
