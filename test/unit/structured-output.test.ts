import { describe, expect, it } from 'vitest'
import { REVIEW_SCHEMA } from '../../src/agent/review-document.ts'
import {
  compileOutputSchema,
  correctionRequest,
  findDocument,
  lastJsonBlock,
  outputInstruction,
  withInstruction,
} from '../../src/agent/structured-output.ts'
import { InputError } from '../../src/inputs.ts'

const inline = (text: string) => ({ input: 'output_schema', text })

describe('lastJsonBlock', () => {
  it('takes the last json block, whatever the fences around it', () => {
    const text = [
      '```json',
      '{"first": true}',
      '```',
      '~~~ts',
      'const notJson = 1',
      '~~~',
      '````JSON',
      '{"last": "```inside```"}',
      '```',
      '````',
      'After.',
    ].join('\n')
    expect(lastJsonBlock(text)).toBe('{"last": "```inside```"}\n```')
  })

  it('runs an unclosed block to the end, and finds none in plain text', () => {
    expect(lastJsonBlock('Result:\r\n```json\r\n{"a": 1}')).toBe('{"a": 1}')
    expect(lastJsonBlock('No block, only `json` in a span.')).toBeUndefined()
  })

  it('reads a message of many fences, and an unclosed one of many lines', () => {
    expect(lastJsonBlock('```json\n{}\n```\n'.repeat(50_000))).toBe('{}')
    expect(lastJsonBlock(`\`\`\`json\n${'1\n'.repeat(100_000)}`)).toHaveLength(200_000)
  })
})

describe('findDocument', () => {
  it('prefers the final message, and falls back on result.json', () => {
    expect(findDocument('```json\n{"a":1}\n```', '{"a":2}')).toEqual({
      kind: 'found',
      document: { a: 1 },
      from: "the final message's last json block",
    })
    expect(findDocument('No block.', '{"a":2}')).toMatchObject({ document: { a: 2 } })
  })

  it('says what is missing or unreadable', () => {
    expect(findDocument(undefined, undefined)).toEqual({
      kind: 'unreadable',
      problem: 'the final message has no ```json block, and there is no file result.json',
    })
    expect(findDocument('```json\n{oops}\n```', undefined)).toMatchObject({
      kind: 'unreadable',
      problem: expect.stringMatching(/^the final message's last json block is not JSON \(/),
    })
  })
})

describe('compileOutputSchema', () => {
  it('takes JSON or YAML, and names the errors of a document', async () => {
    const schema = await compileOutputSchema(
      inline(
        'type: object\nrequired: [n]\nproperties:\n  n: { type: integer }\n  at: { format: date-time }',
      ),
    )
    expect(schema.text).toBe(
      '{"type":"object","required":["n"],"properties":{"n":{"type":"integer"},"at":{"format":"date-time"}}}',
    )
    expect(schema.validate({ n: 1, at: '2026-01-01T00:00:00Z' })).toEqual([])
    expect(schema.validate({ n: 'one', at: 'yesterday' })).toEqual([
      '/n must be integer',
      '/at must match format "date-time"',
    ])
    expect(schema.validate([])).toEqual(['/ must be object'])
  })

  it('names at most ten errors, and the rest by number', async () => {
    const schema = await compileOutputSchema(inline('{"type":"array","items":{"type":"string"}}'))
    const errors = schema.validate(Array.from({ length: 14 }, (_, i) => i))
    expect(errors).toHaveLength(11)
    expect(errors.at(-1)).toBe('… and 4 more')
  })

  it('refuses text that is no schema, as an input error', async () => {
    for (const [text, message] of [
      ['{"type": "strng"}', 'is not a valid JSON Schema (draft 2020-12)'],
      ['[1, 2]', 'must be a JSON Schema: an object'],
      ['type: [object\n', 'is neither JSON nor YAML'],
    ] as const) {
      const error = await compileOutputSchema(inline(text)).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(InputError)
      expect((error as InputError).message).toContain(`Input "output_schema" ${message}`)
    }
  })

  it('compiles the review schema, which takes what the contract lists', async () => {
    const schema = await compileOutputSchema(inline(JSON.stringify(REVIEW_SCHEMA)))
    const review = {
      summary: 'Fine',
      verdict: 'request_changes',
      comments: [{ path: 'a.ts', line: 3, start_line: 1, side: 'RIGHT', body: 'Why?' }],
    }
    expect(schema.validate(review)).toEqual([])
    expect(schema.validate({ ...review, verdict: 'reject' })).toEqual([
      '/verdict must be equal to one of the allowed values (["approve","comment","request_changes"])',
    ])
  })
})

describe('what the agent is told', () => {
  it('adds the instruction to a prompt, a follow-up, or alone to a skill', async () => {
    const schema = await compileOutputSchema(inline('{"type":"object"}'))
    const instruction = outputInstruction(schema)
    expect(instruction).toContain('```json\n{"type":"object"}\n```')
    expect(withInstruction({ kind: 'create', request: { prompt: 'Go' } }, 'I')).toEqual({
      kind: 'create',
      request: { prompt: 'Go\n\nI' },
    })
    expect(
      withInstruction({ kind: 'create', request: { config: { skill_spec: 'a/b:c' } } }, 'I'),
    ).toEqual({ kind: 'create', request: { config: { skill_spec: 'a/b:c' }, prompt: 'I' } })
    expect(withInstruction({ kind: 'existing', runId: 'r', followup: 'More' }, 'I')).toEqual({
      kind: 'existing',
      runId: 'r',
      followup: 'More\n\nI',
    })
    const awaited = { kind: 'existing' as const, runId: 'r', followup: undefined }
    expect(withInstruction(awaited, 'I')).toBe(awaited)
  })

  it('sends the errors back, one a line', () => {
    expect(correctionRequest(['/a must be integer', '/b is required'])).toBe(
      [
        'Your result does not validate against the JSON Schema you were given:',
        '- /a must be integer',
        '- /b is required',
        '',
        'Reply with the corrected document as one ```json fenced block at the end of your message.',
      ].join('\n'),
    )
  })
})
