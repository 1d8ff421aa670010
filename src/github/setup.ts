import type { GitHubSettings, RunTarget } from '../inputs.ts'
import type { StepTarget } from '../run/step.ts'
import type { WaitLog } from '../run/wait.ts'
import { Conversation, type ConversationOptions } from './conversation.ts'
import { threadFromEvent } from './thread.ts'

/** The step's conversation, when one is asked for and the event has a thread; else undefined. */
export async function openConversation(
  github: GitHubSettings,
  log: WaitLog,
  comment: Pick<ConversationOptions, 'commentId' | 'onCommentCreated' | 'name'> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<Conversation | undefined> {
  if (!github.token) return undefined
  const lookup = threadFromEvent(env)
  if (lookup.kind === 'none') {
    log.info(`No comment thread: ${lookup.reason}. Going on without one.`)
    return undefined
  }
  const step = `${env.GITHUB_JOB ?? 'job'}/${env.GITHUB_ACTION ?? 'step'}`
  return Conversation.open(github.token, lookup.thread, { step, log, ...comment })
}

/** Turns `continue_run` into the thread's run to follow up, or a new run when there is none. */
export async function resolveTarget(
  target: RunTarget,
  conversation: Conversation | undefined,
  log: WaitLog,
): Promise<StepTarget> {
  if (target.kind !== 'continue') return target
  const runId = await conversation?.findRun()
  if (runId) {
    log.info(`continue_run: this thread's run is ${runId}; sending it the message as a follow-up.`)
    return { kind: 'existing', runId, followup: target.message }
  }
  log.info('continue_run: no earlier run on this thread; creating one.')
  return { kind: 'create', request: target.request }
}
