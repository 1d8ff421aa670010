import { describe, expect, it } from 'vitest'
import { readConversation } from '../../src/agent/work.ts'
import {
  InternalServerError,
  NotFoundError,
  UnprocessableEntityError,
} from '../../src/api/errors.ts'

const label = { method: 'GET', path: '/agent/runs/r1/conversation' }

function logs() {
  const lines: string[] = []
  return {
    lines,
    log: {
      info: (message: string) => lines.push(`info: ${message}`),
      warning: (message: string) => lines.push(`warning: ${message}`),
      debug: (message: string) => lines.push(`debug: ${message}`),
    },
  }
}

const signal = new AbortController().signal

describe('readConversation', () => {
  it('parses what the service sends, whatever its shape', async () => {
    const { log, lines } = logs()
    const sources = { getConversation: async () => 'not a conversation' }
    expect(await readConversation('r1', sources, log, signal)).toEqual({ steps: [] })
    expect(lines).toEqual([])
  })

  it.each([
    [
      new NotFoundError(label, 404, {}, undefined, 'none'),
      /^info: .*no conversation to read \(404\)/,
    ],
    [
      new UnprocessableEntityError(label, 422, {}, undefined, 'operation_not_supported'),
      /^info: .*normalized form yet \(422\)/,
    ],
    [
      new InternalServerError(label, 503, {}, undefined, 'down'),
      /^warning: .*The outcome is unchanged\.$/,
    ],
  ])('turns %s into one line and no conversation, never a throw', async (error, line) => {
    const { log, lines } = logs()
    const sources = {
      getConversation: async () => {
        throw error
      },
    }
    expect(await readConversation('r1', sources, log, signal)).toBeUndefined()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(line)
  })
})
