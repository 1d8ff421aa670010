/**
 * The contract test: the real client drives the fake over loopback through every endpoint the
 * action uses and every endpoint it can read the agent's work from, in success and in error;
 * then every request the fake recorded and every answer it gave must validate against the
 * service's published schema (service-openapi.facts.json, see README.md beside this file).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { AgentRunsClient } from '../../src/api/client.ts'
import { Transport } from '../../src/api/transport.ts'
import {
  ConflictError,
  NotFoundError,
  SessionGoneError,
  UnprocessableEntityError,
} from '../../src/api/errors.ts'
import type { RunArtifact } from '../../src/api/types.ts'
import { compileOutputSchema, outputInstruction } from '../../src/agent/structured-output.ts'
import { playedScript } from '../fake-api/plays.ts'
import { conversationStep, FakeAgentApi } from '../fake-api/server.ts'
import type { FakeApiOptions, RunScript } from '../fake-api/server.ts'
import { loadContract, type WireContract } from './schema.ts'

const API_KEY = 'sk-contract-5e1d'
const CREATED = '2026-01-01T00:00:00.000Z'

const ARTIFACTS: RunArtifact[] = [
  {
    artifact_type: 'PULL_REQUEST',
    created_at: CREATED,
    data: { url: 'https://github.com/octo/app/pull/7', branch: 'fix' },
  },
  {
    artifact_type: 'FILE',
    created_at: CREATED,
    data: {
      artifact_uid: 'art_file',
      filepath: 'out/report.txt',
      filename: 'report.txt',
      mime_type: 'text/plain',
    },
  },
  {
    artifact_type: 'SCREENSHOT',
    created_at: CREATED,
    data: { artifact_uid: 'art_shot', mime_type: 'image/png' },
  },
  {
    artifact_type: 'PLAN',
    created_at: CREATED,
    data: { document_uid: 'doc_plan', artifact_uid: 'art_plan', title: 'The plan' },
  },
]

const FINISHED: RunScript = [
  {
    state: 'SUCCEEDED',
    afterMs: 0,
    patch: { artifacts: ARTIFACTS },
    conversation: [
      conversationStep('s1', [{ role: 'assistant', content: [{ type: 'text', text: 'Done' }] }]),
    ],
  },
]

/** Each prompt names the run's script, so one fake holds every kind of run. */
const SCRIPTS: Record<string, RunScript> = {
  working: [
    { state: 'QUEUED', afterMs: 0 },
    {
      state: 'INPROGRESS',
      afterMs: 0,
      // Its agent orchestrates: a child run, listed with it (`ancestor_run_id`, the metadata).
      spawn: [{ prompt: 'a worker', script: [{ state: 'INPROGRESS', afterMs: 0 }] }],
      conversation: [
        conversationStep('s1', [{ role: 'user', content: [{ type: 'text', text: 'Go' }] }]),
      ],
    },
  ],
  finished: FINISHED,
  blocked: [{ state: 'BLOCKED', afterMs: 0 }],
  pending: [{ state: 'PENDING', afterMs: 0 }],
  queued: [{ state: 'QUEUED', afterMs: 0 }],
  live: [{ state: 'INPROGRESS', afterMs: 0 }],
  deferred: [{ state: 'INPROGRESS', afterMs: 0 }],
  older: [{ state: 'INPROGRESS', afterMs: 0 }],
  unsupported: [{ state: 'INPROGRESS', afterMs: 0, conversationUnsupported: true }],
  gone: [
    {
      state: 'FAILED',
      afterMs: 0,
      sessionGone: true,
      patch: { status_message: { message: 'The tests failed', error_code: 'internal_error' } },
    },
  ],
}

let contract: WireContract
const closers: (() => Promise<void>)[] = []

beforeAll(async () => {
  contract = await loadContract()
})

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

async function startApi(options: FakeApiOptions = {}): Promise<FakeAgentApi> {
  const api = await FakeAgentApi.start({
    apiKey: API_KEY,
    workerHosts: ['ci-runners.internal'],
    script: (create) => SCRIPTS[create.prompt ?? ''] ?? FINISHED,
    // The two answers no run's state gives: a message queued until the run can take it, and an
    // older service's answer, without followup_id or outcome.
    followupAnswer: (run) =>
      run.title === 'contract deferred'
        ? 'queue_pending'
        : run.title === 'contract older'
          ? 'unstated'
          : undefined,
    ...options,
  })
  closers.push(() => api.close())
  return api
}

function clientFor(api: FakeAgentApi, apiKey = API_KEY): AgentRunsClient {
  return new AgentRunsClient({
    baseUrl: api.baseUrl,
    apiKey,
    maxRetries: 0,
    sleep: () => Promise.resolve(),
  })
}

/** Every client method, in success and in error, as the action and a reader of runs use them. */
/** Where the fake's transcript redirect points, read without following it (empty when it does not). */
async function transcriptUrl(api: FakeAgentApi, runId: string): Promise<string> {
  const answer = await fetch(`${api.baseUrl}/agent/runs/${runId}/transcript`, {
    headers: { authorization: `Bearer ${API_KEY}` },
    redirect: 'manual',
  })
  await answer.arrayBuffer()
  return answer.headers.get('location') ?? ''
}

async function driveEveryEndpoint(api: FakeAgentApi): Promise<void> {
  const client = clientFor(api)
  const create = async (prompt: string) =>
    (
      await client.createRun({
        prompt,
        title: `contract ${prompt}`,
        config: {
          name: 'contract',
          model_id: 'model-a',
          environment_id: 'env_1',
          mcp_servers: {
            saved: { warp_id: 'mcp_saved' },
            local: { command: 'npx', args: ['-y', 'srv'], env: { A: 'b' } },
            remote: { url: 'https://mcp.example.test/sse', headers: { 'x-team': 'ci' } },
          },
        },
        metadata: { gh_run_id: '42', 'gh.job': 'build' },
      })
    ).run_id
  const ids: Record<string, string> = {}
  for (const prompt of Object.keys(SCRIPTS)) ids[prompt] = await create(prompt)
  const id = (name: string): string => ids[name] ?? ''

  await client.getRun(id('finished'))
  await expect(client.getRun('run_missing')).rejects.toBeInstanceOf(NotFoundError)
  await expect(clientFor(api, 'sk-wrong').getRun(id('finished'))).rejects.toThrow(/401/)
  await expect(client.createRun({ title: 'no prompt' })).rejects.toThrow(/400/)

  // Every filter the schema names, and paging by each sort key.
  await client.listRuns({
    limit: 500,
    state: ['QUEUED', 'INPROGRESS', 'BLOCKED'],
    name: 'contract',
    model_id: 'model-a',
    creator: 'user_fake',
    source: 'API',
    execution_location: 'REMOTE',
    created_after: '2020-01-01T00:00:00Z',
    created_before: '2100-01-01T00:00:00Z',
    updated_after: '2020-01-01T00:00:00Z',
    environment_id: 'env_1',
    skill: 'none',
    skill_spec: 'none',
    schedule_id: 'sched_1',
    ancestor_run_id: id('working'),
    artifact_type: 'FILE',
    metadata: { gh_run_id: '42' },
    q: 'contract',
  })
  // A child run, as its agent started it: its tree, its source and its parent's metadata.
  const children = await client.listRuns({
    ancestor_run_id: id('working'),
    source: 'ORCHESTRATION',
    metadata: { gh_run_id: '42', 'gh.job': 'build' },
  })
  expect(children.runs.map((run) => [run.parent_run_id, run.root_run_id])).toEqual([
    [id('working'), id('working')],
  ])
  for (const sort_by of ['updated_at', 'created_at', 'title', 'agent'] as const) {
    for await (const run of client.iterateRuns({ limit: 2, sort_by, sort_order: 'asc' })) {
      expect(run.task_id).toBe(run.run_id)
    }
  }
  await expect(client.listRuns({ cursor: 'not-a-cursor' })).rejects.toThrow(/400/)

  // Every way the service routes a follow-up, and the interrupt that steers a live run.
  await expect(client.sendFollowup(id('finished'), 'One more thing')).resolves.toEqual({
    followupId: expect.any(String),
    outcome: 'handoff_execution',
  })
  await expect(client.sendFollowup(id('queued'), 'Before you start')).resolves.toEqual({
    followupId: null,
    outcome: 'queued_prompt',
  })
  await client.interruptRun(id('live'))
  await expect(client.sendFollowup(id('live'), 'Look at the new head')).resolves.toEqual({
    followupId: expect.any(String),
    outcome: 'live_session',
  })
  await expect(client.sendFollowup(id('deferred'), 'When you can')).resolves.toEqual({
    followupId: expect.any(String),
    outcome: 'queue_pending',
  })
  await expect(client.sendFollowup(id('older'), 'Plain')).resolves.toEqual({})
  const otherHarness = (
    await client.createRun({ prompt: 'live', config: { harness: { type: 'claude' } } })
  ).run_id
  await expect(client.interruptRun(otherHarness)).rejects.toBeInstanceOf(UnprocessableEntityError)
  // The service's whole surface (issue 39): a harness and a worker host, as the schema has them; a
  // host not connected refused; the run that made a pull request found by its tags and artifact;
  // a conversation carried on into a new run after a 410.
  await client.createRun({
    prompt: 'finished',
    config: { harness: { type: 'oz' }, worker_host: 'ci-runners.internal' },
  })
  await expect(
    client.createRun({ prompt: 'finished', config: { worker_host: 'elsewhere.internal' } }),
  ).rejects.toThrow(/400/)
  await client.listRuns({
    metadata: { gh_run_id: '42' },
    artifact_type: 'PULL_REQUEST',
    sort_by: 'created_at',
    limit: 100,
  })
  const gone = await client.getRun(id('gone'))
  await client.createRun({ prompt: 'finished', conversation_id: gone.conversation_id ?? '' })
  await expect(client.interruptRun(id('queued'))).rejects.toBeInstanceOf(ConflictError)
  await expect(client.interruptRun('run_missing')).rejects.toBeInstanceOf(NotFoundError)
  await expect(client.sendFollowup(id('gone'), 'Hello?')).rejects.toBeInstanceOf(SessionGoneError)
  await expect(client.sendFollowup('run_missing', 'x')).rejects.toBeInstanceOf(NotFoundError)

  await expect(client.cancelRun(id('working'))).resolves.toEqual({ kind: 'cancelled' })
  await expect(client.cancelRun(id('blocked'))).resolves.toEqual({ kind: 'blocked' })
  await expect(client.cancelRun(id('gone'))).resolves.toEqual({ kind: 'already-finished' })
  await expect(client.cancelRun(id('pending'))).rejects.toBeInstanceOf(ConflictError)
  api.patchRun(id('queued'), { is_run_type_cancellable: false, source: 'GITHUB_ACTION' })
  await expect(client.cancelRun(id('queued'))).rejects.toBeInstanceOf(UnprocessableEntityError)
  await expect(client.cancelRun('run_missing')).rejects.toBeInstanceOf(NotFoundError)

  await client.getConversation(id('working'))
  // A run's conversation after follow-ups: each kept as the person's next turn (the report counts
  // the steering ones).
  await client.getConversation(id('finished'))
  await client.getConversation(id('live'))
  // The report's listing: a period by creation, a page of 500, by the project's tag.
  await client.listRuns({
    created_after: new Date(Date.now() - 7 * 86_400_000).toISOString(),
    created_before: new Date().toISOString(),
    metadata: { gh_repository: 'octo-org/app' },
    sort_by: 'created_at',
    sort_order: 'desc',
    limit: 500,
  })
  await expect(client.getConversation(id('queued'))).rejects.toBeInstanceOf(NotFoundError)
  await expect(client.getConversation(id('unsupported'))).rejects.toBeInstanceOf(
    UnprocessableEntityError,
  )
  // The action reads no transcript, but the fake serves one (a redirect to a signed URL): held to the schema too.
  await client.downloadSignedUrl(await transcriptUrl(api, id('working')))
  await transcriptUrl(api, 'run_missing')

  for (const uid of ['art_file', 'art_shot', 'art_plan']) {
    const artifact = await client.getArtifact(uid)
    if (artifact.artifact_type !== 'PLAN')
      await client.downloadSignedUrl(artifact.data.download_url)
  }
  await expect(client.getArtifact('art_missing')).rejects.toBeInstanceOf(NotFoundError)
}

describe('the wire, judged by the service schema', () => {
  it('every request the client sends and every answer the fake gives conforms', async () => {
    const api = await startApi({ atCapacity: (create) => create.prompt === 'queued' })
    await driveEveryEndpoint(api)

    const exchanges = api.exchanges()
    expect(exchanges).toHaveLength(api.requests.length)
    expect(contract.violations(exchanges)).toEqual([])

    // Every operation was exercised in success and in error.
    const seen = new Map<string, Set<string>>()
    for (const exchange of exchanges) {
      const operation = contract.operationOf(exchange) ?? 'none'
      const outcome = exchange.response.status < 400 ? 'success' : 'error'
      seen.set(operation, (seen.get(operation) ?? new Set()).add(outcome))
    }
    const both = new Set(['success', 'error'])
    expect(Object.fromEntries(seen)).toEqual({
      runAgent: both,
      getRun: both,
      listRuns: both,
      submitFollowup: both,
      interruptRun: both,
      cancelRun: both,
      getRunConversation: both,
      getRunTranscript: both,
      getArtifact: both,
    })
  })

  it('holds for the service path of create and for answers the rate limit refuses', async () => {
    const api = await startApi({
      createPath: '/agent/runs',
      rateLimit: { capacity: 2, refillPerSecond: 0, retryAfterSeconds: 1 },
    })
    const client = clientFor(api)
    await client.createRun({ prompt: 'finished' })
    await expect(client.getRun('run_missing')).rejects.toThrow(/429/)

    expect(api.exchanges().map((e) => e.response.status)).toEqual([404, 200, 429])
    expect(contract.violations(api.exchanges())).toEqual([])
  })

  it('holds for a service that takes the metadata filter and ignores it (an older deployment)', async () => {
    const api = await startApi({ metadataFilter: 'ignored' })
    const client = clientFor(api)
    await client.createRun({ prompt: 'finished', metadata: { gh_repository: 'octo-org/other' } })
    const { runs } = await client.listRuns({ metadata: { gh_repository: 'octo-org/app' } })
    // The filter was ignored: the other project's run is listed, as the report must expect.
    expect(runs).toHaveLength(1)
    expect(contract.violations(api.exchanges())).toEqual([])
  })

  it('holds for the plays a person tries by hand: a merge request opened, continued, and a JSON answer', async () => {
    const api = await startApi({ script: playedScript })
    const client = clientFor(api)
    // As the command tags a run of merge request !7's pipeline (continue_from looks by these).
    const metadata = { gh_forge: 'gitlab', gh_repository: 'group/app', gh_thread: '7' }
    await client.createRun({ prompt: 'pr: fix the flaky test', metadata })
    const hourAgo = Date.now() - 3_600_000
    const opened = api.seedRun(
      { prompt: 'pr: fix the flaky test', metadata },
      { createdAt: hourAgo },
    )
    const schema = await compileOutputSchema({
      input: 'output_schema',
      text: '{"type":"object","required":["outdated"],"properties":{"outdated":{"type":"array","minItems":1,"items":{"type":"string"}}}}',
    })
    const answered = api.seedRun(
      { prompt: `json: list them\n\n${outputInstruction(schema)}` },
      { createdAt: hourAgo },
    )

    // continue_from's one list request finds the run by its artifact, and sends it the prompt.
    const { runs } = await client.listRuns({
      artifact_type: 'PULL_REQUEST',
      metadata: { gh_repository: 'group/app' },
      sort_by: 'created_at',
      limit: 100,
    })
    const found = runs.find((run) => run.run_id === opened.run_id)
    expect(found?.artifacts?.[0]?.data).toMatchObject({
      url: 'https://gitlab.example.test/group/app/-/merge_requests/7',
    })
    await client.sendFollowup(opened.run_id, 'Now fix the lint too')
    await client.getRun(opened.run_id)
    const conversation = await client.getConversation(answered.run_id)
    const said = JSON.stringify(conversation)
    expect(said).toContain('outdated')

    expect(contract.violations(api.exchanges())).toEqual([])
  })

  it('holds for an account on dollar billing, whose runs also report *_cost_usd', async () => {
    const api = await startApi({ usdPerCredit: 0.01, setupCredits: 2 })
    const script = [
      { state: 'INPROGRESS' as const, afterMs: 0 },
      { state: 'SUCCEEDED' as const, afterMs: 30_000 },
    ]
    const seeded = api.seedRun({ prompt: 'billed' }, { createdAt: Date.now() - 60_000, script })
    const run = await clientFor(api).getRun(seeded.run_id)
    expect(run.request_usage).toMatchObject({
      compute_cost: 3,
      compute_cost_usd: 0.03,
      inference_cost_usd: 0.15,
      platform_cost_usd: 0.02,
    })
    expect(contract.violations(api.exchanges())).toEqual([])
  })

  it('catches an answer that leaves out what the schema requires', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'GET',
      fault: { kind: 'status', status: 200, body: { run_id: 'run_x', state: 'SUCCEEDED' } },
    })
    await clientFor(api).getRun('run_x')

    const [violation] = contract.violations(api.exchanges())
    expect(violation).toMatch(/answer .*task_id/)
  })

  it('catches a redirect whose Location is not a URI', async () => {
    const api = await startApi()
    api.injectFault({
      method: 'GET',
      fault: { kind: 'status', status: 302, headers: { location: 'two words' }, body: '' },
    })
    await transcriptUrl(api, 'run_x')

    expect(contract.violations(api.exchanges()).join('\n')).toMatch(/answer .*location/i)
  })

  it('refuses a harness the published schema does not name (codex, gemini), as the fake does', async () => {
    const api = await startApi()
    const client = clientFor(api)
    for (const type of ['codex', 'gemini']) {
      await expect(
        client.createRun({ prompt: 'finished', config: { harness: { type } } }),
      ).rejects.toThrow(new RegExp(`400 invalid_request: Unknown harness ${type}`))
    }
    // The schema judges those requests out of bounds, and the fake's refusals in bounds.
    const violations = contract.violations(api.exchanges())
    expect(violations).toHaveLength(2)
    for (const violation of violations)
      expect(violation).toMatch(/request \/requestBody\/config\/harness\/type/)
  })

  it('catches a request the schema does not allow', async () => {
    const api = await startApi()
    const client = new Transport({ baseUrl: api.baseUrl, apiKey: API_KEY, maxRetries: 0 })
    await expect(client.request('GET', '/agent/runs', { query: { limit: '0' } })).rejects.toThrow(
      /400/,
    )
    await expect(
      client.request('GET', '/agent/runs', { query: { state: ['QUEUED', 'DONE'] } }),
    ).rejects.toThrow(/400/)
    await expect(
      client.request('POST', '/agent/run', { body: { prompt: 'p', metadata: { 'bad key': 1 } } }),
    ).rejects.toThrow(/400/)

    const violations = contract.violations(api.exchanges()).join('\n')
    expect(violations).toMatch(/request \/query\/limit/)
    expect(violations).toMatch(/request \/query\/state/)
    expect(violations).toMatch(/request \/requestBody\/metadata/)
  })
})
