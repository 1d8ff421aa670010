import type { AgentAction, Conversation, ConversationStep } from './conversation.ts'
import { HEARTBEAT_INTERVAL_MS, PROGRESS_READ_INTERVAL_MS } from '../timing.ts'
import { clip } from '../text/plain.ts'

/**
 * What the agent has done since the last look, for the log while waiting:
 * each completed step's summary once, and each action once, by its category
 * and name (never its input or output, which may hold anything).
 */
export type ProgressEvent =
  | { readonly kind: 'step'; readonly summary: string }
  | { readonly kind: 'action'; readonly category: string; readonly name: string }

/** Remembers what was reported already; give it each conversation as it is read. */
export class ProgressTracker {
  readonly #reported = new Set<string>()

  update(conversation: Conversation): ProgressEvent[] {
    const events: ProgressEvent[] = []
    const visit = (steps: readonly ConversationStep[], path: string) => {
      steps.forEach((step, index) => {
        const stepKey = step.id ? `step:${step.id}` : `step@${path}${index}`
        step.messages.forEach((message, messageIndex) => {
          message.actions.forEach((action, actionIndex) => {
            const key = action.id
              ? `action:${action.id}`
              : `action@${stepKey}/${messageIndex}/${actionIndex}`
            if (this.#firstTime(key)) events.push(actionEvent(action))
          })
        })
        visit(step.steps, `${path}${index}.`)
        if (step.completed && step.summary && this.#firstTime(stepKey)) {
          events.push({ kind: 'step', summary: step.summary })
        }
      })
    }
    visit(conversation.steps, '')
    return events
  }

  #firstTime(key: string): boolean {
    if (this.#reported.has(key)) return false
    this.#reported.add(key)
    return true
  }
}

function actionEvent(action: AgentAction): ProgressEvent {
  return { kind: 'action', category: clip(action.category, 40), name: clip(action.name, 120) }
}

/** A progress event as one plain line, before it is made safe for the log. */
export function describeProgress(event: ProgressEvent): string {
  switch (event.kind) {
    case 'step':
      return `Agent step done: ${clip(event.summary.replace(/\s+/g, ' '), 500)}`
    case 'action':
      return `Agent action: ${event.category || 'action'}${event.name ? ` ${event.name}` : ''}`
  }
}

/**
 * When to read the conversation for progress: at a change of state, or when
 * 30 s have passed since the last read; but never more reads than one at the
 * start and one per 30 s since, so a run that flaps between states cannot
 * spend more than the budget of 120 reads an hour.
 */
export class ProgressReadSchedule {
  readonly #startedAt: number
  #lastReadAt: number | undefined
  #reads = 0

  constructor(now: number) {
    this.#startedAt = now
  }

  isDue(now: number, stateChanged: boolean): boolean {
    const allowed = 1 + Math.floor((now - this.#startedAt) / PROGRESS_READ_INTERVAL_MS)
    if (this.#reads >= allowed) return false
    if (stateChanged || this.#lastReadAt === undefined) return true
    return now - this.#lastReadAt >= PROGRESS_READ_INTERVAL_MS
  }

  recordRead(now: number): void {
    this.#reads += 1
    this.#lastReadAt = now
  }
}

/**
 * Never silent: tells when a "still waiting" line is owed, and how long the
 * wait may sleep before it must write one. Every log line resets it.
 */
export class Heartbeat {
  #lastLineAt: number

  constructor(now: number) {
    this.#lastLineAt = now
  }

  noteLine(now: number): void {
    this.#lastLineAt = now
  }

  isDue(now: number): boolean {
    return now - this.#lastLineAt >= HEARTBEAT_INTERVAL_MS
  }

  /** The longest sleep that still leaves time to write the line when it is owed. */
  msUntilDue(now: number): number {
    return Math.max(0, this.#lastLineAt + HEARTBEAT_INTERVAL_MS - now)
  }
}

/**
 * The session link to announce: the run's link the first time it is an
 * http(s) URL, or when it changes; undefined when there is nothing new.
 */
export function newSessionLink(announced: string | undefined, run: unknown): string | undefined {
  const link =
    typeof run === 'object' && run !== null
      ? (run as { session_link?: unknown }).session_link
      : undefined
  if (typeof link !== 'string' || link === announced) return undefined
  try {
    const url = new URL(link)
    return url.protocol === 'https:' || url.protocol === 'http:' ? link : undefined
  } catch {
    return undefined
  }
}
