import { Octokit } from '@octokit/core'
import { paginateRest } from '@octokit/plugin-paginate-rest'
import type { Api } from '@octokit/plugin-rest-endpoint-methods'
import { GITHUB_CALL_DEADLINE_MS } from '../timing.ts'
import { nodeFetch } from './fetch.ts'

/**
 * The REST methods the action calls, by GitHub's route: the same `octokit.rest.<scope>.<method>`
 * as `@octokit/plugin-rest-endpoint-methods` gives, typed by it, without bundling its map of
 * every endpoint GitHub has (98 kB of the 2 MB dist/ may hold). A method is `request` with its
 * route as defaults, as the plugin makes it, so pagination takes it too.
 */
const ROUTES = {
  actions: {
    getWorkflowRun: 'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
    listWorkflowRuns: 'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
  },
  checks: {
    create: 'POST /repos/{owner}/{repo}/check-runs',
    get: 'GET /repos/{owner}/{repo}/check-runs/{check_run_id}',
    listForRef: 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
    update: 'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
  },
  issues: {
    createComment: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
    deleteComment: 'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}',
    get: 'GET /repos/{owner}/{repo}/issues/{issue_number}',
    getComment: 'GET /repos/{owner}/{repo}/issues/comments/{comment_id}',
    listComments: 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
    listCommentsForRepo: 'GET /repos/{owner}/{repo}/issues/comments',
    updateComment: 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
  },
  pulls: {
    createReview: 'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    get: 'GET /repos/{owner}/{repo}/pulls/{pull_number}',
    listFiles: 'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',
    listReviews: 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    update: 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
    updateReview: 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}',
  },
  repos: {
    compareCommitsWithBasehead: 'GET /repos/{owner}/{repo}/compare/{basehead}',
    createCommitStatus: 'POST /repos/{owner}/{repo}/statuses/{sha}',
    listCommitStatusesForRef: 'GET /repos/{owner}/{repo}/commits/{ref}/statuses',
    getCollaboratorPermissionLevel: 'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
  },
  users: {
    getAuthenticated: 'GET /user',
  },
} as const

type Routes = typeof ROUTES

/** The methods of ROUTES, as the plugin types them. */
type UsedRestMethods = {
  [Scope in keyof Routes]: Pick<Api['rest'][Scope], keyof Routes[Scope] & keyof Api['rest'][Scope]>
}

/** An octokit plugin: `octokit.rest`, the methods of ROUTES. */
function restMethods(octokit: Octokit): { rest: UsedRestMethods } {
  const rest: Record<string, Record<string, unknown>> = {}
  for (const [scope, methods] of Object.entries(ROUTES)) {
    const scoped: Record<string, unknown> = {}
    for (const [name, route] of Object.entries(methods)) {
      const [method, url] = route.split(' ')
      scoped[name] = octokit.request.defaults({ method, url })
    }
    rest[scope] = scoped
  }
  return { rest: rest as unknown as UsedRestMethods }
}

/**
 * The GitHub client: octokit with the REST methods the action calls and pagination, as
 * `@actions/github`'s `getOctokit` builds it, but with a fetch over node:http (./fetch.ts) in
 * place of undici's. Loaded only by a step that talks to GitHub (`loadOctokit`).
 */
const GitHubClient = Octokit.plugin(restMethods, paginateRest)

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
