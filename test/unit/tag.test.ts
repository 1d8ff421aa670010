import { describe, expect, it } from 'vitest'
import { tagFromEnvironment } from '../../src/run/create.ts'

describe('tagFromEnvironment', () => {
  const env = {
    GITHUB_REPOSITORY: 'octo-org/app',
    GITHUB_RUN_ID: '1',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: 'review',
    GITHUB_ACTION: 'agent',
    GITHUB_WORKFLOW: 'x'.repeat(300),
  }

  it('records the commit the run works on, within the service limits', () => {
    const { metadata } = tagFromEnvironment(env, () => 'inv-1', 'a'.repeat(40))
    expect(metadata['gh_head_sha']).toBe('a'.repeat(40))
    const keys = Object.keys(metadata)
    expect(keys.length).toBeLessThanOrEqual(20)
    for (const key of keys) expect(key).toMatch(/^[a-zA-Z0-9._-]{1,64}$/)
    for (const value of Object.values(metadata)) {
      expect(Buffer.byteLength(value)).toBeLessThanOrEqual(256)
    }
  })

  it('leaves the key out when there is no commit', () => {
    expect(tagFromEnvironment(env, () => 'inv-1').metadata).not.toHaveProperty('gh_head_sha')
  })
})
