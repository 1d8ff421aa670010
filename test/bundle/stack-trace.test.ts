/**
 * dist/ ships source maps and ncc's source-map register, so the stack trace the
 * top-level catch prints in debug output names the TypeScript sources, not
 * dist/index.js:3:37307.
 */
import { describe, expect, it } from 'vitest'
import { runStep } from '../e2e/harness.ts'

describe('stack traces of the bundle', () => {
  it('point into src/ in debug output', async () => {
    const result = await runStep({
      inputs: { api_key: 'sk-stack', base_url: 'ftp://agents.example.test/api/v1', prompt: 'x' },
      env: { RUNNER_DEBUG: '1' },
      target: 'bundle',
    })

    expect(result.code).toBe(1)
    const debug = result.stdout.split('\n').filter((line) => line.startsWith('::debug::'))
    const trace = debug.find((line) => line.includes('InputError')) ?? ''
    // Multi-line debug messages are escaped as %0A. The frames of our code, from the
    // throw up to the entry, all name sources; only webpack's runtime names dist/.
    const frames = trace.split('%0A').filter((line) => line.trim().startsWith('at '))
    const ours = frames.slice(
      0,
      frames.findIndex((frame) => /webpack|\/dist\//.test(frame)),
    )
    expect(ours[0]).toMatch(/at parseBaseUrl \(\S*\/src\/inputs\/connection\.ts:\d+:\d+\)/)
    expect(ours.length).toBeGreaterThanOrEqual(3)
    for (const frame of ours) expect(frame).toMatch(/\/src\/\S+\.ts:\d+:\d+/)
  })
})
