import { createHash } from 'node:crypto'
import type { Log } from '../log.ts'
import { approveLine, short } from '../model/approval.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { escapeMarkdown, safeHttpUrl } from '../text/markdown.ts'
import type { ApprovalPull } from './approval.ts'
import { reasonOf, type Octokit } from './octokit.ts'
import { OwnComments } from './own-comments.ts'

/**
 * The thread's comment while a run waits for an approval (one per key, beside the run's own
 * comment, which comes once a run starts): who may approve, and the exact line to comment.
 * Its marker records the head it waits on and a digest of the prompt that waited, so that the
 * approving step starts the run with that prompt or with none.
 */
export interface ApprovalMarker {
  readonly key: string
  readonly head: string
  /** The prompt's digest (`promptDigest`). */
  readonly prompt: string
  /** Whether an approval started the run. */
  readonly approved: boolean
}

const MARKER = /<!-- cloud-agent-approval: (\{[^<>]*\}) -->/

function renderMarker(marker: ApprovalMarker): string {
  const json = JSON.stringify(marker)
  return `<!-- cloud-agent-approval: ${json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e')} -->`
}

/** The marker of an approval comment; undefined for any other text. */
export function parseApprovalMarker(body: string): ApprovalMarker | undefined {
  const match = MARKER.exec(body)
  if (!match?.[1]) return undefined
  try {
    const parsed = JSON.parse(match[1]) as Partial<Record<keyof ApprovalMarker, unknown>>
    const { key, head, prompt, approved } = parsed
    if (typeof key !== 'string' || typeof head !== 'string' || typeof prompt !== 'string') {
      return undefined
    }
    return { key, head, prompt, approved: approved === true }
  } catch {
    return undefined
  }
}

/** A short digest of the prompt: the approving step's must be the waiting step's. */
export function promptDigest(prompt: string): string {
  return createHash('sha256').update(prompt).digest('hex').slice(0, 32)
}

/** What the waiting comment says. */
export interface WaitingWords {
  readonly key: string
  readonly pull: ApprovalPull
  /** Why the run needs an approval (our own Markdown). */
  readonly why: string
  readonly approverPermission: string
  readonly prompt: string
  readonly workflowRun: string | undefined
}

/** The waiting comment: why, who may approve, the line to comment, and that a push needs another. */
export function renderWaiting(words: WaitingWords): string {
  const { head } = words.pull
  const { icon } = OUTCOME_RECORDS.awaiting_approval
  return [
    `### ${icon} Waiting for approval: no run was started`,
    '',
    `The agent's run is paid with this repository's key, and ${words.why}: it starts only once someone with at least **${words.approverPermission}** permission on the repository approves commit \`${short(head)}\`.`,
    '',
    'To approve this commit, comment exactly:',
    '',
    '```',
    approveLine(head),
    '```',
    '',
    "or approve the pull request in a review of this commit. An approval counts for this commit only: a newer push needs a new approval. Bots, the pull request's author and edited comments never approve.",
    '',
    footer(words.key, words.workflowRun),
    renderMarker({ key: words.key, head, prompt: words.prompt, approved: false }),
  ].join('\n')
}

/** The comment once an approval started the run: who approved which commit. */
export function renderApproved(words: {
  key: string
  head: string
  login: string
  via: 'review' | 'comment'
  prompt: string
  workflowRun: string | undefined
}): string {
  return [
    `### ✅ Approved: the run starts`,
    '',
    `**${escapeMarkdown(words.login)}** approved commit \`${short(words.head)}\` in a ${words.via}. The run works on that commit; a newer push needs a new approval.`,
    '',
    footer(words.key, words.workflowRun),
    renderMarker({ key: words.key, head: words.head, prompt: words.prompt, approved: true }),
  ].join('\n')
}

function footer(key: string, workflowRun: string | undefined): string {
  const link = safeHttpUrl(workflowRun)
  const parts = [`key ${escapeMarkdown(key)}`, ...(link ? [`[workflow run](${link})`] : [])]
  return `<sub>${parts.join(' · ')}</sub>`
}

/**
 * The key's approval comment on the pull request: by the action's own identity only (anyone
 * can type a marker). A GitHub failure to write it warns; it never fails the step.
 */
export class ApprovalComment {
  readonly #comments: OwnComments
  readonly #key: string
  readonly #log: Log

  constructor(octokit: Octokit, pull: ApprovalPull, key: string, log: Log) {
    this.#comments = new OwnComments(octokit, { ...pull, issueNumber: pull.number })
    this.#key = key
    this.#log = log
  }

  /** The key's oldest approval comment, its marker and when it was last written; or undefined. */
  async find(): Promise<{ id: number; marker: ApprovalMarker; writtenAt?: string } | undefined> {
    for (const comment of await this.#comments.list()) {
      const marker = parseApprovalMarker(comment.body ?? '')
      if (marker?.key === this.#key) {
        return { id: comment.id, marker, writtenAt: comment.updated_at }
      }
    }
    return undefined
  }

  /** Writes `body` over the key's approval comment, or as a new one; `after` ends a warning. */
  async write(body: string, after: string, known?: { id: number }): Promise<void> {
    try {
      const found = known ?? (await this.find())
      if (found) await this.#comments.update(found.id, body)
      else await this.#comments.create(body)
    } catch (error) {
      this.#log.warning(
        `GitHub: could not write the approval comment on ${this.#comments.where()} (${reasonOf(error)}). ${after}`,
      )
    }
  }
}
