/** `on_blocked`: what the step does when the run is BLOCKED, waiting for a person. */
export const ON_BLOCKED = ['wait', 'fail', 'pass'] as const
export type OnBlocked = (typeof ON_BLOCKED)[number]

export type BlockedDecision =
  /** Keep waiting, within the timeout; say loudly that nothing happens until a person answers. */
  | { readonly keepWaiting: true }
  /** End the step now and hand the run to a person: the run is settled, never cancelled. */
  | { readonly keepWaiting: false; readonly passes: boolean }

export function decideOnBlocked(onBlocked: OnBlocked): BlockedDecision {
  switch (onBlocked) {
    case 'wait':
      return { keepWaiting: true }
    case 'fail':
      return { keepWaiting: false, passes: false }
    case 'pass':
      return { keepWaiting: false, passes: true }
  }
}

/**
 * What a BLOCKED run waits for: its status message, else the agent's last
 * message (often the question it asked), else undefined.
 */
export function blockedQuestion(
  statusMessage: unknown,
  lastAgentMessage: string | undefined,
): string | undefined {
  const message =
    typeof statusMessage === 'object' && statusMessage !== null
      ? (statusMessage as { message?: unknown }).message
      : undefined
  if (typeof message === 'string' && message.trim() !== '') return message.trim()
  const last = lastAgentMessage?.trim()
  return last ? last : undefined
}

/** How a person answers a BLOCKED run: in the session, or by a comment where continue_run listens. */
export function howToAnswer(options: {
  sessionLink: string | undefined
  continueRun: boolean
}): string {
  const ways: string[] = []
  if (options.sessionLink) ways.push(`answer in the session (${options.sessionLink})`)
  if (options.continueRun) {
    ways.push('reply with a comment on this pull request or issue; continue_run passes it on')
  }
  if (ways.length === 0) ways.push('answer in the session, in the app')
  const sentence = ways.join(', or ')
  return `To move it on, ${sentence}.`
}
