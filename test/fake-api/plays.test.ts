/**
 * The plays a person tries by hand (`npm run fake-api`) that bring work back: `pr:` opens the
 * merge or pull request its run's tags name, and `json:` answers a document its output_schema
 * takes, as the command's own validator judges it.
 */
import { describe, expect, it } from 'vitest'
import {
  compileOutputSchema,
  lastJsonBlock,
  outputInstruction,
} from '../../src/agent/structured-output.ts'
import { REVIEW_SCHEMA } from '../../src/agent/review-document.ts'
import { jsonSteps, pullRequestSteps } from './plays.ts'
import type { RunScript } from './store.ts'

/** The last step's final message of a play: what the command reads the answer from. */
function finalText(script: RunScript): string {
  const content = script.at(-1)?.conversation?.at(-1)?.messages.at(-1)?.content.at(-1)
  return content?.type === 'text' ? content.text : ''
}

describe('the fake plays', () => {
  it.each([
    [
      'a list it must fill',
      '{"type":"object","required":["outdated"],"properties":{"outdated":{"type":"array","minItems":2,"items":{"type":"string","minLength":3}}}}',
    ],
    [
      'numbers, a choice and a format',
      '{"type":"object","required":["count","level","at","ok","ratio"],"properties":{"count":{"type":"integer","minimum":1},"level":{"enum":["low","high"]},"at":{"type":"string","format":"date-time"},"ok":{"type":"boolean"},"ratio":{"type":"number","exclusiveMinimum":0}}}',
    ],
    [
      'one of two shapes',
      '{"anyOf":[{"type":"object","required":["a"],"properties":{"a":{"const":1}}},{"type":"string"}]}',
    ],
    ['the review of pull_request_review', JSON.stringify(REVIEW_SCHEMA)],
  ])('json: answers a document that %s takes', async (_, text) => {
    const schema = await compileOutputSchema({ input: 'output_schema', text })
    const script = jsonSteps(`List the outdated packages.\n\n${outputInstruction(schema)}`)
    expect(script.at(-1)?.state).toBe('SUCCEEDED')
    const document = JSON.parse(lastJsonBlock(finalText(script)) ?? 'null') as unknown
    expect(schema.validate(document)).toEqual([])
  })

  it('json: with no output_schema, answers {"ok": true}', () => {
    expect(JSON.parse(lastJsonBlock(finalText(jsonSteps('json: anything'))) ?? 'null')).toEqual({
      ok: true,
    })
  })

  it("pr: opens the merge or pull request its run's tags name, else octo-org/app#1", () => {
    const url = (metadata: Record<string, string>) => {
      const artifact = pullRequestSteps(metadata).at(-1)?.patch?.artifacts?.[0]
      expect(artifact?.artifact_type).toBe('PULL_REQUEST')
      return (artifact?.data as { url?: string } | undefined)?.url
    }
    expect(url({ gh_forge: 'gitlab', gh_repository: 'group/app', gh_thread: '7' })).toBe(
      'https://gitlab.example.test/group/app/-/merge_requests/7',
    )
    expect(url({ gh_repository: 'octo-org/web', gh_thread: '12' })).toBe(
      'https://github.com/octo-org/web/pull/12',
    )
    expect(url({})).toBe('https://github.com/octo-org/app/pull/1')
  })
})
