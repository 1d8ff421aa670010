/**
 * Hostile faults, round three (issue 16), through the action as the runner runs
 * it: every wait after the create inside `timeout`, artifacts only inside the
 * workspace, no request a remote service can aim at the runner, and endings
 * that say what happened.
 */
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { TLSSocket } from 'node:tls'
import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import { REQUEST_RETRIES } from '../../src/timing.ts'
import {
  conversationStep,
  type FakeAgentApi,
  type FaultRule,
  type RunScript,
} from '../fake-api/server.ts'
import { describeNeedsProcess, runStep, startStep, type StepResult } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-hostile-3c9e'
const { fakeApi, inputsFor } = e2eServers(KEY, { prompt: 'Review', title: 'Review' })

const proxies: Server[] = []
afterAll(async () => {
  await Promise.all(
    proxies.splice(0).map((proxy) => {
      proxy.closeAllConnections()
      return new Promise((resolve) => proxy.close(resolve))
    }),
  )
})

const FIXTURES = new URL('./fixtures/', import.meta.url)
const REMOTE_HOST = 'agents.example.test'

/**
 * The fake API as a remote https service: base_url names another host, and a
 * CONNECT proxy (the runner's https_proxy) ends TLS for it with a certificate the
 * step trusts (NODE_EXTRA_CA_CERTS) and hands the bytes to the fake.
 */
async function asRemoteService(api: FakeAgentApi) {
  const key = readFileSync(new URL('remote-service-tls.key', FIXTURES))
  const cert = readFileSync(new URL('remote-service-tls.crt', FIXTURES))
  const target = new URL(api.baseUrl)
  const proxy = createServer()
  proxy.on('connect', (_request, client, head) => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
    if (head.length > 0) client.unshift(head)
    const tls = new TLSSocket(client, { isServer: true, key, cert })
    const upstream = connect(Number(target.port), target.hostname)
    tls.pipe(upstream).pipe(tls)
    tls.on('error', () => upstream.destroy())
    upstream.on('error', () => tls.destroy())
  })
  proxies.push(proxy)
  proxy.listen(0, '127.0.0.1')
  await once(proxy, 'listening')
  const { port } = proxy.address() as AddressInfo
  return {
    baseUrl: `https://${REMOTE_HOST}${target.pathname}`,
    env: {
      https_proxy: `http://127.0.0.1:${port}`,
      NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('remote-service-tls.crt', FIXTURES)),
    },
  }
}

const file = (uid: string, filepath: string) => ({
  artifact_type: 'FILE' as const,
  created_at: '2026-01-01T00:00:00Z',
  data: { artifact_uid: uid, filepath, filename: filepath, mime_type: 'text/plain' },
})

function withFiles(...artifacts: ReturnType<typeof file>[]): RunScript {
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 50 },
    {
      state: 'SUCCEEDED',
      afterMs: 300,
      patch: { artifacts },
      conversation: [
        conversationStep('step_1', [
          { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
        ]),
      ],
    },
  ]
}

function warnings(result: StepResult): string[] {
  return result.stdout.split('\n').filter((line) => line.startsWith('::warning'))
}

describeNeedsProcess('no request a remote service can aim at the runner', () => {
  it('a remote base_url hands out a download URL on loopback: refused, nothing fetched', async () => {
    const api = await fakeApi({ script: () => withFiles(file('art_1', 'report.txt')) })
    api.setArtifactContent('art_1', 'from the runner itself')
    const remote = await asRemoteService(api)
    const result = await runStep({
      inputs: inputsFor(remote, { download_artifacts: '**' }),
      env: remote.env,
    })

    expect(result.code).toBe(0)
    expect(result.outputs.state).toBe('SUCCEEDED')
    expect(api.requests.length).toBeGreaterThan(0)
    expect(warnings(result).join('\n')).toMatch(
      /Could not download artifact "report.txt": Refusing to download from http:\/\/127\.0\.0\.1:\d+: it is this machine, and base_url is not/,
    )
    expect(api.downloads.requests).toEqual([])
  })
})

const CONVERSATION = /\/agent\/runs\/run_[^/]+\/conversation$/
const CANCEL = /\/agent\/runs\/run_[^/]+\/cancel$/
const neverEnding: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]

/**
 * A step against `api`, and what reached the fake before the step ended, in the order it came:
 * no wall-clock figure (a loaded machine stretches any), only events. A wait that ran past its
 * bound shows as a hung request tried again, or as a step that never ends (the test's timeout).
 */
async function timedStep(api: FakeAgentApi, extra: Record<string, string>) {
  const result = await runStep({ inputs: inputsFor(api, { timeout: '3s', ...extra }) })
  const cancelledAt = api.requestsTo('POST', CANCEL)[0]?.receivedAt ?? Infinity
  /** The requests to `path` that came before the first cancel. */
  const beforeCancel = (path: RegExp) =>
    api.requestsTo('GET', path).filter((request) => request.receivedAt < cancelledAt).length
  return { result, beforeCancel }
}

describe('every wait after the create ends within timeout plus PAST_TIMEOUT_MS', () => {
  const hang = (path: RegExp, times = Infinity): FaultRule => ({
    method: 'GET',
    path,
    times,
    fault: { kind: 'hang' },
  })

  it('show_progress with a conversation read that never answers: the timeout cancels on time', async () => {
    const api = await fakeApi({ script: () => neverEnding }, hang(CONVERSATION, 1))
    const { result, beforeCancel } = await timedStep(api, { show_progress: 'true' })

    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('timed_out')
    // The hung read was cut at the timeout and not tried again before the cancel (it held the
    // wait 30 s, then was retried, before).
    expect(beforeCancel(CONVERSATION)).toBeLessThanOrEqual(1)
    expect(api.run(result.outputs.run_id ?? '')?.state).toBe('CANCELLED')
  })

  it('BLOCKED with on_blocked: fail, and what it waits for never answers: ends in the bound', async () => {
    const api = await fakeApi(
      {
        script: () => [
          { state: 'QUEUED', afterMs: 0 },
          { state: 'BLOCKED', afterMs: 50 },
        ],
      },
      hang(CONVERSATION),
    )
    const { result } = await timedStep(api, { on_blocked: 'fail' })

    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('blocked')
    expect(api.requestsTo('POST', CANCEL)).toEqual([])
    // It ended (unbounded, the hung reads' three attempts took 90 s, past this test's
    // timeout): the read was cut at the step's bound before its last attempt.
    expect(api.requestsTo('GET', CONVERSATION).length).toBeLessThanOrEqual(
      REQUEST_RETRIES.maxRetries,
    )
  })

  it.each<[string, FaultRule['fault'], number]>([
    // Two tries in its budget: one cut at its 5 s, one in what is left (30 s allowed three).
    ['never answers', { kind: 'hang' }, 2],
    // Retry-After is past its budget: one try (30 s allowed a second, after 20 s).
    [
      'answers 429 with Retry-After: 20, always',
      { kind: 'status', status: 429, headers: { 'retry-after': '20' } },
      1,
    ],
  ])('the cancel after max_credits %s: bounded as after a timeout', async (_name, fault, most) => {
    const api = await fakeApi(
      { script: () => neverEnding },
      { method: 'POST', path: CANCEL, times: Infinity, fault },
    )
    const { result } = await timedStep(api, { max_credits: '0.3', timeout: '30s' })

    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('over_budget')
    // The cap is reached within about a second; its cancel then gets what a timeout's gets
    // (CANCEL_AFTER_TIMEOUT), not what is left of the 30 s timeout: counted in tries.
    const cancels = api.requestsTo('POST', CANCEL).length
    expect(cancels).toBeGreaterThan(0)
    expect(cancels).toBeLessThanOrEqual(most)
  })

  it('after a timeout, reading the answer never answers: the step ends in the bound', async () => {
    const api = await fakeApi({ script: () => neverEnding }, hang(CONVERSATION))
    const { result } = await timedStep(api, {})

    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('timed_out')
    expect(api.run(result.outputs.run_id ?? '')?.state).toBe('CANCELLED')
    // Before, the answer and the files had five minutes after the run, timed out or not; now
    // the hung read is cut at the step's bound and never tried again (it ends: this test's
    // timeout bounds it).
    expect(api.requestsTo('GET', CONVERSATION)).toHaveLength(1)
  })
})

describe('artifacts only inside the workspace, through no link, never into .git', () => {
  /** A checked-out workspace holding `links` (name -> target, relative to the workspace or absolute). */
  function workspaceWith(links: Record<string, string>) {
    const workspace = mkdtempSync(join(tmpdir(), 'workspace-'))
    mkdirSync(join(workspace, '.git'))
    writeFileSync(join(workspace, '.git', 'config'), '[core]\n\tbare = false\n')
    for (const [name, target] of Object.entries(links)) symlinkSync(target, join(workspace, name))
    return workspace
  }

  it('artifacts_dir through a link that leaves the workspace: refused, nothing written outside', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'outside-'))
    const workspace = workspaceWith({ reports: outside })
    const api = await fakeApi({ script: () => withFiles(file('art_1', 'report.txt')) })
    api.setArtifactContent('art_1', 'the agent wrote this')
    const result = await runStep({
      inputs: inputsFor(api, { download_artifacts: '**', artifacts_dir: 'reports/agent' }),
      env: { GITHUB_WORKSPACE: workspace },
    })

    expect(result.code).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    expect(readdirSync(outside, { recursive: true })).toEqual([])
    expect(warnings(result).join('\n')).toMatch(
      /Could not download artifacts into .*reports.agent: .*reports is not a plain folder \(a link or a file\)/,
    )
  })

  it('artifacts_dir through a link into .git: .git/config is never replaced', async () => {
    const workspace = workspaceWith({ 'agent-out': '.git' })
    const api = await fakeApi({ script: () => withFiles(file('art_1', 'config')) })
    api.setArtifactContent('art_1', '[core]\n\tfsmonitor = touch pwned\n')
    const result = await runStep({
      inputs: inputsFor(api, { download_artifacts: '**', artifacts_dir: 'agent-out' }),
      env: { GITHUB_WORKSPACE: workspace },
    })

    expect(result.code).toBe(0)
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n')
    expect(warnings(result).join('\n')).toMatch(/agent-out is not a plain folder/)
    expect(result.stdout).not.toContain('Downloaded artifact')
  })

  it('an artifact named .git/config with artifacts_dir at the workspace: refused', async () => {
    const workspace = workspaceWith({})
    const api = await fakeApi({
      script: () => withFiles(file('art_1', '.git/config'), file('art_2', 'notes.md')),
    })
    api.setArtifactContent('art_1', '[core]\n\tfsmonitor = touch pwned\n')
    api.setArtifactContent('art_2', 'notes')
    const result = await runStep({
      inputs: inputsFor(api, { download_artifacts: '**', artifacts_dir: '.' }),
      env: { GITHUB_WORKSPACE: workspace },
    })

    expect(result.code).toBe(0)
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n')
    expect(warnings(result).join('\n')).toContain(
      'Not downloading artifact ".git/config": it would write into .git',
    )
    // The log names where the file really went.
    expect(result.stdout).toContain(`to ${join(realpathSync(workspace), 'notes.md')} (5 bytes)`)
  })
})

describe('outputs never fail a run; text cut for GitHub keeps whole characters', () => {
  it('a SUCCEEDED run with fields nested 20,000 deep: the run output is cut with a note, the step succeeds', async () => {
    const api = await fakeApi()
    const seeded = api.seedRun({ prompt: 'Review' }, { runId: 'run_deep1' })
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`
    const body = `{"run_id":"${seeded.run_id}","state":"SUCCEEDED","title":"Deep","deep":${deep},"metadata":{"deep":${deep}}}`
    api.injectFault({
      method: 'GET',
      path: `/agent/runs/${seeded.run_id}`,
      times: Infinity,
      fault: { kind: 'malformed', status: 200, contentType: 'application/json', body },
    })
    const result = await runStep({
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        poll_interval: '100ms',
        run_id: seeded.run_id,
      },
    })

    expect(result.stdout).not.toContain('::error::')
    expect(result.code).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    expect(JSON.parse(result.outputs.run ?? '')).toEqual({
      run_id: seeded.run_id,
      state: 'SUCCEEDED',
      title: 'Deep',
      truncated: true,
    })
    expect(warnings(result).join('\n')).toContain('The run output holds only')
  })

  it("a title cut at GitHub's 200 characters ends before an emoji, never inside it", async () => {
    const api = await fakeApi()
    const title = `${'a'.repeat(199)}😀 and more`
    const result = await runStep({ inputs: inputsFor(api, { title }) })

    expect(result.code).toBe(0)
    expect(result.summary).toContain(`${'a'.repeat(199)}…`)
    expect(result.summary).not.toContain('\uFFFD')
  })
})

describe('superseded only when the newer run could have caused the cancel', () => {
  /** A person's cancel, or `cancel_previous`'s, as the service's API takes it. */
  async function cancelRun(api: FakeAgentApi, runId: string): Promise<void> {
    const cancel = await fetch(`${api.baseUrl}/agent/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
    })
    expect(cancel.status).toBe(200)
  }

  /** The step's run, once the step has read it. */
  async function ownRun(api: FakeAgentApi) {
    const poll = await api.waitForRequest('GET', /\/agent\/runs\/run_[^/]+$/)
    const runId = poll.path.split('/').at(-1) ?? ''
    const own = api.allRuns().find((run) => run.run_id === runId)
    if (!own?.created_at) throw new Error(`no run ${runId} in the fake`)
    return { runId, createdAt: Date.parse(own.created_at) }
  }

  it('a person cancels while a same-name sibling created before the cancel runs: cancelled, failing', async () => {
    const api = await fakeApi({ script: () => neverEnding })
    const step = startStep({ inputs: inputsFor(api, { name: 'pr-7-review', timeout: '30s' }) })
    const own = await ownRun(api)
    // Another matrix leg with the same name, created after this run: what a rule of "any newer
    // run" took for a successor.
    const sibling = api.seedRun(
      { prompt: 'Review', config: { name: 'pr-7-review' } },
      { createdAt: own.createdAt + 1 },
    )
    // The cancel comes later on the service's clock (milliseconds), whatever the load.
    while (Date.now() <= own.createdAt + 1) await sleep(1)
    await cancelRun(api, own.runId)
    const cancelledAt = Date.parse(
      api.allRuns().find((run) => run.run_id === own.runId)?.updated_at ?? '',
    )
    expect(Date.parse(sibling.created_at ?? '')).toBeLessThan(cancelledAt)
    const result = await step.result

    expect(result.outputs.state).toBe('CANCELLED')
    expect(result.outputs.outcome).toBe('cancelled')
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`::error::Run ${own.runId} ended CANCELLED`)
    expect(result.stdout).not.toContain(sibling.run_id)
  })

  it('cancelled, then a same-name run created (cancel_previous): superseded, passing', async () => {
    const api = await fakeApi({ script: () => neverEnding })
    const step = startStep({ inputs: inputsFor(api, { name: 'pr-8-review', timeout: '30s' }) })
    const own = await ownRun(api)
    await cancelRun(api, own.runId)
    const successor = api.seedRun({ prompt: 'Review', config: { name: 'pr-8-review' } })
    const result = await step.result

    expect(result.outputs.state).toBe('CANCELLED')
    expect(result.outputs.outcome).toBe('superseded')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      new RegExp(`::notice[^\\n]*superseded by run ${successor.run_id}`),
    )
  })
})
