import type { ApprovalItemRef } from './approval-event.ts'
import { itemDigest } from './approval-event.ts'
import type { ApprovalTarget } from './approvals-given.ts'
import type { Repository } from './context.ts'
import { reasonOf, withDeadline, type Octokit } from './octokit.ts'

/** What the gate pins, as the event named it: a pull request, or an item with no head. */
export type PinnableSubject =
  | { readonly kind: 'pull'; readonly number: number }
  | { readonly kind: 'item'; readonly item: ApprovalItemRef }

/**
 * The target as GitHub answers it now, never as the event had it: a pull request's head, author
 * and whether it is a fork's (or the event said so: a fork's workflow run); an item's text,
 * digested, and its author. A string says why it cannot be read (nothing starts then).
 */
export async function readTarget(
  octokit: Octokit,
  repository: Repository,
  subject: PinnableSubject,
  eventFork: boolean,
): Promise<{ target: ApprovalTarget; fork: boolean } | string> {
  if (subject.kind === 'item') return await readItem(octokit, repository, subject.item)
  const where = { ...repository, number: subject.number }
  try {
    const { data } = await octokit.rest.pulls.get({
      owner: where.owner,
      repo: where.repo,
      pull_number: where.number,
      ...withDeadline(),
    })
    const head = data.head.sha
    if (!/^[0-9a-f]{40}$/.test(head)) return `pull request #${where.number} has no head commit`
    // Nothing is started for a pull request that is done, whoever approves it.
    if (data.state !== 'open') return `pull request #${where.number} is ${data.state}`
    const headRepo = data.head.repo?.full_name
    // A head whose repository is gone (a deleted fork) is no less a fork's.
    const fork = headRepo === undefined || headRepo !== data.base.repo.full_name
    const target = {
      ...where,
      pin: { kind: 'commit', sha: head },
      author: data.user?.login,
    } as const
    return { target, fork: fork || eventFork }
  } catch (error) {
    return `pull request #${where.number} could not be read (${reasonOf(error)}), so no approval can be checked`
  }
}

/** An issue or a comment on one, as it reads now: pinned to its id and text. */
async function readItem(
  octokit: Octokit,
  repository: Repository,
  item: ApprovalItemRef,
): Promise<{ target: ApprovalTarget; fork: boolean } | string> {
  try {
    const read =
      item.kind === 'issue'
        ? await octokit.rest.issues
            .get({ ...repository, issue_number: item.id, ...withDeadline() })
            .then(({ data }) => ({
              text: `${data.title}\n${data.body ?? ''}`,
              author: data.user?.login,
              closed: data.state !== 'open',
            }))
        : await octokit.rest.issues
            .getComment({ ...repository, comment_id: item.id, ...withDeadline() })
            .then(({ data }) => ({
              text: data.body ?? '',
              author: data.user?.login,
              closed: false,
            }))
    if (read.closed) return `${item.label} is closed`
    const target: ApprovalTarget = {
      ...repository,
      number: item.thread,
      pin: { kind: 'item', item: item.label, digest: itemDigest(item, read.text) },
      author: read.author,
      item: { kind: item.kind, id: item.id },
    }
    return { target, fork: false }
  } catch (error) {
    const gone = (error as { status?: number }).status === 404
    return gone
      ? `${item.label} is gone`
      : `${item.label} could not be read (${reasonOf(error)}), so no approval can be checked`
  }
}
