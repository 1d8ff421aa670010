import { describe, expect, it } from 'vitest'
import {
  capResult,
  finalAnswer,
  parseConversation,
  RESULT_OUTPUT_LIMIT_BYTES,
} from '../../src/agent/conversation.ts'

const text = (value: string) => ({ type: 'text', text: value })
const action = (id: string, category: string, name: string) => ({
  type: 'action',
  id,
  category,
  name,
  input: { command: 'cat ~/.ssh/id_rsa' },
})
const message = (role: string, content: unknown[], timestamp?: string) => ({
  role,
  content,
  ...(timestamp ? { timestamp } : {}),
})
const step = (id: string, messages: unknown[], steps: unknown[] = [], extra = {}) => ({
  id,
  messages,
  steps,
  ...extra,
})

const answerOf = (body: unknown) => finalAnswer(parseConversation(body))

describe('finalAnswer', () => {
  it('is the text of the last assistant message', () => {
    const body = {
      conversation_id: 'c1',
      steps: [
        step('s1', [
          message('user', [text('Review the change')]),
          message('assistant', [text('Looking at it.')]),
        ]),
        step('s2', [
          message('assistant', [text('The change is sound.')]),
          message('tool', [text('tool output')]),
          message('user', [text('thanks')]),
        ]),
      ],
    }
    expect(answerOf(body)).toBe('The change is sound.')
  })

  it('joins several text blocks of the message with a blank line, skipping actions', () => {
    const body = {
      steps: [
        step('s1', [
          message('assistant', [
            text('## Verdict'),
            action('a1', 'command', 'run'),
            text('Approve.'),
            { type: 'event', name: 'done', data: {} },
          ]),
        ]),
      ],
    }
    expect(answerOf(body)).toBe('## Verdict\n\nApprove.')
  })

  it('finds the answer inside nested steps, in conversation order', () => {
    const body = {
      steps: [
        step(
          's1',
          [message('assistant', [text('Delegating.')])],
          [
            step(
              's1.1',
              [message('assistant', [text('Sub-agent result.')])],
              [step('s1.1.1', [message('assistant', [text('Deepest.')])])],
            ),
          ],
        ),
        step(
          's2',
          [],
          [step('s2.1', [message('assistant', [text('Final, from a nested step.')])])],
        ),
      ],
    }
    expect(answerOf(body)).toBe('Final, from a nested step.')
  })

  it('goes by timestamps when every assistant message has one', () => {
    const body = {
      steps: [
        step(
          's1',
          [message('assistant', [text('later')], '2026-01-01T10:05:00Z')],
          [step('s1.1', [message('assistant', [text('earlier')], '2026-01-01T10:01:00Z')])],
        ),
      ],
    }
    expect(answerOf(body)).toBe('later')
  })

  it('skips an assistant message that only took actions', () => {
    const body = {
      steps: [
        step('s1', [
          message('assistant', [text('Here is the answer.')]),
          message('assistant', [action('a1', 'files', 'write')]),
          message('assistant', [text('   ')]),
        ]),
      ],
    }
    expect(answerOf(body)).toBe('Here is the answer.')
  })

  it('is undefined when no assistant spoke', () => {
    expect(answerOf({ steps: [step('s1', [message('user', [text('hello?')])])] })).toBeUndefined()
    expect(answerOf({ conversation_id: 'c', steps: [] })).toBeUndefined()
  })

  it('survives any shape the service or a proxy might send', () => {
    const garbage: unknown[] = [
      undefined,
      null,
      'text',
      42,
      [],
      { steps: 'nope' },
      { steps: [null, 1, 'x', { messages: 'no' }, { messages: [null, { role: 'assistant' }] }] },
      { steps: [{ messages: [{ role: 'assistant', content: [{ type: 'text', text: 7 }] }] }] },
      { steps: [{ messages: [{ role: 'assistant', content: [{ type: 'text' }, null, 'x'] }] }] },
      { steps: [{ steps: { not: 'an array' }, messages: [] }] },
      { steps: [{ id: {}, summary: [], completed_at: 5, messages: [{ timestamp: 'soon' }] }] },
    ]
    for (const body of garbage) expect(() => answerOf(body)).not.toThrow()
    expect(
      answerOf({
        steps: [
          {
            messages: [
              { role: 'assistant', content: [null, text('ok'), { type: 'text', text: 1 }] },
            ],
          },
        ],
      }),
    ).toBe('ok')
  })

  it('does not recurse without end on absurdly deep nesting', () => {
    let deep: Record<string, unknown> = step('leaf', [message('assistant', [text('deep')])])
    for (let i = 0; i < 10_000; i += 1) deep = step(`s${i}`, [], [deep])
    expect(() => answerOf({ steps: [deep] })).not.toThrow()
  })
})

describe('capResult', () => {
  it('keeps a text that fits whole', () => {
    expect(capResult('short')).toEqual({ text: 'short', truncated: false, bytes: 5 })
  })

  it('cuts a long text to the limit in bytes, with a note, never splitting a character', () => {
    const long = '€'.repeat(100_000) // 3 bytes each: 300,000 bytes
    const capped = capResult(long)
    expect(capped.truncated).toBe(true)
    expect(capped.bytes).toBe(300_000)
    expect(Buffer.byteLength(capped.text, 'utf8')).toBeLessThanOrEqual(RESULT_OUTPUT_LIMIT_BYTES)
    expect(capped.text).toMatch(/^€+\n\n\[Truncated: the agent's final message is 300,000 bytes/)
    expect(capped.text).not.toContain('\ufffd')
  })

  it('works with a small limit and four-byte characters', () => {
    const capped = capResult('😀'.repeat(50), 300)
    expect(Buffer.byteLength(capped.text, 'utf8')).toBeLessThanOrEqual(300)
    expect(capped.text).not.toContain('\ufffd')
    expect(capped.text.startsWith('😀')).toBe(true)
  })
})
