/**
 * continue_from: pull_request end to end (issue 39): a CI failure on a pull request made by a run
 * this action started sends the step's prompt to that run, instead of paying a fresh run to
 * rebuild its context. A run that ended takes it as a new execution; a run whose session is gone
 * continues in a new run with its conversation; with no such run, the step creates one.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import type { CreateRunRequest } from '../../src/api/types.ts'
import type { FakeAgentApi, RunScript } from '../fake-api/server.ts'
import { against, command } from './command.ts'
import { runStep } from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'

const KEY = 'sk-continue-e2e'
const PR = 7
const PR_URL = `https://github.com/octo-org/app/pull/${PR}`
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY)

/** The run that makes the pull request: it works, reports the pull request, and ends. */
function madePullRequest(options: { sessionGone?: boolean } = {}): RunScript {
  const artifacts = [
    {
      artifact_type: 'PULL_REQUEST' as const,
      created_at: new Date().toISOString(),
      data: { url: PR_URL, branch: 'agent/fix-parser' },
    },
  ]
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 50 },
    {
      state: 'SUCCEEDED',
      afterMs: 200,
      patch: { artifacts },
      ...(options.sessionGone ? { sessionGone: true } : {}),
    },
  ]
}

const fixPass: RunScript = [
  { state: 'INPROGRESS', afterMs: 0 },
  { state: 'SUCCEEDED', afterMs: 200 },
]

/**
 * Runs that make a pull request; any other (a CI fix's fresh run) just works. A follow-up's
 * pass ends once a poll has shown it at work: a step starved of the CPU waited out the grace
 * for a pass never seen (30 s) when the 200 ms went by between two polls.
 */
async function serviceWith(options: { sessionGone?: boolean } = {}): Promise<FakeAgentApi> {
  return await fakeApi({
    script: (create: CreateRunRequest) =>
      create.prompt?.startsWith('Fix issue') ? madePullRequest(options) : fixPass,
    followupScript: () => fixPass,
    followupPassSeen: true,
  })
}

/** A CI workflow that failed on the pull request's head: GitHub's workflow_run event. */
async function ciFailed(pullRequest = PR) {
  const gh = await fakeGitHub()
  return eventEnv(gh, 'workflow_run', {
    action: 'completed',
    workflow_run: { conclusion: 'failure', pull_requests: [{ number: pullRequest }] },
  })
}

/** An issue's step starts the run that makes the pull request, and awaits it. */
async function makePullRequest(api: FakeAgentApi): Promise<string> {
  const made = await runStep({ inputs: inputsFor(api, { prompt: 'Fix issue 3' }) })
  expect(made.code, made.stdout).toBe(0)
  return made.outputs.run_id ?? ''
}

const FIX = { prompt: 'CI failed on the pull request: fix it', continue_from: 'pull_request' }

describe('continue_from: pull_request', () => {
  it('sends the prompt to the run that made the pull request: one list request, no new run, awaited as the step’s own', async () => {
    const api = await serviceWith()
    const made = await makePullRequest(api)
    const fix = await runStep({ inputs: inputsFor(api, FIX), env: await ciFailed() })
    expect(fix.code, fix.stdout).toBe(0)
    expect(fix.outputs).toMatchObject({ run_id: made, outcome: 'succeeded' })
    expect(api.allRuns()).toHaveLength(1)
    const [followup = ''] = api.followups(made)
    expect(followup).toMatch(/^CI failed on the pull request: fix it\n/)
    expect(followup).toContain(`pull request #${PR}, which you made`)
    // Besides each step's read of its run's children at the end (`ancestor_run_id`).
    const looks = api
      .requestsTo('GET', '/agent/runs')
      .filter((look) => !look.query.has('ancestor_run_id'))
    expect(looks).toHaveLength(1)
    const [look] = looks
    expect(look?.query.get('artifact_type')).toBe('PULL_REQUEST')
    expect(look?.query.get('metadata[gh_repository]')).toBe('octo-org/app')
    expect(fix.stdout).toContain(
      `continue_from: pull_request: run ${made} made pull request #${PR} (SUCCEEDED); sent it this step's prompt as a follow-up`,
    )
    // The ended run took it as a new execution.
    const answer = api.requestsTo('POST', /\/followups$/)[0]?.response?.body ?? ''
    expect(JSON.parse(answer)).toMatchObject({ outcome: 'handoff_execution' })
  })

  it('max_credits counts what the run uses for this step, not what it used making the pull request', async () => {
    const api = await serviceWith()
    const made = await makePullRequest(api)
    api.patchRun(made, { request_usage: { inference_cost: 50, compute_cost: 5 } })
    const capped = { ...FIX, max_credits: '20' }
    const fix = await runStep({ inputs: inputsFor(api, capped), env: await ciFailed() })
    expect(fix.code, fix.stdout).toBe(0)
    expect(fix.outputs).toMatchObject({ run_id: made, outcome: 'succeeded' })
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
  })

  it('a run whose session is gone (410) continues in a new run with its conversation_id', async () => {
    const api = await serviceWith({ sessionGone: true })
    const made = await makePullRequest(api)
    const conversation = api.run(made)?.conversation_id
    const fix = await runStep({ inputs: inputsFor(api, FIX), env: await ciFailed() })
    expect(fix.code, fix.stdout).toBe(0)
    expect(fix.outputs.run_id).not.toBe(made)
    expect(api.allRuns()).toHaveLength(2)
    const creates = api.requestsTo('POST', /\/agent\/runs?$/)
    expect(creates).toHaveLength(2)
    expect(creates[1]?.json).toMatchObject({ conversation_id: conversation })
    expect(api.run(fix.outputs.run_id ?? '')?.conversation_id).toBe(conversation)
    expect(fix.stdout).toContain(
      `continue_from: pull_request: the session of run ${made}, which made pull request #${PR}, is gone (410); continuing its conversation ${conversation} in a new run.`,
    )
  })

  it('with no run that made the pull request, creates one and says so in one line', async () => {
    const api = await serviceWith()
    await makePullRequest(api)
    const fix = await runStep({ inputs: inputsFor(api, FIX), env: await ciFailed(8) })
    expect(fix.code, fix.stdout).toBe(0)
    expect(api.allRuns()).toHaveLength(2)
    expect(fix.stdout).toContain(
      'continue_from: pull_request: no run this action started made pull request #8; creating a run.',
    )
    const create = api.requestsTo('POST', /\/agent\/runs?$/)[1]?.json as CreateRunRequest
    expect(create.conversation_id).toBeUndefined()
  })

  it('with no such run, previous_run: cancel still cancels the name’s run going before the create', async () => {
    const api = await serviceWith()
    const going = api.seedRun(
      {
        prompt: 'An earlier fix',
        config: { name: 'fix-ci' },
        // An earlier fix of the pull request: a check's run carries its pull request as its thread.
        metadata: { gh_repository: 'octo-org/app', gh_forge: 'github', gh_thread: String(PR) },
      },
      { script: [{ state: 'INPROGRESS', afterMs: 0 }] },
    )
    const inputs = inputsFor(api, { ...FIX, name: 'fix-ci', previous_run: 'cancel' })
    const fix = await runStep({ inputs, env: await ciFailed() })
    expect(fix.code, fix.stdout).toBe(0)
    expect(api.run(going.run_id)?.state).toBe('CANCELLED')
    expect(fix.outputs.run_id).not.toBe(going.run_id)
    expect(fix.stdout).toContain('no run this action started made pull request #7')
  })

  it('a follow-up the run refuses (not a 410), or a step on no pull request, creates a run, saying why', async () => {
    const api = await serviceWith()
    const made = await makePullRequest(api)
    api.injectFault({
      method: 'POST',
      path: /\/followups$/,
      times: 1,
      fault: { kind: 'status', status: 422, body: { detail: 'This run takes no follow-ups.' } },
    })
    const refused = await runStep({ inputs: inputsFor(api, FIX), env: await ciFailed() })
    expect(refused.code, refused.stdout).toBe(0)
    expect(refused.outputs.run_id).not.toBe(made)
    expect(refused.stdout).toContain(
      `continue_from: pull_request: run ${made} made pull request #${PR} but refused the follow-up (`,
    )
    const nowhere = await runStep({ inputs: inputsFor(api, FIX) })
    expect(nowhere.code, nowhere.stdout).toBe(0)
    expect(nowhere.stdout).toContain(
      'continue_from: pull_request: this step is not on a pull request; creating a run.',
    )
    expect(api.allRuns()).toHaveLength(3)
    expect(api.followups(made)).toHaveLength(0)
  })

  it('is refused with run_id, continue_run or tasks, naming the inputs, before any request', async () => {
    const api = await serviceWith()
    const clashes: Record<string, string>[] = [
      { run_id: 'run_1', prompt: '' },
      { tasks: '[a]', prompt: '' },
      { continue_run: 'true', github_token: 'gh' },
    ]
    for (const extra of clashes) {
      const step = await runStep({ inputs: inputsFor(api, { ...FIX, ...extra }) })
      expect(step.code).toBe(1)
      expect(step.stdout).toMatch(/cannot be combined with (run_id|continue_run|continue_from)/)
    }
    expect(api.requests).toHaveLength(0)
  })

  it('the command in a GitLab merge request pipeline continues the run that made the merge request', async () => {
    const api = await fakeApi({
      script: (create: CreateRunRequest) =>
        create.prompt?.startsWith('Fix issue')
          ? madePullRequest().map((step) =>
              step.patch?.artifacts
                ? {
                    ...step,
                    patch: {
                      artifacts: [
                        {
                          artifact_type: 'PULL_REQUEST' as const,
                          created_at: new Date().toISOString(),
                          data: {
                            url: 'https://gitlab.example.test/group/app/-/merge_requests/7',
                            branch: 'agent/fix',
                          },
                        },
                      ],
                    },
                  }
                : step,
            )
          : fixPass,
      followupScript: () => fixPass,
      followupPassSeen: true,
    })
    const job = (iid: string | undefined) => ({
      WARP_API_KEY: KEY,
      GITLAB_CI: 'true',
      CI_PROJECT_PATH: 'group/app',
      ...(iid ? { CI_MERGE_REQUEST_IID: iid } : {}),
      CI_PIPELINE_ID: '500',
      CI_JOB_ID: '9001',
      CI_JOB_NAME: 'agent-fix',
    })
    const made = await command(against(api, '--prompt', 'Fix issue 3', '--json'), job(undefined))
      .done
    expect(made.code, made.stderr).toBe(0)
    const madeRun = (JSON.parse(made.stdout) as { run_id: string }).run_id
    const args = ['--prompt', 'The pipeline failed: fix it', '--continue-from', 'pull_request']
    const fix = await command(against(api, ...args, '--json'), job('7')).done
    expect(fix.code, fix.stderr).toBe(0)
    expect(JSON.parse(fix.stdout)).toMatchObject({ run_id: madeRun, outcome: 'succeeded' })
    expect(api.allRuns()).toHaveLength(1)
    expect(api.followups(madeRun)).toHaveLength(1)
    expect(fix.stderr).toContain(`run ${madeRun} made merge request !7 (SUCCEEDED)`)
  })
})

describe('the run that made the pull request belongs to it (v1.5, one number per project)', () => {
  /** A run that makes the pull request, spends `credits`, and keeps working. */
  const madeAndWorking = (credits: number): RunScript => [
    {
      state: 'INPROGRESS',
      afterMs: 0,
      patch: {
        request_usage: { inference_cost: credits },
        artifacts: [
          {
            artifact_type: 'PULL_REQUEST' as const,
            created_at: new Date().toISOString(),
            data: { url: PR_URL, branch: 'agent/fix-parser' },
          },
        ],
      },
    },
  ]

  it('pr_credit_budget counts the run that opened the pull request, once', async () => {
    const api = await fakeApi({
      script: (create: CreateRunRequest) =>
        create.prompt?.startsWith('Fix issue') ? madeAndWorking(80) : fixPass,
    })
    const made = await runStep({ inputs: inputsFor(api, { prompt: 'Fix issue 3', wait: 'false' }) })
    expect(made.code, made.stdout).toBe(0)
    const fix = await runStep({
      inputs: inputsFor(api, { prompt: 'Fix CI', pr_credit_budget: '50' }),
      env: await ciFailed(),
    })
    expect(fix.outputs.outcome, fix.stdout).toBe('over_budget')
    expect(fix.stdout).toContain(`pull request #${PR} of octo-org/app`)
    expect(fix.stdout).toContain('used 80 credits')
  })

  it('cancel_only with continue_from: pull_request cancels the run that made it, when the pull request closes', async () => {
    const api = await fakeApi({ script: () => madeAndWorking(5) })
    const made = await runStep({ inputs: inputsFor(api, { prompt: 'Fix issue 3', wait: 'false' }) })
    const runId = made.outputs.run_id ?? ''
    const gh = await fakeGitHub()
    const closed = eventEnv(gh, 'pull_request_target', {
      action: 'closed',
      pull_request: { number: PR },
    })
    const cleanup = await runStep({
      inputs: inputsFor(api, { cancel_only: 'true', continue_from: 'pull_request' }),
      env: closed,
    })
    expect(cleanup.code, cleanup.stdout).toBe(0)
    expect(JSON.parse(cleanup.outputs.cancelled ?? '[]')).toEqual([runId])
    expect(api.run(runId)?.state).toBe('CANCELLED')
    expect(api.allRuns()).toHaveLength(1)
  })
})
