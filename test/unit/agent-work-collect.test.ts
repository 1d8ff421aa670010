import { describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { collectAgentWork, readConversation } from '../../src/agent/work.ts'
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

describe('collectAgentWork', () => {
  it('warns, and does not throw, when the download directory cannot be made', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'collect-test-'))
    try {
      const blocker = join(scratch, 'a-file')
      writeFileSync(blocker, 'in the way')
      const { log, lines } = logs()
      const run = {
        run_id: 'r1',
        state: 'SUCCEEDED',
        artifacts: [
          {
            artifact_type: 'FILE' as const,
            created_at: '2026-01-01T00:00:00Z',
            data: {
              artifact_uid: 'u1',
              filepath: 'x.txt',
              filename: 'x.txt',
              mime_type: 'text/plain',
            },
          },
        ],
      }
      const work = await collectAgentWork(
        run,
        {
          downloadPatterns: ['*.txt'],
          artifactsDir: join(blocker, 'sub'),
          runnerTemp: scratch,
          workspace: scratch,
        },
        {
          getConversation: async () => ({ steps: [] }),
          fetchFile: async () => new Uint8Array([1]),
        },
        { ...log, safeForLog: String },
        signal,
      )
      expect(work.downloadedTo.size).toBe(0)
      expect(
        lines.filter((line) => line.startsWith('warning: Could not download artifacts')),
      ).toHaveLength(1)
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
  })
})
