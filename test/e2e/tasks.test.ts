import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import {
  conversationStep,
  FakeAgentApi,
  type FakeApiOptions,
  type RunScript,
} from '../fake-api/server.ts'
import { FakeGitHub } from '../fake-github/server.ts'
import {
  DEFAULT_GITHUB_TOKEN,
  errorAnnotations,
  itNeedsProcess,
  runPostStep,
  runStep,
  startStep,
  until,
} from './harness.ts'
import { eventEnv } from './servers.ts'

const KEY = 'sk-e2e-tasks-7c1d'
const servers: Array<{ close(): Promise<void> }> = []

async function fakeApi(options: FakeApiOptions = {}): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start({ apiKey: KEY, script: byPrompt, ...options })
  servers.push(api)
  return api
}

async function fakeGitHub(): Promise<FakeGitHub> {
  const github = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  servers.push(github)
  return github
}

// Tests in a file run at once (vitest.config.ts), so servers close when all are done.
afterAll(async () => {
  await Promise.all(servers.splice(0).map((api) => api.close()))
})

/** A task's prompt says how its run goes: "ok …" succeeds, "fail …" fails, "slow …" never ends. */
function byPrompt(create: { prompt?: string }): RunScript {
  const prompt = create.prompt ?? ''
  if (prompt.startsWith('fail')) {
    return [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 100 },
      { state: 'FAILED', afterMs: 400 },
    ]
  }
  if (prompt.startsWith('slow')) {
    return [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 100 },
    ]
  }
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 100 },
    { state: 'SUCCEEDED', afterMs: 700 },
  ]
}

const inputsFor = (api: FakeAgentApi, extra: Record<string, string> = {}) => ({
  api_key: KEY,
  base_url: api.baseUrl,
  poll_interval: '100ms',
  ...extra,
})

const runsOf = (outputs: Record<string, string>) =>
  JSON.parse(outputs.runs ?? '[]') as Record<string, unknown>[]

describe('tasks: many runs from one step', () => {
  it('starts one run per task, at most max_parallel at once, one list request per poll', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, {
        tasks: [
          '- "ok: package a"',
          '- prompt: "ok: package b"',
          '  title: Package b',
          '- prompt: "ok: package c"',
          '  name: nightly-c',
        ].join('\n'),
        max_parallel: '2',
        name: 'nightly',
      }),
    })
    expect(result.code, result.stdout).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    const runs = runsOf(result.outputs)
    expect(runs.map((run) => [run.task, run.outcome, run.state])).toEqual([
      [0, 'succeeded', 'SUCCEEDED'],
      [1, 'succeeded', 'SUCCEEDED'],
      [2, 'succeeded', 'SUCCEEDED'],
    ])
    expect(runs[1]?.title).toBe('Package b')
    // Exactly one run per task; a task's own key wins over the step's input of the same name.
    const created = api.allRuns()
    expect(created).toHaveLength(3)
    const names = created.map((run) => run.agent_config?.name).sort()
    expect(names).toEqual(['nightly', 'nightly', 'nightly-c'])
    // Never more than max_parallel in flight: the third create came after a run had ended.
    const creates = api.requestsTo('POST', /\/agent\/runs?$/)
    expect(creates).toHaveLength(3)
    // One list request per poll, filtered by the set's own metadata; no run is read on its own.
    const lists = api.requestsTo('GET', '/agent/runs')
    expect(lists.length).toBeGreaterThan(0)
    for (const list of lists) expect(list.query.get('metadata[gh_set]')).toMatch(/\S/)
    expect(api.requestsTo('GET', /\/agent\/runs\/[^/]+$/)).toHaveLength(0)
    expect(result.summary).toMatch(/\| # \| Task \| Outcome \|/)
    expect(result.summary).toContain('Package b')
    // The key is masked once, before anything else is printed, and shown nowhere.
    const lines = result.stdout.split('\n').filter((line) => line !== '')
    expect(lines[0]).toBe(`::add-mask::${KEY}`)
    expect(lines.filter((line) => line === lines[0])).toHaveLength(1)
    expect(result.stdout.replace(/^::add-mask::.*$/m, '')).not.toContain(KEY)
  })

  it("an agent that orchestrates in a set: its children, listed with the set's runs, are no tasks of it; its spend counts them", async () => {
    const spent = (credits: number): RunScript => [
      { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: credits } } },
    ]
    const api = await fakeApi({
      script: (create) =>
        create.prompt?.startsWith('lead')
          ? [
              {
                state: 'INPROGRESS',
                afterMs: 0,
                spawn: [{ script: spent(2) }, { script: spent(2) }],
              },
              { state: 'SUCCEEDED', afterMs: 300, patch: { request_usage: { inference_cost: 1 } } },
            ]
          : byPrompt(create),
    })
    const result = await runStep({
      inputs: inputsFor(api, { tasks: '["lead: package a", "lead: package b"]', name: 'nightly' }),
    })

    expect(result.code, result.stdout).toBe(0)
    const runs = runsOf(result.outputs)
    expect(runs.map((run) => [run.task, run.outcome, run.credits])).toEqual([
      [0, 'succeeded', 5],
      [1, 'succeeded', 5],
    ])
    expect(api.allRuns()).toHaveLength(6)
    expect(result.outputs.credits).toBe('10')
    expect(result.summary).toContain(
      '**Task 2**\n\n<details><summary>The agent started 2 runs</summary>',
    )
    // The children were listed with the set's runs, never read, followed up or cancelled.
    expect(api.requestsTo('POST', /\/(cancel|followups)$/)).toHaveLength(0)
  })

  it('pass_when N: cancels the run still in flight as soon as N can no longer succeed', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, {
        tasks: JSON.stringify(['fail: one', 'fail: two', 'slow: three']),
        pass_when: '2',
      }),
    })
    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('failed')
    expect(result.stdout).toMatch(/Stopping the set: 2 of 3 runs did not succeed/)
    const runs = runsOf(result.outputs)
    expect(runs.map((run) => run.outcome)).toEqual(['failed', 'failed', 'cancelled'])
    const slow = api.allRuns().find((run) => run.prompt === 'slow: three')
    expect(slow?.state).toBe('CANCELLED')
    // The run cancelled shows the state it ended in, not the one it was cancelled from.
    expect(runs.map((run) => run.state)).toEqual(['FAILED', 'FAILED', 'CANCELLED'])
    expect(result.summary).toMatch(/\| 3 \| slow: three \| ⛔ cancelled \| CANCELLED \|/)
    // The error names the tasks that did not pass, numbered from 1, and why.
    const error = errorAnnotations(result).join('\n')
    expect(error).toMatch(/at least 2 of 3 runs can no longer/)
    expect(error).toContain(
      'Not succeeded: task 1 failed; task 2 failed; task 3 cancelled (the set could no longer pass).',
    )
  })

  it('a lost create answer in a set: the run is found by its tag, never created twice', async () => {
    const api = await fakeApi()
    api.injectFault({
      method: 'POST',
      path: /\/agent\/runs?$/,
      fault: { kind: 'reset-after-acting' },
    })
    const result = await runStep({
      inputs: inputsFor(api, { tasks: JSON.stringify(['ok: a', 'ok: b', 'ok: c']) }),
    })
    expect(result.code, result.stdout).toBe(0)
    expect(result.stdout).toMatch(/adopting it/)
    expect(api.allRuns()).toHaveLength(3)
    expect(runsOf(result.outputs).every((run) => run.outcome === 'succeeded')).toBe(true)
  })

  it('feature_not_available for the metadata filter: reads each run instead, and says so once', async () => {
    const api = await fakeApi({ metadataFilter: false })
    const result = await runStep({
      inputs: inputsFor(api, { tasks: JSON.stringify(['ok: a', 'ok: b']) }),
    })
    expect(result.code, result.stdout).toBe(0)
    expect(result.stdout.match(/cannot filter runs by metadata/g)).toHaveLength(1)
    expect(result.summary).toMatch(/each run was read on its own/)
  })

  it('SIGINT with several runs in flight: every one gets its cancel within the grace', async () => {
    const api = await fakeApi()
    const step = startStep({
      inputs: inputsFor(api, { tasks: JSON.stringify(['slow: a', 'slow: b', 'slow: c']) }),
    })
    await api.waitForRequest('GET', '/agent/runs')
    step.child.kill('SIGINT')
    const result = await step.result
    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('interrupted')
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(3)
    expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED'])
    // Nothing was left for the post step.
    const post = await runPostStep(result, { inputs: inputsFor(api) })
    expect(post.stdout).toMatch(/nothing to clean up/)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(3)
  })

  itNeedsProcess(
    'after a hard kill, the post step cancels every run of the set left in flight',
    async () => {
      const api = await fakeApi()
      const inputs = inputsFor(api, { tasks: JSON.stringify(['slow: a', 'ok: b', 'slow: c']) })
      const step = startStep({ inputs })
      await until(
        () => api.allRuns().some((run) => run.state === 'SUCCEEDED'),
        'the quick run has ended',
      )
      await api.waitForRequest('GET', '/agent/runs')
      const polls = api.requestsTo('GET', '/agent/runs').length
      await until(() => api.requestsTo('GET', '/agent/runs').length > polls + 1, 'two more polls')
      step.child.kill('SIGKILL')
      const killed = await step.result
      const post = await runPostStep(killed, { inputs })
      expect(post.code, post.stdout).toBe(0)
      const cancels = api.requestsTo('POST', /\/cancel$/)
      expect(cancels).toHaveLength(2)
      expect(
        api
          .allRuns()
          .map((run) => run.state)
          .sort(),
      ).toEqual(['CANCELLED', 'CANCELLED', 'SUCCEEDED'])
    },
  )

  it('a bad task is refused before any request, naming the task and the field', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, { tasks: '- "ok: a"\n- promt: typo' }),
    })
    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toMatch(/task 2 has an unknown key "promt"/)
    expect(api.requests).toHaveLength(0)
  })
})

describe('tasks: the comment and the commit status show the set', () => {
  const OWNER = 'octo-org'
  const REPO = 'app'
  const PR = 12
  const HEAD = 'c0ffee'.padEnd(40, '0')
  const pullRequest = (gh: FakeGitHub) =>
    eventEnv(gh, 'pull_request', {
      pull_request: { number: PR, head: { sha: HEAD } },
      repository: { full_name: `${OWNER}/${REPO}` },
    })

  it('one comment, updated as runs end, then the set as one table; a status from pending to its outcome', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const inputs = inputsFor(api, {
      tasks: JSON.stringify([{ prompt: 'ok: a', title: 'Package a' }, 'ok: b', 'fail: c']),
      pass_when: '2',
      max_parallel: '2',
      comment: 'true',
      commit_status: 'true',
      name: 'nightly',
    })
    const result = await runStep({ inputs, env: pullRequest(gh) })
    expect(result.code, result.stdout).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')

    // Created once, then brought up to date: never one comment per run.
    expect(gh.requestsTo('POST', new RegExp(`/issues/${PR}/comments$`))).toHaveLength(1)
    expect(gh.requestsTo('PATCH', /\/issues\/comments\/\d+$/).length).toBeGreaterThanOrEqual(1)
    const [comment, ...others] = gh.comments(OWNER, REPO, PR)
    expect(others).toHaveLength(0)
    const body = comment?.body ?? ''
    expect(body).toMatch(/^<!-- cloud-agent-set: \{"key":"nightly"/)
    expect(body).toContain('### ✅ Cloud agent tasks: succeeded')
    expect(body).toContain('2 of 3 runs succeeded')
    expect(body).toMatch(/\| 1 \| Package a \| ✅ succeeded \| SUCCEEDED \|/)
    expect(body).toMatch(/\| 3 \| fail: c \| ❌ failed \| FAILED \|/)
    expect(body).toContain('[Workflow run](https://github.com/octo-org/app/actions/runs/9876543210')
    // While the set ran, the comment said how far it had got.
    const writes = gh.requests
      .filter((request) => request.method === 'POST' || request.method === 'PATCH')
      .filter((request) => /\/issues\/(\d+\/)?comments/.test(request.path))
      .map((request) => String((request.json as { body?: string } | undefined)?.body ?? ''))
    expect(writes.some((written) => /### ⏳ Cloud agent tasks: \d of 3 done/.test(written))).toBe(
      true,
    )
    // A write for a change, never one per poll: at most one per state a task passes, and the end.
    expect(writes.length).toBeLessThanOrEqual(3 * 3 + 1)

    const statuses = gh.statuses(OWNER, REPO, HEAD)
    expect(statuses.every((status) => status.context === 'cloud-agent/nightly')).toBe(true)
    expect(statuses.at(-1)?.state).toBe('success')
    expect(statuses.at(-1)?.description).toBe('Succeeded: the step asked for at least 2 of 3 runs')
    expect(statuses.some((status) => status.state === 'pending')).toBe(true)
    expect(statuses.filter((status) => status.state === 'pending').length).toBeLessThanOrEqual(
      api.requestsTo('GET', '/agent/runs').length + 1,
    )
  })

  it('a later set with the same key updates the comment and keeps the earlier set in its history', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const env = pullRequest(gh)
    const first = await runStep({
      inputs: inputsFor(api, { tasks: JSON.stringify(['fail: a']), comment: 'true' }),
      env,
    })
    expect(first.outputs.outcome).toBe('failed')
    const second = await runStep({
      inputs: inputsFor(api, { tasks: JSON.stringify(['ok: a', 'ok: b']), comment: 'true' }),
      env,
    })
    expect(second.code, second.stdout).toBe(0)
    const comments = gh.comments(OWNER, REPO, PR)
    expect(comments).toHaveLength(1)
    expect(comments[0]?.body).toContain('### ✅ Cloud agent tasks: succeeded')
    expect(comments[0]?.body).toMatch(/Earlier sets \(1\)[\s\S]*- ❌ failed · 1 of 1 done/)
  })

  it('a set and a single run with the same key share one comment, the newest step heading it', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const env = pullRequest(gh)
    const single = await runStep({
      inputs: inputsFor(api, { prompt: 'ok: one', comment: 'true', name: 'review' }),
      env,
    })
    expect(single.code, single.stdout).toBe(0)
    expect(gh.comments(OWNER, REPO, PR)[0]?.body).toMatch(/^<!-- cloud-agent-run: /)
    const set = await runStep({
      inputs: inputsFor(api, {
        tasks: JSON.stringify(['ok: a', 'ok: b']),
        comment: 'true',
        name: 'review',
      }),
      env,
    })
    expect(set.code, set.stdout).toBe(0)
    let comments = gh.comments(OWNER, REPO, PR)
    expect(comments).toHaveLength(1)
    expect(comments[0]?.body).toMatch(/^<!-- cloud-agent-set: \{"key":"review"/)
    expect(comments[0]?.body).toContain('### ✅ Cloud agent tasks: succeeded')
    const again = await runStep({
      inputs: inputsFor(api, { prompt: 'ok: two', comment: 'true', name: 'review' }),
      env,
    })
    expect(again.code, again.stdout).toBe(0)
    comments = gh.comments(OWNER, REPO, PR)
    expect(comments).toHaveLength(1)
    expect(comments[0]?.body).toMatch(/^<!-- cloud-agent-run: /)
    expect(comments[0]?.body).toContain(again.outputs.run_id ?? 'no run')
  })

  it('a set fails its commit status, and a GitHub that refuses every write never fails the step', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const failed = await runStep({
      inputs: inputsFor(api, {
        tasks: JSON.stringify(['fail: a', 'ok: b']),
        commit_status: 'true',
      }),
      env: pullRequest(gh),
    })
    expect(failed.outputs.outcome).toBe('failed')
    expect(gh.statuses(OWNER, REPO, HEAD).at(-1)?.state).toBe('failure')

    gh.failNext('*', /.*/, 500, { times: 1000 })
    const refused = await runStep({
      inputs: inputsFor(api, {
        tasks: JSON.stringify(['ok: a']),
        comment: 'true',
        commit_status: 'true',
      }),
      env: pullRequest(gh),
    })
    expect(refused.code, refused.stdout).toBe(0)
    expect(refused.outputs.outcome).toBe('succeeded')
    expect(refused.stdout).toMatch(/::warning::GitHub: could not update the comment/)
    expect(refused.stdout).toMatch(/::warning::GitHub: could not set the commit status/)
  })

  it('check_run: one check run for the set, cloud-agent/<key>, its outcome and its table', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const inputs = inputsFor(api, {
      tasks: JSON.stringify([{ prompt: 'fail: a', title: 'Package a' }, 'fail: b']),
      // Not all: a poll that saw one run fail first would cancel the other, and its row say so.
      pass_when: 'any',
      check_run: 'true',
      name: 'nightly',
    })
    const result = await runStep({ inputs, env: pullRequest(gh) })
    expect(result.code, result.stdout).toBe(1)
    expect(result.outputs.outcome).toBe('failed')
    const [check, ...others] = gh.checkRuns(OWNER, REPO, HEAD)
    expect(others).toHaveLength(0)
    expect(check?.name).toBe('cloud-agent/nightly')
    // Created in progress, before the set's first run, then completed from the set's outcome.
    expect(check?.writes[0]).toMatchObject({ status: 'in_progress', head_sha: HEAD })
    // Both fakes stamp a request with this process's clock.
    const opened = gh.requestsTo('POST', /\/check-runs$/)[0]?.receivedAt ?? Infinity
    const firstCreate = api.requestsTo('POST', /\/agent\/runs?$/)[0]?.receivedAt ?? -Infinity
    expect(opened).toBeLessThan(firstCreate)
    expect(check?.details_url).toMatch(
      /^https:\/\/github\.com\/octo-org\/app\/actions\/runs\/9876543210\b/,
    )
    expect(check?.status).toBe('completed')
    expect(check?.conclusion).toBe('failure')
    expect(check?.output.title).toBe('Failed: 0 of 2 runs succeeded')
    const summary = check?.output.summary ?? ''
    expect(summary).toMatch(/^2 of 2 runs did not succeed, .*\. Outcome: `failed`\.\n/)
    expect(summary).toContain('| # | Task | Outcome |')
    expect(summary).toMatch(/\| 1 \| Package a \| ❌ failed \| FAILED \|/)
    expect(summary).toMatch(/\| 2 \| fail: b \| ❌ failed \| FAILED \|/)
    // Nothing is left for the post step.
    const post = await runPostStep(result, { inputs, env: pullRequest(gh) })
    expect(post.code, post.stdout).toBe(0)
    expect(gh.requestsTo('PATCH', /\/check-runs\/\d+$/)).toHaveLength(1)
  })

  it('a set check run GitHub would not complete is completed by the post step, as the step concluded', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const inputs = inputsFor(api, { tasks: JSON.stringify(['ok: a', 'ok: b']), check_run: 'true' })
    const env = pullRequest(gh)
    gh.failNext('PATCH', /\/check-runs\/\d+$/, 422)
    const main = await runStep({ inputs, env })
    expect(main.code, main.stdout).toBe(0)
    expect(main.stdout).toMatch(
      /::warning::GitHub: could not complete the check run .*The post step completes it\./,
    )
    expect(gh.checkRuns(OWNER, REPO, HEAD)[0]?.status).toBe('in_progress')
    // Every run of the set ended: the post step cancels nothing, and completes the check run.
    const post = await runPostStep(main, { inputs, env })
    expect(post.code, post.stdout).toBe(0)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    const [check] = gh.checkRuns(OWNER, REPO, HEAD)
    expect(check?.status).toBe('completed')
    expect(check?.conclusion).toBe('success')
    expect(check?.output.title).toBe('Succeeded: 2 of 2 runs succeeded')
    expect(check?.output.summary).toMatch(
      /^The step asked for all 2 runs.*\n\nGitHub did not take/s,
    )
  })

  it('wait: false: every run is created at once and handed over; the comment and status say so, the post step leaves them', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const inputs = inputsFor(api, {
      tasks: JSON.stringify([{ prompt: 'slow: a', title: 'Package a' }, 'slow: b']),
      wait: 'false',
      max_parallel: '2',
      pass_when: 'any',
      comment: 'true',
      commit_status: 'true',
      name: 'nightly',
    })
    const env = pullRequest(gh)
    const result = await runStep({ inputs, env })
    expect(result.code, result.stdout).toBe(0)
    expect(result.outputs.outcome).toBe('started')
    const runs = runsOf(result.outputs)
    expect(runs.map((run) => [run.task, run.outcome])).toEqual([
      [0, 'started'],
      [1, 'started'],
    ])
    // Both created, none polled: the step does not wait.
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(2)
    expect(api.requestsTo('GET', /\/agent\/runs/)).toHaveLength(0)
    // Each run carries what a reconcile pass needs to finish the set, as one detached run does.
    const creates = api
      .requestsTo('POST', /\/agent\/runs?$/)
      .map((request) => (request.json as { metadata: Record<string, string> }).metadata)
    const setId = creates[0]?.gh_set ?? ''
    expect(setId).toMatch(/^[0-9a-f-]{36}$/)
    expect(creates.map((metadata) => metadata.gh_task).sort()).toEqual(['0', '1'])
    for (const metadata of creates) {
      expect(metadata).toMatchObject({
        gh_set: setId,
        gh_wait: 'false',
        gh_report: 'comment,status',
        gh_key: 'nightly',
        gh_thread: String(PR),
        gh_head_sha: HEAD,
        gh_tasks: '2',
        gh_pass_when: 'any',
      })
      expect(Object.keys(metadata).length).toBeLessThanOrEqual(20)
    }
    const body = gh.comments(OWNER, REPO, PR)[0]?.body ?? ''
    expect(body).toContain('### 🚀 Cloud agent tasks: started')
    expect(body).toContain('2 of 2 runs started and handed over')
    expect(body).toContain('a reconcile pass reports the set once the last has ended')
    expect(body).toMatch(/\| 1 \| Package a \| 🚀 started \| QUEUED \|/)
    expect(body).toMatch(/"outcome":"started","done":0,"total":2/)
    const status = gh.statuses(OWNER, REPO, HEAD).at(-1)
    expect(status).toMatchObject({ state: 'pending', context: 'cloud-agent/nightly' })
    expect(status?.description).toBe(
      `Started 2 of 2 runs; this step does not wait for them (set ${setId})`,
    )
    expect(result.summary).toContain('## 🚀 Cloud agent tasks: started')
    // The post step leaves the runs to go on.
    const post = await runPostStep(result, { inputs, env })
    expect(post.code, post.stdout).toBe(0)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    expect(api.allRuns().filter((run) => run.state === 'CANCELLED')).toHaveLength(0)
  })

  it('wait: false with max_parallel below the number of tasks is refused before any request', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, {
        tasks: JSON.stringify(['ok: a', 'ok: b', 'ok: c']),
        wait: 'false',
        max_parallel: '2',
      }),
    })
    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toMatch(
      /Input "max_parallel" is 2, below the 3 tasks: with wait: false/,
    )
    expect(api.requests).toHaveLength(0)
  })

  itNeedsProcess(
    'after a hard kill, the post step completes the set check run, the runs left cancelled',
    async () => {
      const api = await fakeApi()
      const gh = await fakeGitHub()
      const inputs = inputsFor(api, {
        tasks: JSON.stringify(['slow: a', 'ok: b']),
        check_run: 'true',
      })
      const env = pullRequest(gh)
      const step = startStep({ inputs, env })
      await until(
        () => api.allRuns().some((run) => run.state === 'SUCCEEDED'),
        'the quick run has ended',
      )
      expect(gh.checkRuns(OWNER, REPO, HEAD)[0]?.status).toBe('in_progress')
      step.child.kill('SIGKILL')
      const post = await runPostStep(await step.result, { inputs, env })
      expect(post.code, post.stdout).toBe(0)
      const [check] = gh.checkRuns(OWNER, REPO, HEAD)
      expect(check?.status).toBe('completed')
      expect(check?.conclusion).toBe('cancelled')
      expect(check?.output.title).toBe('The step stopped; the runs left were cancelled')
      expect(check?.output.summary).toMatch(
        /^The step stopped before the set ended; the post step cancelled 1 run it left unfinished\b/,
      )
      expect(api.allRuns().find((run) => run.prompt === 'slow: a')?.state).toBe('CANCELLED')
    },
  )

  itNeedsProcess(
    'after a hard kill, the post step says on the comment and the status that the set was stopped',
    async () => {
      const api = await fakeApi()
      const gh = await fakeGitHub()
      const inputs = inputsFor(api, {
        tasks: JSON.stringify(['slow: a', 'ok: b']),
        comment: 'true',
        commit_status: 'true',
      })
      const env = pullRequest(gh)
      const step = startStep({ inputs, env })
      await until(
        () => /1 of 2 done/.test(gh.comments(OWNER, REPO, PR)[0]?.body ?? ''),
        'the comment shows the quick run ended',
      )
      step.child.kill('SIGKILL')
      const post = await runPostStep(await step.result, { inputs, env })
      expect(post.code, post.stdout).toBe(0)
      const body = gh.comments(OWNER, REPO, PR)[0]?.body ?? ''
      expect(body).toContain('### ⛔ Cloud agent tasks: interrupted')
      expect(body).toContain('the post step cancelled 1 run it left unfinished')
      expect(body).toMatch(/\| 2 \| ok: b \| ✅ succeeded \|/)
      const status = gh.statuses(OWNER, REPO, HEAD).at(-1)
      expect(status?.state).toBe('error')
      expect(status?.description).toMatch(/^The step stopped before the set ended/)
      expect(api.allRuns().find((run) => run.prompt === 'slow: a')?.state).toBe('CANCELLED')
    },
  )
})

/** A task's run that reads a file, then waits for a person: what on_blocked and show_progress see. */
function blockedScript(): RunScript {
  return [
    { state: 'QUEUED', afterMs: 0 },
    {
      state: 'INPROGRESS',
      afterMs: 100,
      conversation: [
        conversationStep('step_1', [
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Reading the lockfile.' },
              { type: 'action', id: 'a1', category: 'files', name: 'read_file', input: {} },
            ],
          },
        ]),
      ],
    },
    {
      state: 'BLOCKED',
      afterMs: 300,
      patch: { status_message: { message: 'May I delete the old lockfile?' } },
    },
  ]
}

describe('tasks: what applies to each task run (v1.3, one engine)', () => {
  const script = (create: { prompt?: string }) =>
    (create.prompt ?? '').startsWith('ask') ? blockedScript() : byPrompt(create)

  it('on_blocked: fail ends a BLOCKED task blocked, not succeeded, and never cancels it', async () => {
    const api = await fakeApi({ script })
    const tasks = '["slow: package a", "ask: package b"]'
    const main = await runStep({
      inputs: inputsFor(api, { tasks, on_blocked: 'fail', show_progress: 'true' }),
    })
    expect(main.code, main.stdout).toBe(1)
    expect(main.outputs.outcome).toBe('failed')
    const runs = runsOf(main.outputs)
    // all can no longer succeed: the run still going is cancelled, the one handed over is not.
    expect(runs.map((run) => [run.task, run.outcome, run.state])).toEqual([
      [0, 'cancelled', 'CANCELLED'],
      [1, 'blocked', 'BLOCKED'],
    ])
    const post = await runPostStep(main, { inputs: inputsFor(api, { tasks }) })
    expect(post.code, post.stdout).toBe(0)
    const cancels = api.requestsTo('POST', /\/cancel$/).map((request) => request.path)
    expect(cancels).toEqual([`/api/v1/agent/runs/${String(runs[0]?.run_id)}/cancel`])
    // Each line names its task: the hand-over and the agent's progress.
    expect(main.stdout).toMatch(
      /Task 2: run \S+ is BLOCKED: it needs a person\. It waits for: May I delete the old lockfile\?/,
    )
    expect(main.stdout).toContain('Task 2: Agent action: files read_file')
  })

  it('on_blocked: pass counts a BLOCKED task as succeeded for pass_when', async () => {
    const api = await fakeApi({ script })
    const main = await runStep({
      inputs: inputsFor(api, { tasks: '["ok: package a", "ask: package b"]', on_blocked: 'pass' }),
    })
    expect(main.code, main.stdout).toBe(0)
    expect(main.outputs.outcome).toBe('succeeded')
    expect(runsOf(main.outputs).map((run) => run.outcome)).toEqual(['succeeded', 'blocked'])
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
  })

  it("cancel_previous cancels an orchestrating run's tree, and never takes a child of its name for a run of its own", async () => {
    const api = await fakeApi()
    const going: RunScript = [{ state: 'INPROGRESS', afterMs: 0 }]
    const named = { config: { name: 'nightly' }, script: going }
    const lastNight = api.seedRun(
      { prompt: 'old a', config: { name: 'nightly' }, metadata: { gh_repository: 'octo-org/app' } },
      { script: [{ state: 'INPROGRESS', afterMs: 0, spawn: [named, named] }] },
    )
    const main = await runStep({
      inputs: inputsFor(api, {
        tasks: '["ok: package a"]',
        name: 'nightly',
        cancel_previous: 'true',
      }),
    })

    expect(main.code, main.stdout).toBe(0)
    const tree = api.tree(lastNight.run_id)
    expect(tree.map((run) => run.state)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED'])
    expect(main.stdout.match(/cancel_previous: Run run_\S+ was cancelled\./g)).toHaveLength(1)
    expect(main.stdout).toContain(
      `The 2 child run(s) that run ${lastNight.run_id}'s agent started and were still working were cancelled with it`,
    )
  })

  it('cancel_previous cancels the active runs of each task name before the set starts', async () => {
    const api = await fakeApi()
    const going: RunScript = [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 10 },
    ]
    const metadata = { gh_repository: 'octo-org/app' }
    const lastNight = api.seedRun(
      { prompt: 'old a', config: { name: 'nightly' }, metadata },
      { script: going },
    )
    const lastNightC = api.seedRun(
      { prompt: 'old c', config: { name: 'nightly-c' }, metadata },
      { script: going },
    )
    const other = api.seedRun(
      { prompt: 'other', config: { name: 'weekly' }, metadata },
      { script: going },
    )
    const tasks = ['- "ok: package a"', '- prompt: "ok: package c"', '  name: nightly-c'].join('\n')
    const main = await runStep({
      inputs: inputsFor(api, { tasks, name: 'nightly', cancel_previous: 'true' }),
    })
    expect(main.code, main.stdout).toBe(0)
    expect(api.run(lastNight.run_id)?.state).toBe('CANCELLED')
    expect(api.run(lastNightC.run_id)?.state).toBe('CANCELLED')
    expect(api.run(other.run_id)?.state).toBe('INPROGRESS')
    expect(main.stdout.match(/cancel_previous: Run run_\S+ was cancelled\./g)).toHaveLength(2)
    // Both cancels came before the set's first create.
    const requests = api.exchanges().map((exchange) => `${exchange.method} ${exchange.path}`)
    const firstCreate = requests.findIndex((line) => /^POST \S+\/agent\/runs?$/.test(line))
    const lastCancel = requests.findLastIndex((line) => line.endsWith('/cancel'))
    expect(lastCancel).toBeGreaterThanOrEqual(0)
    expect(lastCancel).toBeLessThan(firstCreate)
  })
})

describe('tasks: a set replaced by a newer set of its key', () => {
  it('ends superseded and passes, as one run does, and leaves the status to the newer set', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    const head = 'c0ffee'.padEnd(40, '1')
    const env = eventEnv(gh, 'pull_request', {
      pull_request: { number: 14, head: { sha: head } },
      repository: { full_name: 'octo-org/app' },
    })
    const tasks = '["slow: package a", "slow: package b"]'
    const setInputs = { tasks, name: 'nightly', commit_status: 'true' }
    const older = startStep({ inputs: inputsFor(api, { ...setInputs, timeout: '30s' }), env })
    await until(
      () => api.allRuns().filter((run) => run.state === 'INPROGRESS').length === 2,
      'both runs of the older set in progress',
    )
    const newer = await runStep({
      inputs: inputsFor(api, { ...setInputs, cancel_previous: 'true', wait: 'false' }),
      env,
    })
    const replaced = await older.result

    expect(newer.outputs.outcome, newer.stdout).toBe('started')
    expect(replaced.code, replaced.stdout).toBe(0)
    expect(replaced.outputs.outcome).toBe('superseded')
    const newerRuns = runsOf(newer.outputs).map((run) => String(run.run_id))
    const line = /The set superseded: [^\n]*a newer run with the same name \((\S+)\) replaced task/
    expect(newerRuns).toContain(line.exec(replaced.stdout)?.[1])
    // The newer set's pending status on the same commit stays the last word.
    const statuses = gh.statuses('octo-org', 'app', head)
    expect(statuses.filter((status) => status.state !== 'pending')).toEqual([])
  })
})

/** A FILE artifact of a run, as the service lists it. */
const fileArtifact = (uid: string, filepath: string) => ({
  artifact_type: 'FILE' as const,
  created_at: '2026-01-01T00:00:00Z',
  data: {
    artifact_uid: uid,
    filepath,
    filename: filepath.split('/').pop() ?? filepath,
    mime_type: 'application/json',
  },
})

describe('tasks: download_artifacts, a folder per task', () => {
  /** "files: x" ends with a report.json of its own (art_x), and one name that climbs out. */
  const script = (create: { prompt?: string }): RunScript => {
    const prompt = create.prompt ?? ''
    if (!prompt.startsWith('files')) return byPrompt(create)
    const id = prompt.split(' ').pop() ?? ''
    const artifacts = [fileArtifact(`art_${id}`, 'out/report.json')]
    if (id === 'b') artifacts.push(fileArtifact('art_escape', '../../escaped.json'))
    return [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 100 },
      { state: 'SUCCEEDED', afterMs: 300, patch: { artifacts } },
    ]
  }

  it("writes each task's files into <artifacts_dir>/<number>-<slug>/, listed in runs[i].artifacts", async () => {
    const api = await fakeApi({ script })
    api.setArtifactContent('art_a', '{"package":"a"}\n')
    api.setArtifactContent('art_b', '{"package":"b"}\n')
    const result = await runStep({
      inputs: inputsFor(api, {
        tasks: JSON.stringify([{ prompt: 'files: a', title: 'Package À / ../etc' }, 'files: b']),
        download_artifacts: '**',
        artifacts_dir: 'agent-output',
      }),
    })
    expect(result.code, result.stdout).toBe(0)
    const runs = runsOf(result.outputs) as Array<{ artifacts?: Array<Record<string, string>> }>
    const [first, second] = runs.map((run) => run.artifacts ?? [])
    const pathA = first?.[0]?.path ?? ''
    const pathB = second?.[0]?.path ?? ''
    // Two report.json, each in its task's folder: numbered from 1, the title's slug after it.
    expect(pathA.endsWith(join('agent-output', '1-package-a-etc', 'out', 'report.json'))).toBe(true)
    expect(pathB.endsWith(join('agent-output', '2', 'out', 'report.json'))).toBe(true)
    expect(readFileSync(pathA, 'utf8')).toBe('{"package":"a"}\n')
    expect(readFileSync(pathB, 'utf8')).toBe('{"package":"b"}\n')
    // The same items as one run's artifacts output; a refused name has no path, and nothing
    // was written outside the task's folder.
    expect(second).toEqual([
      { type: 'FILE', name: 'report.json', path: pathB },
      { type: 'FILE', name: 'escaped.json' },
    ])
    const outputDir = dirname(dirname(dirname(pathA)))
    expect(readdirSync(outputDir).sort()).toEqual(['1-package-a-etc', '2'])
    expect(result.stdout).toMatch(
      /::warning::Task 2: Not downloading artifact "\.\.\/\.\.\/escaped\.json": it climbs out of the directory/,
    )
    expect(api.downloads.requests).toHaveLength(2)
    expect(result.summary).toContain('**Downloaded files**')
    expect(result.summary).toMatch(/- \*\*1\*\* Package À \/ \.\.\/etc: 1 file in <code>/)
  })
})
