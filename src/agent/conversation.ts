/**
 * A run's normalized conversation (`GET /agent/runs/{runId}/conversation`),
 * read defensively: the body is whatever the service (or a proxy) sent, so
 * every member is checked, and anything of the wrong type is left out rather
 * than trusted. Nothing here throws on any input.
 */
import { formatDecimal } from '../text/format.ts'

export type MessageRole = 'user' | 'assistant' | 'tool' | 'system' | (string & {})

/** An action the agent took: what kind and which tool, never its input or output. */
export interface AgentAction {
  /** '' when the service gave none. */
  readonly id: string
  readonly category: string
  readonly name: string
}

export interface ConversationMessage {
  readonly role: MessageRole
  /** Milliseconds since the epoch, when the service gave a readable timestamp. */
  readonly at: number | undefined
  /** The text blocks, in order. */
  readonly texts: readonly string[]
  readonly actions: readonly AgentAction[]
}

export interface ConversationStep {
  /** '' when the service gave none. */
  readonly id: string
  /** What the step did, when it is done and the service says. */
  readonly summary: string | undefined
  readonly completed: boolean
  readonly messages: readonly ConversationMessage[]
  readonly steps: readonly ConversationStep[]
}

export interface Conversation {
  readonly steps: readonly ConversationStep[]
}

/** Nested steps deeper than this are ignored: a body cannot make the action recurse without end. */
const MAX_DEPTH = 32

export function parseConversation(body: unknown): Conversation {
  return { steps: parseSteps(isRecord(body) ? body.steps : undefined, 0) }
}

function parseSteps(value: unknown, depth: number): ConversationStep[] {
  if (!Array.isArray(value) || depth > MAX_DEPTH) return []
  return value.filter(isRecord).map((step) => ({
    id: stringOr(step.id, ''),
    summary: nonEmpty(step.summary) ?? nonEmpty(step.description),
    completed: typeof step.completed_at === 'string' && step.completed_at !== '',
    messages: Array.isArray(step.messages) ? step.messages.filter(isRecord).map(parseMessage) : [],
    steps: parseSteps(step.steps, depth + 1),
  }))
}

function parseMessage(message: Record<string, unknown>): ConversationMessage {
  const blocks = Array.isArray(message.content) ? message.content.filter(isRecord) : []
  const at = typeof message.timestamp === 'string' ? Date.parse(message.timestamp) : NaN
  return {
    role: stringOr(message.role, ''),
    at: Number.isFinite(at) ? at : undefined,
    texts: blocks
      .filter((block) => block.type === 'text' && typeof block.text === 'string')
      .map((block) => block.text as string),
    actions: blocks
      .filter((block) => block.type === 'action')
      .map((block) => ({
        id: stringOr(block.id, ''),
        category: stringOr(block.category, ''),
        name: stringOr(block.name, ''),
      }))
      .filter((action) => action.category !== '' || action.name !== ''),
  }
}

/** Every message, depth first: a step's own messages, then its nested steps'. */
export function messagesInOrder(conversation: Conversation): ConversationMessage[] {
  const out: ConversationMessage[] = []
  const visit = (steps: readonly ConversationStep[]) => {
    for (const step of steps) {
      out.push(...step.messages)
      visit(step.steps)
    }
  }
  visit(conversation.steps)
  return out
}

/**
 * The agent's final message: the text of the last `assistant` message that has
 * any text (one that only took actions says nothing). "Last" is by timestamp
 * when every such message has one, else by position in the conversation.
 * Several text blocks are joined by a blank line. Undefined when there is none.
 */
export function finalAnswer(conversation: Conversation): string | undefined {
  const candidates = messagesInOrder(conversation)
    .map((message, order) => ({ message, order, text: message.texts.join('\n\n').trim() }))
    .filter(({ message, text }) => message.role === 'assistant' && text !== '')
  if (candidates.length === 0) return undefined
  const byTime = candidates.every(({ message }) => message.at !== undefined)
  const last = candidates.reduce((latest, candidate) =>
    byTime && (candidate.message.at ?? 0) < (latest.message.at ?? 0) ? latest : candidate,
  )
  return last.text
}

/** GitHub keeps at most 1 MiB of outputs per job; the answer takes a quarter of it at most. */
export const RESULT_OUTPUT_LIMIT_BYTES = 256 * 1024

/**
 * The text for the `result` output: whole when it fits in `limit` bytes of
 * UTF-8, else its beginning (cut between characters) and a note saying so.
 */
export function capResult(
  text: string,
  limit = RESULT_OUTPUT_LIMIT_BYTES,
): { text: string; truncated: boolean; bytes: number } {
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes <= limit) return { text, truncated: false, bytes }
  const note = `\n\n[Truncated: the agent's final message is ${formatDecimal(bytes, 0)} bytes; the result output keeps the first ${Math.floor(limit / 1024)} KiB. The whole message is in the session transcript.]`
  const room = Math.max(0, limit - Buffer.byteLength(note, 'utf8'))
  return { text: cutUtf8(text, room) + note, truncated: true, bytes }
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
function cutUtf8(text: string, maxBytes: number): string {
  const encoded = Buffer.from(text, 'utf8')
  let end = Math.min(maxBytes, encoded.length)
  // Back off continuation bytes (10xxxxxx) to the start of the character they belong to.
  while (end > 0 && end < encoded.length && ((encoded[end] ?? 0) & 0xc0) === 0x80) end -= 1
  return encoded.subarray(0, end).toString('utf8')
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}
