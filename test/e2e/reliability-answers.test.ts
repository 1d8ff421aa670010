/**
 * The fault matrix, second part: answers the step must not believe, a timeout
 * that is a deadline, GitHub that cannot hold the step, text that cannot
 * become a workflow command or leak the key, and limits that agree. Each case
 * runs the bundle against the fake API (and the fake GitHub) with the fault
 * scripted, and is a row of the README's reliability table.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import type { FakeAgentApi } from '../fake-api/server.ts'
import { conversationStep, type RunScript } from '../fake-api/server.ts'
import type { FakeGitHub } from '../fake-github/server.ts'
import { MAX_COMMENT_BODY } from '../fake-github/server.ts'
import { errorAnnotations, runStep, startStep, type StepResult } from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'
import { savedRun } from './saved-runs.ts'

// No English word in it: the test looks for every 6-character piece of it in all the step writes.
const KEY = 'sk-q7xz-5f3e9a1c2b7d'
const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY, {
  prompt: 'Fix the failing check',
  title: 'Fix CI',
})

const pullRequestEnv = (gh: FakeGitHub, event = 'pull_request', payload?: object) =>
  eventEnv(gh, event, payload ?? { pull_request: { number: PR } })

const CREATE = { method: 'POST', path: '/agent/run' } as const
const RUN_PATH = /\/agent\/runs\/run_[^/]+$/
const POLL = { method: 'GET', path: RUN_PATH } as const
const CANCEL = /\/agent\/runs\/run_[^/]+\/cancel$/

const neverEnding: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]
const failing = (patch: Record<string, unknown> = {}): RunScript => [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'FAILED', afterMs: 300, patch },
]

/** Only the action's own commands start a line with `::`; nothing the API sent does. */
function expectOnlyOwnCommands(result: StepResult): void {
  const commands = result.stdout.split('\n').filter((line) => line.startsWith('::'))
  for (const line of commands) {
    expect(line).toMatch(/^::(add-mask|error|warning|notice|debug)( [^:]*)?::/)
  }
  expect(result.stdout).not.toMatch(/^::stop-commands/m)
}

/** No six characters of the key anywhere the step wrote: log, annotations, outputs, state, summary. */
function expectKeyNowhere(result: StepResult): void {
  const written = [
    result.stdout.replace(/^::add-mask::.*$/m, ''),
    result.stderr,
    JSON.stringify(result.outputs),
    JSON.stringify(result.state),
    result.summary,
  ].join('\n')
  for (let i = 0; i + 6 <= KEY.length; i += 1) {
    expect(written, `key fragment ${KEY.slice(i, i + 6)}`).not.toContain(KEY.slice(i, i + 6))
  }
}

function expectNoCrash(result: StepResult): void {
  expect(result.stderr).toBe('')
  expect(result.stdout).not.toMatch(/TypeError|RangeError|Cannot read properties/)
}

// First in the file, though item 9: the tests of a file start in order, a few at a time, and
// this one has the suite's longest wait (two GitHub calls that each reach their 8 s deadline).
describe('GitHub cannot hold the step (item 9)', () => {
  it('GitHub stops answering: warnings, and the step ends within 20 s of the run', async () => {
    const api = await fakeApi()
    const gh = await fakeGitHub()
    gh.stopAnswering()
    const result = await runStep({
      inputs: inputsFor(api, { comment: 'true' }),
      // As GitHub delivers a pull_request event: with its head, so nothing is read before the create.
      env: pullRequestEnv(gh, 'pull_request', {
        pull_request: { number: PR, head: { sha: 'c0ffee'.padEnd(40, '0') } },
      }),
    })
    expect(result.code).toBe(0)
    expect(result.outputs.state).toBe('SUCCEEDED')
    expect(result.stdout).toMatch(/::warning::GitHub: .*The run is not affected/)
    // A write in flight and the last one, 8 s each; no call after the run may add its own 8 s
    // (reading the head for the comment's note once did: 23 s). Counted in calls, not seconds:
    // after the poll that saw the run end, GitHub is asked twice, the head (at once, beside
    // the write in flight) and the last write; each gave up at its deadline and said so.
    const runEndSeen = api.requestsTo('GET', RUN_PATH).at(-1)?.receivedAt ?? NaN
    const afterEnd = gh.requests.filter((request) => request.receivedAt > runEndSeen)
    expect(afterEnd.length).toBeLessThanOrEqual(2)
    const timedOut = result.stdout
      .split('\n')
      .filter((line) => /^::warning::.*aborted due to timeout/.test(line))
    expect(timedOut).toHaveLength(3)
    expect(gh.requests.length).toBeGreaterThan(0)
  }, 60_000)
})

describe('polls: an odd answer is garbled, never the run state (item 5)', () => {
  // What the body becomes, and how the retry log names it.
  const odd: Array<[string, (body: unknown) => unknown, RegExp]> = [
    [
      'an answer for another run',
      (b) => ({ ...(b as object), run_id: 'run_other', state: 'FAILED' }),
      /another run \(run_other\)/,
    ],
    ['null', () => null, /not a run \(null\)/],
    ['an empty body', () => undefined, /not a run \(an empty body\)/],
    ['an array', (b) => [b], /not a run \(an array\)/],
    ['a bare string', () => 'FAILED', /not a run \(the string "FAILED"\)/],
    [
      'a state that is not a string',
      (b) => ({ ...(b as object), state: { value: 'FAILED' } }),
      /state is not a string/,
    ],
  ]

  // Each kind is told apart by readRunItem's unit test; here one step meets them all, one
  // poll after another, and must believe none.
  it('every kind in turn, six polls in a row: each retried; the run is not cancelled', async () => {
    const api = await fakeApi(
      {},
      ...odd.map(([, rewrite]) => ({ ...POLL, fault: { kind: 'rewrite-body' as const, rewrite } })),
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(result.outputs.state).toBe('SUCCEEDED')
    expect(api.requestsTo('POST', CANCEL)).toHaveLength(0)
    for (const [kind, , logged] of odd) expect(result.stdout, kind).toMatch(logged)
    expectNoCrash(result)
    expectOnlyOwnCommands(result)
  })

  it('404 on the first polls after the create is lag: polled through', async () => {
    const api = await fakeApi(
      {},
      {
        ...POLL,
        times: 6,
        fault: { kind: 'status', status: 404, body: { detail: 'no such run' } },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(result.outputs.state).toBe('SUCCEEDED')
    expect(result.stdout).toContain('is not visible yet (404 right after its create)')
    expect(api.requestsTo('POST', CANCEL)).toHaveLength(0)
  })
})

describe('types: nothing the API sends crashes rendering (item 6)', () => {
  it('fields of every wrong type, and a status_message given as a plain string', async () => {
    const api = await fakeApi(
      { script: () => failing() },
      {
        ...POLL,
        times: Infinity,
        fault: {
          kind: 'rewrite-body',
          rewrite: (b) => ({
            ...(b as object),
            title: { nested: ['x'] },
            status_message: 'The agent gave up: the tests need a database',
            artifacts: { not: 'a list' },
            request_usage: 'lots',
            session_link: 12,
            run_time: ['PT1S'],
            creator: 'someone',
            agent_config: 7,
            created_at: null,
          }),
        },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(1)
    expect(result.outputs.state).toBe('FAILED')
    expect(result.outputs.status_message).toBe('The agent gave up: the tests need a database')
    expect(errorAnnotations(result).join('\n')).toContain('the tests need a database')
    expect(result.summary).toContain('the tests need a database')
    expectNoCrash(result)
  })

  it('odd artifacts, usage and a numeric message on a run that succeeds', async () => {
    const api = await fakeApi(
      {},
      {
        ...POLL,
        times: Infinity,
        fault: {
          kind: 'rewrite-body',
          rewrite: (b) => ({
            ...(b as object),
            title: 42,
            artifacts: [
              null,
              5,
              { artifact_type: 7, data: 'x' },
              { artifact_type: 'PULL_REQUEST' },
            ],
            request_usage: [1, 2],
            status_message: { message: 42, error_code: {} },
          }),
        },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(result.summary).toContain('42')
    expectNoCrash(result)
  })
})

describe('timeout is a deadline (item 7)', () => {
  /**
   * The step, and what reached the fake before its first cancel: events in order, no
   * wall-clock figure (a loaded machine stretches any). A wait past the timeout shows as a
   * request tried again before the cancel, or a step that never ends (the test's timeout).
   */
  async function timedOut(api: FakeAgentApi, extra: Record<string, string> = {}) {
    const result = await runStep({ inputs: inputsFor(api, { timeout: '3s', ...extra }) })
    const cancelledAt = api.requestsTo('POST', CANCEL)[0]?.receivedAt ?? Infinity
    const beforeCancel = (path: RegExp | string) =>
      api.requestsTo('GET', path).filter((request) => request.receivedAt < cancelledAt).length
    return { result, beforeCancel }
  }

  it('Retry-After longer than what is left: the cancel follows at the timeout', async () => {
    const api = await fakeApi(
      { script: () => neverEnding },
      {
        ...POLL,
        times: Infinity,
        fault: { kind: 'status', status: 429, headers: { 'retry-after': '5' } },
      },
    )
    const { result, beforeCancel } = await timedOut(api)

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toContain('did not finish within the timeout')
    // The 5 s asked for is past the 3 s timeout: at most one poll (none if the timeout comes
    // first on a loaded machine), then the cancel at the timeout (it waited out every
    // Retry-After, 43 s, before).
    expect(beforeCancel(RUN_PATH)).toBeLessThanOrEqual(1)
    expect(api.run(result.outputs.run_id ?? '')?.state).toBe('CANCELLED')
  })

  it('a poll that never answers: cut at the timeout, then the cancel', async () => {
    const api = await fakeApi(
      { script: () => neverEnding },
      { ...POLL, times: Infinity, fault: { kind: 'hang' } },
    )
    const { result, beforeCancel } = await timedOut(api)

    expect(result.code).toBe(1)
    expect(api.run(result.outputs.run_id ?? '')?.state).toBe('CANCELLED')
    // The hung poll is cut at the timeout, never tried again before the cancel.
    expect(beforeCancel(RUN_PATH)).toBeLessThanOrEqual(1)
  })

  it('a poll whose body trickles forever: cut at the timeout, then the cancel', async () => {
    const api = await fakeApi(
      { script: () => neverEnding },
      { ...POLL, times: Infinity, fault: { kind: 'trickle', intervalMs: 200 } },
    )
    const { result, beforeCancel } = await timedOut(api)

    expect(result.code).toBe(1)
    expect(api.run(result.outputs.run_id ?? '')?.state).toBe('CANCELLED')
    expect(beforeCancel(RUN_PATH)).toBeLessThanOrEqual(1)
  })

  it("a lost create's lookups against a hanging list: they stop at the timeout, the tag kept", async () => {
    const api = await fakeApi(
      { script: () => neverEnding },
      { method: 'POST', path: '/agent/run', fault: { kind: 'reset-after-acting' } },
      { method: 'GET', path: '/agent/runs', times: Infinity, fault: { kind: 'hang' } },
    )
    const { result } = await timedOut(api)

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toMatch(/gh_invocation=[\w-]+/)
    // The post step looks for the run again: the main step kept its tag and settled nothing.
    expect(savedRun(result.state)?.invocation).toBeTruthy()
    expect(savedRun(result.state)?.settled).toBeUndefined()
    // Four lookups of 5 s each, with their pauses, took about 27 s before: now the first hangs
    // until the timeout and none follows it (on a loaded machine the timeout may come first).
    expect(api.requestsTo('GET', '/agent/runs').length).toBeLessThanOrEqual(1)
  })

  it("a re-run's lookup of the run it supersedes hangs: a bounded try, not the wait", async () => {
    const api = await fakeApi(
      {},
      { method: 'GET', path: '/agent/runs', times: Infinity, fault: { kind: 'hang' } },
    )
    const result = await runStep({
      inputs: inputsFor(api, { timeout: '30s' }),
      env: { GITHUB_RUN_ATTEMPT: '2' },
    })

    expect(result.code).toBe(0)
    expect(result.outputs.state).toBe('SUCCEEDED')
    // One bounded try of the lookup of the first attempt's run, then the create and the polls:
    // never the lookup's retries.
    const lookups = api
      .requestsTo('GET', '/agent/runs')
      .filter((request) => request.query.get('metadata[gh_run_attempt]') === '1')
    expect(lookups).toHaveLength(1)
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(1)
  })
})

describe('no busy loops (item 8)', () => {
  it('poll_interval past what a timer holds waits, rather than polling at once', async () => {
    const api = await fakeApi({ script: () => neverEnding })
    const step = startStep({ inputs: inputsFor(api, { poll_interval: '600h', timeout: '1000h' }) })
    await step.printed(/Created run/)
    step.child.kill('SIGINT')
    const result = await step.result

    // No timer overflowed (Node warns, then fires at once), and at most the re-read after the cancel.
    expect(result.stderr).not.toContain('TimeoutOverflowWarning')
    expect(api.requestsTo('GET', RUN_PATH).length).toBeLessThanOrEqual(1)
    expect(api.requestsTo('POST', CANCEL)).toHaveLength(1)
  })

  it('poll_interval given longer than timeout is an input error, before any request', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, { poll_interval: '10m', timeout: '5m' }),
    })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toMatch(
      /Input "poll_interval".*longer than timeout/,
    )
    expect(api.requests).toHaveLength(0)
  })
})

describe('workflow commands: API text stays text (item 10)', () => {
  it('a state holding "\\n::stop-commands::" does not silence the annotations', async () => {
    const api = await fakeApi(
      {},
      {
        ...POLL,
        times: 2,
        fault: {
          kind: 'rewrite-body',
          rewrite: (b) => ({ ...(b as object), state: 'WARMING\n::stop-commands::pwned' }),
        },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(result.stdout).toContain('a state this action does not know')
    expectOnlyOwnCommands(result)
  })

  it('a problem detail holding "\\n::error::" is one line of the retry log', async () => {
    const api = await fakeApi(
      {},
      {
        ...POLL,
        fault: {
          kind: 'status',
          status: 503,
          body: {
            type: 'x/internal_error',
            detail: 'down\n::error::forged annotation\r\n::warning::x',
          },
        },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(result.stdout).toContain('forged annotation')
    expect(result.stdout).not.toMatch(/^::error::forged/m)
    expectOnlyOwnCommands(result)
  })

  // The other IDs refused are in the inputs' unit test.
  it('run_id input ".." is an input error, before any request', async () => {
    const api = await fakeApi()
    const result = await runStep({ inputs: { api_key: KEY, base_url: api.baseUrl, run_id: '..' } })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toContain('Input "run_id" must be a run ID')
    expect(api.requests).toHaveLength(0)
  })

  it('a create answering run_id ".." is garbled: the run is found by its tag, no ".." path', async () => {
    const api = await fakeApi(
      {},
      {
        ...CREATE,
        fault: { kind: 'rewrite-body', rewrite: (b) => ({ ...(b as object), run_id: '..' }) },
      },
    )
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(api.allRuns()).toHaveLength(1)
    expect(result.outputs.run_id).toBe(api.allRuns()[0]?.run_id)
    expect(api.requests.filter((r) => /\/\.\.?(\/|$)/.test(r.path))).toHaveLength(0)
    expect(api.requestsTo('POST', CANCEL)).toHaveLength(0)
  })
})

describe('the key: redacted before any cut, escape or encoding (item 11)', () => {
  it('a proxy page echoing the key on a poll: retried, and the key shows nowhere', async () => {
    const api = await fakeApi({}, { ...POLL, fault: { kind: 'echo-key' } })
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Bearer ***')
    expectKeyNowhere(result)
  })

  it('a 401 page echoing the key on the create: the annotation and summary show ***', async () => {
    const api = await fakeApi({}, { ...CREATE, fault: { kind: 'echo-key', status: 401 } })
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toContain('Bearer ***')
    expect(api.allRuns()).toHaveLength(0)
    expectKeyNowhere(result)
  })

  it('a run whose status message echoes the key', async () => {
    const api = await fakeApi({
      script: () => failing({ status_message: { message: `bad key ${KEY}` } }),
    })
    const result = await runStep({ inputs: inputsFor(api) })

    expect(result.code).toBe(1)
    expect(result.outputs.status_message).toBe('bad key ***')
    expectKeyNowhere(result)
  })
})

describe("GitHub's comment limit (item 12)", () => {
  const quick: RunScript = [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'SUCCEEDED', afterMs: 300, patch: { session_link: 'https://agents.example/s/1' } },
  ]

  it('a status message and an answer that escape past 65,536 characters: cut, with a note and the link', async () => {
    const message = '|'.repeat(70_000)
    const answer = '<'.repeat(60_000)
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        {
          state: 'FAILED',
          afterMs: 300,
          patch: { status_message: { message }, session_link: 'https://agents.example/s/2' },
          conversation: [
            conversationStep('step_1', [
              { role: 'assistant', content: [{ type: 'text', text: answer }] },
            ]),
          ],
        },
      ],
    })
    const gh = await fakeGitHub()
    const result = await runStep({
      inputs: inputsFor(api, { comment: 'true' }),
      env: pullRequestEnv(gh),
    })

    expect(result.code).toBe(1)
    const body = gh.comments(OWNER, REPO, PR)[0]?.body ?? ''
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_BODY)
    expect(body).toContain('**Failed**')
    // The status message is shortened; the answer is clipped before it is made safe.
    expect(body).not.toContain('&#124;'.repeat(2_001))
    expect(body).toMatch(/The answer is cut here|cut at GitHub's limit/)
    expect(body).toMatch(/\n<\/details>$/)
    expect(body).toContain('https://agents.example/s/2')
    expect(result.stdout).not.toMatch(/::warning::GitHub: could not update the comment/)
  })

  it.each([
    ['422', (gh: FakeGitHub) => gh.failNext('PATCH', /\/issues\/comments\/\d+$/, 422)],
    [
      '403 secondary rate limit',
      (gh: FakeGitHub) => gh.secondaryRateLimitNext('PATCH', /\/issues\/comments\/\d+$/, 1),
    ],
  ])(
    'an update refused with %s: retried once, shorter; never left in progress',
    async (_, refuse) => {
      const api = await fakeApi({ script: () => quick })
      const gh = await fakeGitHub()
      refuse(gh)
      const result = await runStep({
        inputs: inputsFor(api, { comment: 'true' }),
        env: pullRequestEnv(gh),
      })

      expect(result.code).toBe(0)
      const patches = gh.requestsTo('PATCH', /\/issues\/comments\/\d+$/)
      expect(patches.length).toBeGreaterThanOrEqual(2)
      const body = gh.comments(OWNER, REPO, PR)[0]?.body ?? ''
      expect(body).toContain('**Succeeded**')
      expect(body).not.toContain('**Queued**')
      expect(body).not.toContain('**In progress**')
    },
  )
})

describe('limits that agree: the prompt (item 13)', () => {
  it('a prompt_file over 1 MiB is an input error naming it, before any request', async () => {
    const api = await fakeApi()
    const dir = mkdtempSync(join(tmpdir(), 'prompt-'))
    writeFileSync(join(dir, 'prompt.md'), 'x'.repeat(1024 * 1024 + 1))
    const result = await runStep({
      inputs: { api_key: KEY, base_url: api.baseUrl, prompt_file: 'prompt.md' },
      env: { GITHUB_WORKSPACE: dir },
    })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toMatch(/Input "prompt_file" is 1048577 bytes/)
    expect(api.requests).toHaveLength(0)
  })

  it('a prompt_file of exactly 1 MiB is sent, and its run is followed to the end', async () => {
    const api = await fakeApi()
    const dir = mkdtempSync(join(tmpdir(), 'prompt-'))
    writeFileSync(join(dir, 'prompt.md'), '\u0001'.repeat(1024 * 1024))
    const result = await runStep({
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        prompt_file: 'prompt.md',
        poll_interval: '100ms',
      },
      env: { GITHUB_WORKSPACE: dir },
    })

    // Trimmed to nothing would be an empty prompt; \u0001 is no whitespace, so all of it is sent.
    expect(result.code).toBe(0)
    expect(result.outputs.state).toBe('SUCCEEDED')
  })
})

describe('smaller', () => {
  let tlsServer: HttpsServer | undefined

  afterAll(() => {
    tlsServer?.closeAllConnections()
    tlsServer?.close()
    tlsServer = undefined
  })

  it('a TLS certificate that cannot be verified: a certificate problem, nothing looked up', async () => {
    const fixtures = new URL('./fixtures/', import.meta.url)
    let requests = 0
    tlsServer = createHttpsServer(
      {
        key: readFileSync(new URL('untrusted-tls.key', fixtures)),
        cert: readFileSync(new URL('untrusted-tls.crt', fixtures)),
      },
      (_, res) => {
        requests += 1
        res.end('{}')
      },
    )
    await new Promise<void>((resolve) => tlsServer?.listen(0, '127.0.0.1', resolve))
    const { port } = tlsServer.address() as AddressInfo
    const result = await runStep({
      inputs: inputsFor({ baseUrl: `https://127.0.0.1:${port}/api/v1` }),
    })

    expect(result.code).toBe(1)
    const error = errorAnnotations(result).join('\n')
    expect(error).toContain('TLS certificate cannot be verified')
    expect(error).toContain('NODE_EXTRA_CA_CERTS')
    expect(result.stdout).not.toContain('answer to the create request was lost')
    expect(result.stdout).not.toMatch(/Retry \d of/)
    expect(requests).toBe(0)
  })

  it('the fork hint does not fire on pull_request_target, which gets secrets', async () => {
    const gh = await fakeGitHub()
    const fork = {
      pull_request: {
        number: PR,
        head: { repo: { full_name: 'mallory/app' } },
        base: { repo: { full_name: `${OWNER}/${REPO}` } },
      },
    }
    const target = await runStep({
      inputs: { api_key: '', base_url: 'http://127.0.0.1:9/api/v1', prompt: 'p' },
      env: pullRequestEnv(gh, 'pull_request_target', fork),
    })
    const plain = await runStep({
      inputs: { api_key: '', base_url: 'http://127.0.0.1:9/api/v1', prompt: 'p' },
      env: pullRequestEnv(gh, 'pull_request', fork),
    })

    expect(target.code).toBe(1)
    expect(errorAnnotations(target).join('\n')).toContain('Input "api_key" is required')
    expect(errorAnnotations(target).join('\n')).not.toContain('fork')
    expect(errorAnnotations(plain).join('\n')).toContain('fork')
  })

  it('a deeply nested mcp_servers is an input error naming it, not a stack overflow', async () => {
    const api = await fakeApi()
    const depth = 5_000
    const nested = `{"srv":{"command":"x","env":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`
    const result = await runStep({ inputs: inputsFor(api, { mcp_servers: nested }) })

    expect(result.code).toBe(1)
    expect(errorAnnotations(result).join('\n')).toMatch(/Input "mcp_servers" nests deeper than/)
    expect(api.requests).toHaveLength(0)
    expectNoCrash(result)
  })
})
