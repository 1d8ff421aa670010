import { describe, expect, it } from 'vitest'
import {
  applyAgain,
  campaignFollowUp,
  campaignTags,
  isCampaignFollowUp,
  parseRepository,
} from '../../src/model/campaign.ts'

describe('a campaign applied again (src/model/campaign.ts)', () => {
  const run = (state: string, prompt = 'Bump lodash', id = 'run_1') => ({
    run_id: id,
    state,
    prompt,
  })
  const latest = (state: string, prompt?: string) => ({
    latest: run(state, prompt),
    opener: undefined,
  })

  it('skips a repository whose latest run works, waits for a person, or succeeded on this instruction', () => {
    for (const state of ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'BLOCKED']) {
      expect(applyAgain('Bump lodash', latest(state)), state).toEqual({
        kind: 'skip',
        runId: 'run_1',
        why: 'run run_1 is still working',
      })
    }
    expect(applyAgain('Bump lodash', latest('SUCCEEDED'))).toMatchObject({
      kind: 'skip',
      why: 'run run_1 succeeded on this instruction',
    })
  })

  it('starts a run where there is none, the last did not succeed, or the instruction changed and no run opened a pull request', () => {
    expect(applyAgain('Bump lodash', { latest: undefined, opener: undefined })).toEqual({
      kind: 'start',
    })
    for (const state of ['FAILED', 'ERROR', 'CANCELLED']) {
      expect(applyAgain('Bump lodash', latest(state)), state).toEqual({ kind: 'start' })
    }
    expect(applyAgain('Bump lodash to 4.17.23', latest('SUCCEEDED'))).toEqual({ kind: 'start' })
  })

  it('sends a changed instruction to the run that opened the pull request, once', () => {
    const opener = run('SUCCEEDED', 'Bump lodash', 'run_pr')
    const runs = { latest: opener, opener }
    expect(applyAgain('Bump lodash to 4.17.23', { ...runs, sent: false })).toMatchObject({
      kind: 'follow-up',
      run: opener,
      why: 'the instruction changed: sent to run run_pr, which opened its pull request',
    })
    // Sent and done: nothing more to pay for.
    expect(applyAgain('Bump lodash to 4.17.23', { ...runs, sent: true })).toMatchObject({
      kind: 'skip',
      why: 'run run_pr succeeded on this instruction, sent as a follow-up',
    })
    // Sent, and the run failed on it: once more, to the same run.
    const failed = run('FAILED', 'Bump lodash', 'run_pr')
    expect(
      applyAgain('Bump lodash to 4.17.23', { latest: failed, opener: failed, sent: true }),
    ).toMatchObject({ kind: 'follow-up' })
    // Not known whether it was sent: skipped, never risked twice.
    expect(applyAgain('Bump lodash to 4.17.23', runs)).toMatchObject({
      kind: 'skip',
      runId: 'run_pr',
    })
    // A newer run of the repository that failed: the change still goes to the pull request's run.
    expect(
      applyAgain('Bump lodash to 4.17.23', {
        latest: run('FAILED', 'Bump lodash to 4.17.22', 'run_new'),
        opener,
        sent: false,
      }),
    ).toMatchObject({ kind: 'follow-up', run: opener })
  })

  it("finds its own follow-up in a conversation, and not another campaign's or instruction's", () => {
    const text = campaignFollowUp('c', 'Bump lodash', 'https://github.com/o/r/pull/1')
    expect(isCampaignFollowUp(text, 'c', 'Bump lodash')).toBe(true)
    expect(isCampaignFollowUp(text, 'd', 'Bump lodash')).toBe(false)
    expect(isCampaignFollowUp(text, 'c', 'Bump')).toBe(false)
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
