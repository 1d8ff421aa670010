import { describe, expect, it } from 'vitest'
import {
  isRunId,
  MAX_ANSWER_BYTES,
  MAX_PROMPT_BYTES,
  readCreatedRun,
  readRunItem,
} from '../../src/api/answers.ts'
import type { RunItem } from '../../src/api/types.ts'
import {
  composeComment,
  MAX_COMMENT_CHARS,
  partsOf,
  renderComment,
} from '../../src/github/comment.ts'
import type { Marker } from '../../src/github/run-marker.ts'
import { renderSummary, verdictOf } from '../../src/summary/summary.ts'
import { escapeMarkdown } from '../../src/text/markdown.ts'
import type { StepOutcome } from '../../src/model/step.ts'

describe('readCreatedRun', () => {
  it.each([undefined, null, {}, 42, 'run_abc', [], { run_id: '' }, { run_id: 7 }])(
    'refuses %j: no run to poll',
    (answer) =>
      expect(readCreatedRun(answer)).toEqual({ problem: 'an answer without a usable run_id' }),
  )

  it.each(['../x', 'a/b', '..', 'run\nabc', 'run abc'])('refuses the run_id %j', (runId) =>
    expect(readCreatedRun({ run_id: runId, state: 'QUEUED' })).toHaveProperty('problem'),
  )

  it('takes a run_id and state, and keeps at_capacity only when it is true', () => {
    expect(
      readCreatedRun({ run_id: 'run_1', state: 'PENDING', at_capacity: true, extra: 1 }),
    ).toEqual({ run: { run_id: 'run_1', state: 'PENDING', at_capacity: true } })
    expect(readCreatedRun({ run_id: 'run_1', state: 'PENDING', at_capacity: 'yes' })).toEqual({
      run: { run_id: 'run_1', state: 'PENDING' },
    })
  })

  it('a run_id without a usable state is still the run, its state unknown until a poll', () => {
    expect(readCreatedRun({ run_id: 'run_1' })).toEqual({
      run: { run_id: 'run_1', state: 'UNKNOWN' },
    })
    expect(readCreatedRun({ run_id: 'run_1', state: 3 })).toEqual({
      run: { run_id: 'run_1', state: 'UNKNOWN' },
    })
  })
})

describe('isRunId', () => {
  it.each(['run_abc', 'a.b-c_d', 'R1', '.hidden', 'x'.repeat(200)])('accepts %j', (id) => {
    expect(isRunId(id)).toBe(true)
  })

  it.each([
    '',
    '.',
    '..',
    '...',
    'a/b',
    '../x',
    'a b',
    'a\nb',
    'a\u0000',
    'é',
    'x'.repeat(201),
    42,
    null,
  ])('refuses %j', (id) => {
    expect(isRunId(id)).toBe(false)
  })
})

describe('readRunItem: an answer is a run, or garbled', () => {
  it.each([
    ['null', null, /not a run \(null\)/],
    ['an empty body', undefined, /not a run \(an empty body\)/],
    ['an array', [{ run_id: 'r1', state: 'QUEUED' }], /not a run \(an array\)/],
    ['a string', 'SUCCEEDED', /not a run \(the string "SUCCEEDED"\)/],
    ['a number', 7, /not a run \(a number\)/],
    ['another run', { run_id: 'r2', state: 'FAILED' }, /another run \(r2\)/],
    ['a run_id that is no ID', { run_id: '..', state: 'FAILED' }, /run_id is not a run ID/],
    ['a numeric state', { run_id: 'r1', state: 3 }, /state is not a string \(a number\)/],
    ['an object state', { run_id: 'r1', state: { v: 'FAILED' } }, /state is not a string/],
    ['an empty state', { run_id: 'r1', state: ' ' }, /state is not a string/],
  ])('%s is garbled', (_, data, problem) => {
    const read = readRunItem(data, 'r1')
    expect('problem' in read && read.problem).toMatch(problem)
  })

  it('reads a plain status_message as the message, and drops fields of the wrong type', () => {
    const read = readRunItem(
      {
        run_id: 'r1',
        state: 'FAILED',
        status_message: 'out of disk',
        title: 12,
        session_link: { url: 'x' },
        artifacts: 'none',
        request_usage: [1],
        agent_config: { name: 5, mcp_servers: { a: { url: 'u' } } },
        is_run_type_cancellable: 'yes',
        metadata: { gh_invocation: 'u1' },
      },
      'r1',
    )
    expect('run' in read && read.run).toEqual({
      run_id: 'r1',
      state: 'FAILED',
      status_message: { message: 'out of disk' },
      title: '12',
      agent_config: { name: '5', mcp_servers: { a: { url: 'u' } } },
      metadata: { gh_invocation: 'u1' },
    })
  })
})

describe('limits that agree', () => {
  it('the client reads back a run that echoes the largest prompt, escaped at its worst', () => {
    // JSON escapes a control character as six bytes (\u0001).
    expect(MAX_ANSWER_BYTES).toBeGreaterThan(6 * MAX_PROMPT_BYTES + 64 * 1024)
    const worst = JSON.stringify({
      run_id: 'r1',
      state: 'QUEUED',
      prompt: '\u0001'.repeat(MAX_PROMPT_BYTES),
    })
    expect(Buffer.byteLength(worst)).toBeLessThan(MAX_ANSWER_BYTES)
  })
})

describe('rendering never crashes, whatever the API sent', () => {
  const oddValues: unknown[] = [
    null,
    42,
    true,
    '',
    'text\n::warning::x',
    [],
    [null, 1, 'a'],
    {},
    { message: 5 },
    { nested: { deeper: [1, { a: null }] } },
  ]
  const fields = [
    'title',
    'prompt',
    'status_message',
    'session_link',
    'run_time',
    'artifacts',
    'request_usage',
    'agent_config',
    'creator',
    'created_at',
    'updated_at',
  ]
  const outcomes = (run: RunItem): StepOutcome[] => [
    { kind: 'finished', run, elapsedMs: 1_000 },
    { kind: 'started', run },
    {
      kind: 'timed-out',
      run,
      stateAtTimeout: run.state,
      elapsedMs: 1_000,
      timeoutMs: 1_000,
      cancel: { kind: 'cancelled' },
    },
    { kind: 'interrupted', run, signal: 'SIGINT', cancel: { kind: 'failed', message: 'x' } },
  ]

  for (const field of fields) {
    it(`${field} of any type`, () => {
      for (const value of oddValues) {
        for (const state of ['FAILED', 'SUCCEEDED', 'BLOCKED', 'NEW_STATE']) {
          const read = readRunItem({ run_id: 'r1', state, [field]: value }, 'r1')
          if (!('run' in read)) throw new Error(read.problem)
          for (const outcome of outcomes(read.run)) {
            expect(() => renderSummary(outcome)).not.toThrow()
            expect(() => verdictOf(outcome)).not.toThrow()
          }
          const marker: Marker = { runId: 'r1', step: 'j/s', runs: [] }
          expect(() => renderComment(read.run, marker)).not.toThrow()
          expect(() => renderComment(read.run, marker, { short: true })).not.toThrow()
        }
      }
    })
  }
})

describe("the comment within GitHub's limit", () => {
  const earlier = {
    runId: 'r0',
    state: 'CANCELLED',
    startedAt: '2026-11-01T10:00:00.000Z',
  }
  const marker: Marker = { runId: 'r1', step: 'j/s', runs: [earlier] }

  it('cuts the body after escaping, keeping the marker, the links and the history, with a note', () => {
    const run: RunItem = {
      run_id: 'r1',
      state: 'FAILED',
      session_link: 'https://agents.example/s/1',
      status_message: { message: '|'.repeat(100_000) },
    }
    // Escaping makes a long status message and the body around it outgrow the limit.
    const body = composeComment(marker, {
      ...partsOf(run, { runs: marker.runs, sets: [] }),
      body: escapeMarkdown('|'.repeat(100_000)),
    })
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS)
    expect(body.startsWith('<!-- cloud-agent-run:')).toBe(true)
    expect(body).toContain("cut at GitHub's limit of 65,536 characters")
    expect(body).toContain('(https://agents.example/s/1)')
    expect(body).toMatch(
      /<details><summary>Earlier runs \(1\)<\/summary>[\s\S]*r0[\s\S]*<\/details>$/,
    )
    // No escape is cut in half.
    expect(body).not.toMatch(/&#?\d*…/)
  })

  it('leaves a comment within the limit as it is', () => {
    const run: RunItem = { run_id: 'r1', state: 'FAILED', status_message: { message: 'short' } }
    const body = renderComment(run, marker)
    expect(body).toContain('short')
    expect(body).not.toContain('cut at GitHub')
  })

  it('keeps the short comment short, whatever the title and message', () => {
    const run: RunItem = {
      run_id: 'r1',
      state: 'SUCCEEDED',
      title: 'T'.repeat(100_000),
      status_message: { message: 'M'.repeat(100_000) },
    }
    const body = renderComment(run, marker, { short: true })
    expect(body.length).toBeLessThan(2_000)
    expect(body).toContain('Succeeded')
  })
})
