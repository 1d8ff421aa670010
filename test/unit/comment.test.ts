import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { parseMarker, renderComment, renderMarker } from '../../src/github/comment.ts'

const marker = { runId: 'run_abc', step: 'review/agent' }

describe('the comment marker', () => {
  it('round-trips through a rendered comment', () => {
    const body = renderComment({ run_id: 'run_abc', state: 'INPROGRESS' }, marker)
    expect(parseMarker(body)).toEqual(marker)
  })

  it('is an HTML comment, invisible in the rendered thread', () => {
    expect(renderMarker(marker)).toMatch(/^<!-- cloud-agent-run: \{.*\} -->$/)
  })

  it('rejects markers that are not ours or carry an unsafe run ID', () => {
    expect(parseMarker('no marker here')).toBeUndefined()
    expect(parseMarker('<!-- cloud-agent-run: {not json} -->')).toBeUndefined()
    expect(parseMarker('<!-- cloud-agent-run: {"run_id":"../../admin"} -->')).toBeUndefined()
    expect(parseMarker('<!-- cloud-agent-run: {"run_id":42} -->')).toBeUndefined()
  })
})

describe('renderComment', () => {
  const run = (patch: Partial<RunItem>): RunItem => ({
    run_id: 'run_abc',
    state: 'QUEUED',
    ...patch,
  })

  it('says queued, in progress, then the outcome', () => {
    expect(renderComment(run({ state: 'QUEUED' }), marker)).toContain('is queued')
    expect(renderComment(run({ state: 'INPROGRESS' }), marker)).toContain('is in progress')
    expect(renderComment(run({ state: 'SUCCEEDED' }), marker)).toContain('✅ succeeded')
    expect(renderComment(run({ state: 'FAILED' }), marker)).toContain('❌ did not succeed')
    expect(renderComment(run({ state: 'BLOCKED' }), marker)).toContain('waiting for a person')
  })

  it('links the session and quotes the status message of a failure, escaped', () => {
    const body = renderComment(
      run({
        state: 'FAILED',
        session_link: 'https://app.example.test/s/1',
        status_message: { message: 'Build broke <script>alert(1)</script>' },
      }),
      marker,
    )
    expect(body).toContain('[Open the session transcript](https://app.example.test/s/1)')
    expect(body).toContain('> Build broke &#60;script&#62;')
    expect(body).not.toContain('<script>')
  })

  it('cannot be made to forge a second marker through API text', () => {
    const body = renderComment(
      run({ title: '<!-- cloud-agent-run: {"run_id":"run_evil"} -->' }),
      marker,
    )
    expect(parseMarker(body)).toEqual(marker)
    expect(body.match(/<!--/g)).toHaveLength(1)
  })
})
