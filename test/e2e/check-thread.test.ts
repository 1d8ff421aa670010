/**
 * A run started on a check's event carries its pull request as its thread (issue 45): a
 * `workflow_run`, `check_suite` or `check_run` names the pull request of its head, and the run
 * a CI fix starts on it belongs to that pull request, as a pull request event's run does. So the
 * close of the pull request (`cancel_only`) finds it, and `pr_credit_budget` counts by it.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import type { FakeAgentApi, RunScript } from '../fake-api/server.ts'
import type { FakeGitHub } from '../fake-github/server.ts'
import { runStep } from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'

const KEY = 'sk-check-thread-e2e'
const PR = 7
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY)

/** The pull request of a check's head, as GitHub lists it in the event. */
const LISTED = [
  { number: PR, base: { repo: { url: 'https://api.github.com/repos/octo-org/app' } } },
]

/** The check events, each naming the pull request of its head. */
const CHECK_EVENTS = ['workflow_run', 'check_suite', 'check_run'] as const
type CheckEvent = (typeof CHECK_EVENTS)[number]

/** A check that failed on the pull request's head, as `event` delivers it. */
function checkFailed(event: CheckEvent, headSha?: string): object {
  return {
    action: 'completed',
    [event]: { pull_requests: LISTED, ...(headSha ? { head_sha: headSha } : {}) },
  }
}

/** A run that works until it is cancelled. */
const working: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 10 },
]

/** The CI fix of fix-failing-check.yml, detached: its run goes on after the step. */
async function startFix(api: FakeAgentApi, gh: FakeGitHub, event: CheckEvent) {
  const fix = await runStep({
    inputs: inputsFor(api, { prompt: 'Fix CI', name: 'fix-ci-feature', wait: 'false' }),
    env: eventEnv(gh, event, checkFailed(event)),
  })
  expect(fix.code, fix.stdout).toBe(0)
  return fix.outputs.run_id ?? ''
}

describe('a run started on a check’s event belongs to its pull request', () => {
  for (const event of CHECK_EVENTS) {
    it(`${event}: the pull request’s close cancels the fix (cancel_only)`, async () => {
      const api = await fakeApi({ script: () => working })
      const gh = await fakeGitHub()
      const fix = await startFix(api, gh, event)
      expect(api.run(fix)?.metadata).toMatchObject({ gh_thread: String(PR) })

      const cleanup = await runStep({
        inputs: inputsFor(api, { cancel_only: 'true', name: 'fix-ci-feature' }),
        env: eventEnv(gh, 'pull_request_target', {
          action: 'closed',
          pull_request: { number: PR },
        }),
      })

      expect(cleanup.code, cleanup.stdout).toBe(0)
      expect(JSON.parse(cleanup.outputs.cancelled ?? '[]')).toEqual([fix])
      expect(api.run(fix)?.state).toBe('CANCELLED')
    })
  }

  it('works on the commit the check ran on, as the event delivers it: no GitHub request for the head', async () => {
    const api = await fakeApi({ script: () => working })
    const gh = await fakeGitHub()
    const failed = 'c'.repeat(40)
    for (const event of CHECK_EVENTS) {
      const fix = await runStep({
        inputs: inputsFor(api, { prompt: 'Fix CI', name: `fix-${event}`, wait: 'false' }),
        env: eventEnv(gh, event, checkFailed(event, failed)),
      })
      expect(fix.code, fix.stdout).toBe(0)
      expect(api.run(fix.outputs.run_id ?? '')?.metadata).toMatchObject({
        gh_thread: String(PR),
        gh_head_sha: failed,
      })
      expect(fix.stdout).not.toContain('could not read the head')
    }
    expect(gh.requests).toHaveLength(0)
  })

  it('workflow_run: pr_credit_budget counts the pull request’s runs', async () => {
    const api = await fakeApi({
      script: () => [
        { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: 150 } } },
      ],
    })
    const gh = await fakeGitHub()
    const review = await runStep({
      inputs: inputsFor(api, { prompt: 'Review' }),
      env: eventEnv(gh, 'pull_request', { action: 'opened', pull_request: { number: PR } }),
    })
    expect(review.outputs.outcome).toBe('succeeded')

    const fix = await runStep({
      inputs: inputsFor(api, { prompt: 'Fix CI', pr_credit_budget: '100' }),
      env: eventEnv(gh, 'workflow_run', checkFailed('workflow_run')),
    })

    expect(fix.outputs.outcome, fix.stdout).toBe('over_budget')
    expect(fix.stdout).toContain(
      `the runs this action started for pull request #${PR} of octo-org/app (all of them, whenever they ran) used 150 credits`,
    )
    expect(fix.stdout).not.toContain('about no pull or merge request')
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(1)
  })
})
