import { describe, expect, it } from 'vitest'
import { REVIEW_SCHEMA } from '../../src/agent/review-document.ts'
import {
  compileOutputSchema,
  correctionRequest,
  depthBeyond,
  MAX_DOCUMENT_DEPTH,
  findDocument,
  lastJsonBlock,
  outputInstruction,
} from '../../src/agent/structured-output.ts'
import { withInstruction } from '../../src/run/output.ts'
import { InputError } from '../../src/input-error.ts'

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

  it('matches patterns in time linear in the text, so a backtracking pattern cannot hang it', async () => {
    // On a backtracking engine this pattern takes exponential time on a word and a mark:
    // 41 characters froze a step past its timeout.
    const schema = await compileOutputSchema(
      inline(
        JSON.stringify({
          type: 'object',
          properties: { name: { pattern: '^(\\w+\\s?)*$' } },
          patternProperties: { '^(a+)+$': { type: 'integer' } },
        }),
      ),
    )
    const hostile = `${'a'.repeat(40_000)}!`
    expect(schema.validate({ name: hostile })).toEqual(['/name must match pattern "^(\\w+\\s?)*$"'])
    expect(schema.validate({ name: 'two words' })).toEqual([])
    expect(schema.validate({ [hostile]: 'any' })).toEqual([])
    expect(schema.validate({ aaa: 'x' })).toEqual(['/aaa must be integer'])
  })

  it('keeps ECMAScript patterns: classes, Unicode, case, anchors, lookbehinds', async () => {
    const schema = await compileOutputSchema(
      inline(
        JSON.stringify({
          type: 'array',
          prefixItems: [
            { pattern: '^\\p{Lu}\\d{2}$' },
            { pattern: '(?<!x)y' },
            { pattern: '^[^@\\s]+@[^@\\s]+$' },
          ],
        }),
      ),
    )
    expect(schema.validate(['Ä12', 'ay', 'a@b'])).toEqual([])
    expect(schema.validate(['ä12', 'xy', 'a b@c']).map((error) => error.split(' ')[0])).toEqual([
      '/0',
      '/1',
      '/2',
    ])
  })

  it('refuses a pattern that cannot run in linear time, naming it, before any request', async () => {
    const error = await compileOutputSchema(
      inline(JSON.stringify({ properties: { p: { pattern: '^(?=.*\\d).{8,}$' } } })),
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).message).toMatch(
      /^Input "output_schema" has the pattern "\^\(\?=\.\*\\\\d\)\.\{8,\}\$", which the action cannot check in a time linear in the text \(.+\)\. Lookaheads and backreferences are not supported: write the pattern without them\.$/,
    )
  })

  it('takes a document nested too deep to validate as invalid, never as a crash', async () => {
    const schema = await compileOutputSchema(
      inline(
        '{"$defs":{"node":{"type":"array","items":{"$ref":"#/$defs/node"}}},"$ref":"#/$defs/node"}',
      ),
    )
    const nest = (depth: number) =>
      JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown
    expect(schema.validate(nest(MAX_DOCUMENT_DEPTH))).toEqual([])
    expect(schema.validate(nest(MAX_DOCUMENT_DEPTH + 1))).toEqual([
      `/ is nested more than ${MAX_DOCUMENT_DEPTH} levels deep; flatten the document`,
    ])
    expect(schema.validate(nest(10_000))).toHaveLength(1)
    expect(depthBeyond({ a: [{ b: 1 }] }, 3)).toBe(false)
    expect(depthBeyond({ a: [{ b: {} }] }, 3)).toBe(true)
  })

  it('quotes the value at fault in an invalid schema, as a sentence', async () => {
    const error = await compileOutputSchema(inline('type: objekt')).catch(
      (caught: unknown) => caught,
    )
    expect((error as InputError).message).toBe(
      'Input "output_schema" is not a valid JSON Schema (draft 2020-12): at /type, "objekt" must be equal to one of the allowed values (array, boolean, integer, null, number, object, string).',
    )
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
    // The run is titled with the user's words, so no headline shows the action's instruction.
    expect(withInstruction({ kind: 'create', request: { prompt: 'Go' } }, 'I')).toEqual({
      kind: 'create',
      request: { title: 'Go', prompt: 'Go\n\nI' },
    })
    expect(
      withInstruction(
        { kind: 'create', request: { prompt: '\n  Review PR #7 \nCarefully.', title: undefined } },
        'I',
      ),
    ).toMatchObject({ request: { title: 'Review PR #7' } })
    expect(
      withInstruction({ kind: 'create', request: { prompt: 'Go', title: 'Mine' } }, 'I'),
    ).toMatchObject({ request: { title: 'Mine' } })
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
