/**
 * The main step's GitHub inputs: the comment, the commit status, who may reach the agent through
 * a comment (`continue_run`), and who must approve a commit before a run starts (`approval`).
 */
import {
  APPROVAL_POLICIES,
  meetsRole,
  REPOSITORY_ROLES,
  type ApprovalPolicy,
  type RepositoryRole,
} from '../model/approval.ts'
import type { InputSource } from '../step-io.ts'
import { InputError } from '../input-error.ts'

export interface GitHubSettings {
  /** '' when no GitHub call is asked for. */
  readonly token: string
  /** Keep one comment on the triggering pull request or issue up to date. */
  readonly comment: boolean
  /** Set a commit status on the commit the run works on. */
  readonly commitStatus: boolean
  /** One comment per thread and key, and the status context: `name`, else workflow and job. */
  readonly key: string
  /** With continue_run: the least role a comment's author needs to reach the agent. */
  readonly commenterPermission: RepositoryRole
  /** With continue_run: bot logins whose comments may reach the agent, lower case. */
  readonly allowedBots: readonly string[]
  /** `approval`: when a run waits for a maintainer's approval of the head (v1.4). */
  readonly approval: ApprovalPolicy
  /** The least role whose approval counts. */
  readonly approverPermission: RepositoryRole
}

/** `github_token`, masked as soon as it is read; '' when not given. */
export function readGitHubToken(source: InputSource): string {
  const token = source.get('github_token')
  if (token) source.mask(token)
  return token
}

/** The `name` input, else the workflow and the job: what makes a step's comment its own. */
export function conversationKey(source: InputSource): string {
  const name = source.get('name')
  if (name) return name
  return `${source.world.workflow ?? 'workflow'}/${source.world.job ?? 'job'}`
}

export function readRole(input: string, value: string): RepositoryRole {
  const role = value || 'write'
  if ((REPOSITORY_ROLES as readonly string[]).includes(role)) return role as RepositoryRole
  throw new InputError(input, `must be one of ${REPOSITORY_ROLES.join(', ')}; got "${value}".`)
}

/**
 * `approval`: a run that waits for an approval starts later from the step's own prompt, so it
 * applies to a step that creates one run from its prompt; never to a comment's message.
 */
export function readApproval(source: InputSource, continueRun: boolean): ApprovalPolicy {
  const value = source.get('approval') || 'none'
  const policy = APPROVAL_POLICIES.find((word) => word === value)
  if (!policy) {
    throw new InputError('approval', `must be none, forks or always; got "${value}".`)
  }
  if (policy === 'none') return policy
  const other = continueRun
    ? 'continue_run'
    : (['run_id', 'tasks'] as const).find((name) => source.get(name) !== '')
  if (other) {
    throw new InputError(
      'approval',
      `cannot be combined with ${other}: an approved commit starts one new run from the step's prompt, and a comment's text never reaches it.`,
    )
  }
  return policy
}

/**
 * `approver_permission`: the least role whose approval counts. On a public repository anyone
 * has `read`, so an approval below `triage` would let anyone approve: refused there (v1.5).
 */
export function readApproverPermission(
  source: InputSource,
  approval: ApprovalPolicy,
): RepositoryRole {
  const role = readRole('approver_permission', source.get('approver_permission'))
  const repository = source.world.event?.repository
  const isPublic = repository?.private === false || repository?.visibility === 'public'
  if (approval !== 'none' && isPublic && !meetsRole(role, 'triage')) {
    throw new InputError(
      'approver_permission',
      `is ${role} on a public repository, where anyone has read permission: anyone could approve a paid run. Use triage or above (write, the default, is the usual choice).`,
    )
  }
  return role
}

const LOGIN = /^[a-z\d](?:[a-z\d-]{0,38})(?:\[bot\])?$/i

/** Comma-separated bot logins; `name` and `name[bot]` mean the same bot. */
export function readBots(value: string): string[] {
  const logins = value
    .split(/[,\n]/)
    .map((login) => login.trim())
    .filter((login) => login !== '')
  for (const login of logins) {
    if (!LOGIN.test(login)) {
      throw new InputError(
        'allowed_bots',
        `must be GitHub logins separated by commas, such as renovate[bot]; "${login}" is not one.`,
      )
    }
  }
  return logins.map((login) => login.toLowerCase().replace(/\[bot\]$/, ''))
}
