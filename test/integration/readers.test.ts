/**
 * The client's readers of what an agent did (conversation, transcript, artifacts, signed
 * downloads), follow-ups to a gone session, paging that cannot loop, and the create and
 * cancel_previous paths the service's facts shape: all against the fake over real loopback.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentRunsClient } from '../../src/api/client.ts'
import {
  ApiResponseFormatError,
  ApiTimeoutError,
  DownloadError,
  NotFoundError,
  SessionGoneError,
  UnprocessableEntityError,
} from '../../src/api/errors.ts'
import type { RunArtifact } from '../../src/api/types.ts'
import { cancelPreviousRuns } from '../../src/run/cancel.ts'
import { createRunOnce, type RunTag } from '../../src/run/create.ts'
import { conversationStep, FakeAgentApi } from '../fake-api/server.ts'
import type { FakeApiOptions, RunScript } from '../fake-api/server.ts'

const API_KEY = 'sk-readers-91ab'
const CREATED = '2026-01-01T00:00:00.000Z'
const closers: (() => Promise<void>)[] = []

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

async function startApi(options: FakeApiOptions = {}): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start({ apiKey: API_KEY, ...options })
  closers.push(() => api.close())
  return api
}

function clientFor(api: { baseUrl: string }): AgentRunsClient {
  return new AgentRunsClient({
    baseUrl: api.baseUrl,
    apiKey: API_KEY,
    maxRetries: 0,
    sleep: () => Promise.resolve(),
  })
}

function restoreEnv(name: 'https_proxy' | 'no_proxy', value: string | undefined): void {
  if (value === undefined) Reflect.deleteProperty(process.env, name)
  else process.env[name] = value
}

/** Polls the run until it reaches `state`: the script moves it on its own clock. */
async function untilState(client: AgentRunsClient, runId: string, state: string): Promise<void> {
  // A bound for a broken fake, not a window: however slow the machine, the script moves on.
  const deadline = performance.now() + 40_000
  while (performance.now() < deadline) {
    if ((await client.getRun(runId)).state === state) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`run ${runId} never reached ${state} within 40 s`)
}

/** A loopback server that never answers, closed after the test. */
async function silentServer(onRequest?: (method: string, url: string) => void): Promise<string> {
  const server: Server = createServer((req) => onRequest?.(req.method ?? '', req.url ?? ''))
  server.on('connect', (req, socket) => {
    onRequest?.(req.method ?? '', req.url ?? '')
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const FILE: RunArtifact = {
  artifact_type: 'FILE',
  created_at: CREATED,
  data: {
    artifact_uid: 'art_file',
    filepath: 'out/report.txt',
    filename: 'report.txt',
    mime_type: 'text/plain',
  },
}
const SCREENSHOT: RunArtifact = {
  artifact_type: 'SCREENSHOT',
  created_at: CREATED,
  data: { artifact_uid: 'art_shot', mime_type: 'image/png' },
}
const PLAN: RunArtifact = {
  artifact_type: 'PLAN',
  created_at: CREATED,
  data: { document_uid: 'doc_1', artifact_uid: 'art_plan', title: 'Plan' },
}
const PULL_REQUEST: RunArtifact = {
  artifact_type: 'PULL_REQUEST',
  created_at: CREATED,
  data: { url: 'https://github.com/octo/app/pull/1', branch: 'fix' },
}
const WITH_ARTIFACTS: RunScript = [
  { state: 'SUCCEEDED', afterMs: 0, patch: { artifacts: [FILE, SCREENSHOT, PLAN, PULL_REQUEST] } },
]

describe('getConversation', () => {
  it('is not found before the run has one, then grows as the run moves', async () => {
    const api = await startApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        // Each step waits for a GET of the run to show the one before: a loaded machine can
        // take any time between two reads, and the run still stands where the test reads it.
        {
          state: 'INPROGRESS',
          afterMs: 80,
          afterSeen: true,
          conversation: [
            conversationStep('s1', [{ role: 'user', content: [{ type: 'text', text: 'Go' }] }]),
          ],
        },
        {
          state: 'SUCCEEDED',
          afterMs: 160,
          afterSeen: true,
          conversation: [
            conversationStep('s2', [
              { role: 'assistant', content: [{ type: 'text', text: 'Done' }] },
            ]),
          ],
        },
      ],
    })
    const client = clientFor(api)
    const { run_id } = await client.createRun({ prompt: 'p' })

    await expect(client.getConversation(run_id)).rejects.toBeInstanceOf(NotFoundError)
    expect((await client.getRun(run_id)).state).toBe('QUEUED')
    // The test's own view of the run: it shows INPROGRESS to no GET, so the run stays there.
    while (api.run(run_id)?.state !== 'INPROGRESS') {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const early = await client.getConversation(run_id)
    expect(early.steps.map((step) => step.id)).toEqual(['s1'])
    expect(early.conversation_id).toBe(api.run(run_id)?.conversation_id)
    await untilState(client, run_id, 'SUCCEEDED')
    const late = await client.getConversation(run_id)
    expect(late.steps.map((step) => step.id)).toEqual(['s1', 's2'])
  })

  it('is unprocessable (422) when the service cannot show the run’s format', async () => {
    const api = await startApi({
      script: () => [{ state: 'INPROGRESS', afterMs: 0, conversationUnsupported: true }],
    })
    const client = clientFor(api)
    const { run_id } = await client.createRun({ prompt: 'p' })
    const error = await client.getConversation(run_id).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnprocessableEntityError)
    expect((error as UnprocessableEntityError).code).toBe('operation_not_supported')
  })
})

describe('artifacts', () => {
  it('gets FILE and SCREENSHOT with signed URLs and a PLAN inline; no PULL_REQUEST', async () => {
    const api = await startApi({ script: () => WITH_ARTIFACTS })
    api.setArtifactContent('art_file', 'hello from the agent\n')
    api.setArtifactContent('art_plan', '# Plan\n\n1. Fix it\n')
    const client = clientFor(api)
    await client.createRun({ prompt: 'p' })

    const file = await client.getArtifact('art_file')
    expect(file.artifact_type).toBe('FILE')
    if (file.artifact_type !== 'FILE') throw new Error('not a file')
    expect(file.data).toMatchObject({ filename: 'report.txt', filepath: 'out/report.txt' })
    const fileBody = await client.downloadSignedUrl(file.data.download_url)
    expect(fileBody.body.toString()).toBe('hello from the agent\n')
    expect(fileBody.contentType).toBe('text/plain')

    const shot = await client.getArtifact('art_shot')
    if (shot.artifact_type !== 'SCREENSHOT') throw new Error('not a screenshot')
    expect((await client.downloadSignedUrl(shot.data.download_url)).body.length).toBeGreaterThan(0)

    const plan = await client.getArtifact('art_plan')
    if (plan.artifact_type !== 'PLAN') throw new Error('not a plan')
    expect(plan.data.content).toBe('# Plan\n\n1. Fix it\n')
    expect(plan.data.content_type).toBe('text/markdown')

    await expect(client.getArtifact('doc_missing')).rejects.toBeInstanceOf(NotFoundError)
    await expect(client.getArtifact('')).rejects.toThrow(/artifact UID is required/)
    expect(api.downloads.requests.map((r) => r.authorization)).toEqual([undefined, undefined])
  })
})

describe('downloadSignedUrl', () => {
  async function signedFileUrl(api: FakeAgentApi): Promise<string> {
    const client = clientFor(api)
    await client.createRun({ prompt: 'p' })
    const file = await client.getArtifact('art_file')
    if (file.artifact_type !== 'FILE') throw new Error('not a file')
    return file.data.download_url
  }

  it('is refused by storage with a missing or wrong signature, and says the URL may have expired', async () => {
    const api = await startApi({ script: () => WITH_ARTIFACTS })
    const url = new URL(await signedFileUrl(api))
    const client = clientFor(api)

    url.searchParams.set('signature', 'forged')
    const forged = await client.downloadSignedUrl(url.toString()).catch((e: unknown) => e)
    expect(forged).toBeInstanceOf(DownloadError)
    expect((forged as DownloadError).status).toBe(403)
    expect((forged as Error).message).toMatch(/may have expired/)
    // The signature is a credential of sorts: it never appears in a message.
    expect((forged as Error).message).not.toContain('forged')

    url.searchParams.delete('signature')
    await expect(client.downloadSignedUrl(url.toString())).rejects.toBeInstanceOf(DownloadError)
    expect(api.downloads.requests.map((r) => r.status)).toEqual([403, 403])
  })

  it('refuses plain http to another host before sending anything', async () => {
    const api = await startApi()
    const client = clientFor(api)
    await expect(
      client.downloadSignedUrl('http://storage.example.test/a?signature=x'),
    ).rejects.toThrow(/only https/)
    await expect(client.downloadSignedUrl('ftp://127.0.0.1/a')).rejects.toThrow(/only https/)
    await expect(client.downloadSignedUrl('not a url')).rejects.toThrow(/does not parse/)
  })

  it('refuses this machine, by any spelling, when base_url is remote; sends nothing', async () => {
    const api = await startApi({ script: () => WITH_ARTIFACTS })
    const local = new URL(await signedFileUrl(api))
    const remote = clientFor({ baseUrl: 'https://agents.example.test/api/v1' })
    const spellings = [
      local.toString(),
      `https://127.0.0.1:${local.port}/a`,
      `http://0x7f.1:${local.port}/a`,
      `http://2130706433:${local.port}/a`,
      `http://localhost.:${local.port}/a`,
      `http://[::1]:${local.port}/a`,
      `http://[::ffff:127.0.0.1]:${local.port}/a`,
      `http://0.0.0.0:${local.port}/a`,
      `http://agent.localhost:${local.port}/a`,
    ]
    for (const url of spellings) {
      await expect(remote.downloadSignedUrl(url), url).rejects.toThrow(
        /is this machine, and base_url is not/,
      )
    }
    expect(api.downloads.requests).toEqual([])
    // The same URL from a service on this machine is fetched.
    expect((await clientFor(api).downloadSignedUrl(local.toString())).body.length).toBeGreaterThan(
      0,
    )
  })

  it('caps the size it reads', async () => {
    const api = await startApi({ script: () => WITH_ARTIFACTS })
    api.setArtifactContent('art_file', 'x'.repeat(4096))
    const url = await signedFileUrl(api)
    await expect(clientFor(api).downloadSignedUrl(url, { maxBytes: 1024 })).rejects.toBeInstanceOf(
      ApiResponseFormatError,
    )
  })

  it('gives up at its deadline', async () => {
    const api = await startApi()
    const origin = await silentServer()
    await expect(
      clientFor(api).downloadSignedUrl(`${origin}/slow`, { timeoutMs: 150 }),
    ).rejects.toBeInstanceOf(ApiTimeoutError)
  })

  it('goes through the runner’s proxy, as every other request does', async () => {
    const api = await startApi()
    const seen: string[] = []
    const proxy = await silentServer((method, url) => seen.push(`${method} ${url}`))
    const saved = { https_proxy: process.env.https_proxy, no_proxy: process.env.no_proxy }
    process.env.https_proxy = proxy
    delete process.env.no_proxy
    try {
      await expect(
        clientFor(api).downloadSignedUrl('https://storage.example.test/a?signature=s', {
          timeoutMs: 2000,
        }),
      ).rejects.toThrow()
    } finally {
      restoreEnv('https_proxy', saved.https_proxy)
      restoreEnv('no_proxy', saved.no_proxy)
    }
    expect(seen).toEqual(['CONNECT storage.example.test:443'])
  })
})

describe('follow-ups', () => {
  it('a gone session (410) is a SessionGoneError naming conversation_id', async () => {
    const api = await startApi({
      script: () => [{ state: 'FAILED', afterMs: 0, sessionGone: true }],
    })
    const client = clientFor(api)
    const { run_id } = await client.createRun({ prompt: 'p' })

    const error = await client.sendFollowup(run_id, 'again').catch((e) => e)
    expect(error).toBeInstanceOf(SessionGoneError)
    expect((error as Error).message).toMatch(/410.*conversation_id/s)
    expect(api.requestsTo('POST', /followups$/)[0]?.json).toEqual({ message: 'again' })
  })

  it('answers 410 once a failed run’s debug window has closed', async () => {
    const api = await startApi({
      script: () => [
        {
          state: 'FAILED',
          afterMs: 0,
          patch: {
            status_message: { message: 'x', session_debug_until: '2020-01-01T00:00:00Z' },
          },
        },
      ],
    })
    const client = clientFor(api)
    const { run_id } = await client.createRun({ prompt: 'p' })
    await expect(client.sendFollowup(run_id, 'again')).rejects.toBeInstanceOf(SessionGoneError)
  })
})

describe('paging', () => {
  it('iterateRuns stops when the service repeats a cursor', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'GET',
      path: '/agent/runs',
      times: Infinity,
      fault: {
        kind: 'status',
        status: 200,
        body: { runs: [], page_info: { has_next_page: true, next_cursor: 'same' } },
      },
    })
    const runs = []
    for await (const run of clientFor(api).iterateRuns({})) runs.push(run)
    expect(runs).toEqual([])
    expect(api.requestsTo('GET', '/agent/runs').map((r) => r.query.get('cursor'))).toEqual([
      null,
      'same',
    ])
  })

  it('cancel_previous pages by created_at, and sees every run once while they change state', async () => {
    const api = await startApi({ script: () => [{ state: 'INPROGRESS', afterMs: 0 }] })
    for (let i = 0; i < 3; i += 1) {
      api.seedRun({ prompt: `p${i}`, config: { name: 'pr-1' }, metadata: OUR_THREAD })
    }
    const logged: string[] = []
    const log = { info: (m: string) => logged.push(m), warning: (m: string) => logged.push(m) }

    const cancelled = await cancelPreviousRuns(clientFor(api), asked('pr-1'), {
      ...log,
      debug: () => {},
    })

    expect(cancelled).toHaveLength(3)
    const [list] = api.requestsTo('GET', '/agent/runs')
    expect(list?.query.get('sort_by')).toBe('created_at')
  })

  it("cancels only the name's runs of this project and thread: a constant name never reaches another pull request's run", async () => {
    const api = await startApi({ script: () => [{ state: 'INPROGRESS', afterMs: 0 }] })
    const ours = api.seedRun({ prompt: 'a', config: { name: 'review' }, metadata: OUR_THREAD })
    const otherThread = api.seedRun({
      prompt: 'b',
      config: { name: 'review' },
      metadata: { ...OUR_THREAD, gh_thread: '2' },
    })
    const otherProject = api.seedRun({
      prompt: 'c',
      config: { name: 'review' },
      metadata: { ...OUR_THREAD, gh_repository: 'octo-org/other' },
    })
    const otherForge = api.seedRun({
      prompt: 'd',
      config: { name: 'review' },
      metadata: { ...OUR_THREAD, gh_forge: 'gitlab' },
    })
    const untagged = api.seedRun({ prompt: 'e', config: { name: 'review' } })
    const log = { info: () => {}, warning: () => {}, debug: () => {} }

    const cancelled = await cancelPreviousRuns(clientFor(api), asked('review'), log)

    expect(cancelled).toEqual([ours.run_id])
    for (const run of [otherThread, otherProject, otherForge, untagged]) {
      expect(api.requestsTo('POST', `/agent/runs/${run.run_id}/cancel`)).toHaveLength(0)
    }
  })

  it('cancels nothing when no project is named: nothing can be told to be this step’s', async () => {
    const api = await startApi({ script: () => [{ state: 'INPROGRESS', afterMs: 0 }] })
    api.seedRun({ prompt: 'a', config: { name: 'review' }, metadata: OUR_THREAD })
    const logged: string[] = []
    const log = { info: (m: string) => logged.push(m), warning: () => {}, debug: () => {} }
    const home = { forge: undefined, project: undefined, thread: undefined, change: undefined }

    const cancelled = await cancelPreviousRuns(
      clientFor(api),
      { name: 'review', home, input: '--previous-run cancel' },
      log,
    )

    expect(cancelled).toEqual([])
    expect(api.requestsTo('GET', '/agent/runs')).toHaveLength(0)
    expect(logged.join('\n')).toContain('--previous-run cancel: no project is named')
  })
})

/** A run's tags on pull request #1 of octo-org/app, as a step of v1.4 writes them. */
const OUR_THREAD = { gh_forge: 'github', gh_repository: 'octo-org/app', gh_thread: '1' }

function asked(name: string) {
  const home = { forge: 'github' as const, project: 'octo-org/app', thread: 1, change: 1 }
  return { name, home, input: 'previous_run: cancel' }
}

describe('create', () => {
  it('says once that the run waits in the service’s queue when it is at capacity', async () => {
    const api = await startApi({ atCapacity: true })
    const logged: string[] = []
    const log = {
      debug: () => {},
      info: (m: string) => logged.push(m),
      warning: (m: string) => logged.push(m),
    }
    const tag: RunTag = { invocation: 'inv-1', metadata: { gh_invocation: 'inv-1' } }
    const created = await createRunOnce({ prompt: 'p' }, tag, {
      client: clientFor(api),
      now: Date.now,
      sleep: () => Promise.resolve(),
      log,
    })
    expect(created.at_capacity).toBe(true)
    expect(created.task_id).toBe(created.run_id)
    expect(logged).toEqual([expect.stringMatching(/at capacity: run \S+ waits in its queue/)])
  })
})
