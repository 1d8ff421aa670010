import { describe, expect, it } from 'vitest'
import { applyAgain, campaignTags, parseRepository } from '../../src/model/campaign.ts'

describe('a campaign applied again (src/model/campaign.ts)', () => {
  const run = (state: string, prompt = 'Bump lodash') => ({ run_id: 'run_1', state, prompt })

  it('skips a repository whose latest run works, waits for a person, or succeeded on this instruction', () => {
    for (const state of ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'BLOCKED']) {
      expect(applyAgain('Bump lodash', run(state)), state).toEqual({
        kind: 'skip',
        runId: 'run_1',
        why: 'run run_1 is still working',
      })
    }
    expect(applyAgain('Bump lodash', run('SUCCEEDED'))).toMatchObject({
      kind: 'skip',
      why: 'run run_1 succeeded on this instruction',
    })
  })

  it('starts a run where there is none, the last did not succeed, or the instruction changed', () => {
    expect(applyAgain('Bump lodash', undefined)).toEqual({ kind: 'start' })
    for (const state of ['FAILED', 'ERROR', 'CANCELLED']) {
      expect(applyAgain('Bump lodash', run(state)), state).toEqual({ kind: 'start' })
    }
    expect(applyAgain('Bump lodash to 4.17.23', run('SUCCEEDED'))).toEqual({ kind: 'start' })
  })

  it("tags a repository's task as its project's, without the step's own thread and commit", () => {
    const step = {
      gh_forge: 'github',
      gh_repository: 'ops/campaigns',
      gh_thread: '7',
      gh_head_sha: 'abc',
      gh_key: 'x',
    }
    const repository = parseRepository('gitlab:group/app')
    expect(campaignTags(step, 'c', repository)).toEqual({
      gh_forge: 'gitlab',
      gh_repository: 'group/app',
      gh_key: 'c/gitlab:group/app',
      gh_campaign: 'c',
    })
    expect(campaignTags(step, 'c', undefined)).toEqual({ ...step, gh_campaign: 'c' })
  })
})
