import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import {
  JSON_OUTPUT_LIMIT_BYTES,
  jsonOutput,
  leadingThatFit,
  runOutput,
} from '../../src/summary/json-output.ts'

/** A value nested deeper than JSON.stringify's stack allows (JSON.parse reads it). */
function nested(depth: number): unknown {
  return JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`)
}

const run: RunItem = {
  run_id: 'run_1',
  state: 'SUCCEEDED',
  title: 'Review',
  request_usage: { inference_cost: 1, compute_cost: 2 },
}

describe('JSON outputs never fail a run', () => {
  it('a run that can be written and fits is the whole run', () => {
    expect(runOutput(run)).toEqual({ json: JSON.stringify(run) })
  })

  it('a run with a field nested 20,000 deep keeps its other top-level fields, with a note', () => {
    const deep = { ...run, deep: nested(20_000) } as RunItem
    expect(() => JSON.stringify(deep)).toThrow(RangeError)
    const output = runOutput(deep)
    expect(JSON.parse(output.json ?? '')).toEqual({ ...run, truncated: true })
    expect(output.note).toMatch(
      /^The run output holds only its top-level fields .*could not be written as JSON/,
    )
  })

  it('a run over 256 KiB (a long prompt echoed) keeps its fields, text cut to 2,000 characters', () => {
    const long = { ...run, prompt: 'p'.repeat(JSON_OUTPUT_LIMIT_BYTES) }
    const output = runOutput(long)
    expect(JSON.parse(output.json ?? '')).toEqual({
      ...run,
      prompt: 'p'.repeat(2_000),
      truncated: true,
    })
    expect(output.note).toContain(`over the ${JSON_OUTPUT_LIMIT_BYTES}-byte limit`)
  })

  it('a run with thousands of top-level fields still names the run', () => {
    const wide: RunItem & Record<string, unknown> = { ...run }
    for (let i = 0; i < 400; i += 1) wide[`field_${i}`] = 'x'.repeat(1_000)
    const output = runOutput(wide)
    expect(JSON.parse(output.json ?? '')).toEqual({
      run_id: 'run_1',
      state: 'SUCCEEDED',
      truncated: true,
    })
  })

  it('an output with no smaller form is not set, and says why', () => {
    expect(jsonOutput('structured_output', { deep: nested(20_000) })).toEqual({
      note: expect.stringMatching(
        /^The structured_output output is not set: .*could not be written as JSON/,
      ),
    })
  })

  it('an array keeps its leading items that fit', () => {
    const items = Array.from({ length: 1_000 }, (_, i) => ({
      name: `${i}`,
      url: 'u'.repeat(1_000),
    }))
    const kept = leadingThatFit(items)
    expect(kept.length).toBeGreaterThan(200)
    expect(kept.length).toBeLessThan(1_000)
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(JSON_OUTPUT_LIMIT_BYTES)
    expect(Buffer.byteLength(JSON.stringify(items.slice(0, kept.length + 1)))).toBeGreaterThan(
      JSON_OUTPUT_LIMIT_BYTES,
    )
  })
})
