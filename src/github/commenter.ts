import { meetsRole, ROLE_WORDS, type RepositoryRole } from '../model/approval.ts'
import type { EventAuthor } from './event.ts'
import { reasonOf, tokenIdentity, withDeadline, type Octokit } from './octokit.ts'

/** Whether what triggered the step may reach the agent, and why, in words for the log. */
export type Admission = { admitted: true; reason: string } | { admitted: false; reason: string }

export interface CommenterRules {
  /** The least role the author needs. */
  commenterPermission: RepositoryRole
  /** Bots whose comments may reach the agent: lower-case logins without `[bot]`. */
  allowedBots: readonly string[]
}

/** What can be decided from the author alone, before asking GitHub for their permission. */
export type Screening =
  { kind: 'decided'; admission: Admission } | { kind: 'check-permission'; login: string }

export function screenAuthor(
  author: EventAuthor | undefined,
  me: string,
  rules: CommenterRules,
): Screening {
  const refuse = (reason: string): Screening => ({
    kind: 'decided',
    admission: { admitted: false, reason },
  })
  if (!author) return refuse('the event names no author, so their permission cannot be checked')
  const who = `@${author.login}`
  if (author.login.toLowerCase() === me.toLowerCase()) {
    return refuse(`the ${author.what} is this action's own (${who})`)
  }
  if (author.isBot) {
    const bot = author.login.toLowerCase().replace(/\[bot\]$/, '')
    if (rules.allowedBots.includes(bot)) {
      return {
        kind: 'decided',
        admission: { admitted: true, reason: `${who} is listed in allowed_bots` },
      }
    }
    return refuse(`${who} is a bot, and allowed_bots does not list it`)
  }
  return { kind: 'check-permission', login: author.login }
}

/**
 * The author's role from GitHub's collaborator-permission answer. `role_name`
 * tells triage and maintain apart; a custom role falls back to `permission`,
 * which GitHub gives as one of admin, write, read or none.
 */
export function roleOf(answer: {
  permission?: string
  role_name?: string
}): RepositoryRole | 'none' {
  const known = (value: string | undefined): value is RepositoryRole | 'none' =>
    value !== undefined && (ROLE_WORDS as readonly string[]).includes(value)
  if (known(answer.role_name)) return answer.role_name
  if (known(answer.permission)) return answer.permission
  return 'none'
}

export function judgeRole(
  login: string,
  role: RepositoryRole | 'none',
  least: RepositoryRole,
): Admission {
  const who = `@${login}`
  if (meetsRole(role, least)) {
    return {
      admitted: true,
      reason: `${who} has ${role} permission (commenter_permission: ${least})`,
    }
  }
  return {
    admitted: false,
    reason: `${who} has ${role === 'none' ? 'no' : role} permission on the repository; commenter_permission asks for at least ${least}`,
  }
}

/**
 * Decides whether the event's author may talk to the agent: never the
 * action's own comments; bots only when allowed; people with at least the
 * configured permission, as GitHub reports it (author_association is not
 * permission). A look-up that fails refuses.
 */
export async function admitAuthor(
  octokit: Octokit,
  repository: { owner: string; repo: string },
  author: EventAuthor | undefined,
  rules: CommenterRules,
): Promise<Admission> {
  try {
    const screening = screenAuthor(author, await tokenIdentity(octokit), rules)
    if (screening.kind === 'decided') return screening.admission
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      ...repository,
      username: screening.login,
      ...withDeadline(),
    })
    return judgeRole(screening.login, roleOf(data), rules.commenterPermission)
  } catch (error) {
    return {
      admitted: false,
      reason: `the author's permission could not be checked (${reasonOf(error)})`,
    }
  }
}
