import { describe, expect, it } from 'vitest'
import { runTag } from '../../src/run/create.ts'

describe('runTag', () => {
  const world = {
    forge: 'github' as const,
    project: 'octo-org/app',
    runId: '1',
    runAttempt: '1',
    job: 'review',
    action: 'agent',
    workflow: 'x'.repeat(300),
  }

  it('records the commit the run works on, within the service limits', () => {
    const { metadata } = runTag(world, () => 'inv-1', 'a'.repeat(40))
    expect(metadata['gh_head_sha']).toBe('a'.repeat(40))
    const keys = Object.keys(metadata)
    expect(keys.length).toBeLessThanOrEqual(20)
    for (const key of keys) expect(key).toMatch(/^[a-zA-Z0-9._-]{1,64}$/)
    for (const value of Object.values(metadata)) {
      expect(Buffer.byteLength(value)).toBeLessThanOrEqual(256)
    }
  })

  it('leaves the key out when there is no commit', () => {
    expect(runTag(world, () => 'inv-1').metadata).not.toHaveProperty('gh_head_sha')
  })
})
