/**
 * What the published service does, through the bundle: a BLOCKED run cannot be cancelled and
 * the log says so truthfully, an MCP server saved in the service (`warp_id`) reaches it, the
 * action sends only the headers it needs, and what it sends conforms to the service's schema.
 */
import { describe, it } from './concurrent.ts'
import { beforeAll, expect } from 'vitest'
import { loadContract, type WireContract } from '../contract/schema.ts'
import { type RunScript } from '../fake-api/server.ts'
import {
  errorAnnotations,
  itNeedsProcess,
  runPostStep,
  runStep,
  startStep,
  type StepResult,
} from './harness.ts'
import { e2eServers } from './servers.ts'
import { savedRun } from './saved-runs.ts'

const KEY = 'sk-e2e-contract-8c2d'
const BLOCKED_WORDING = /cannot be cancelled while it waits for a person; it stays BLOCKED/
const { fakeApi, inputsFor } = e2eServers(KEY)
let contract: WireContract

beforeAll(async () => {
  contract = await loadContract()
})

const blockedAfterWork: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
  { state: 'BLOCKED', afterMs: 150 },
]

function warnings(result: StepResult): string {
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('::warning'))
    .join('\n')
}

function expectNoFinishedClaim(result: StepResult): void {
  expect(result.stdout).not.toMatch(/already finished/)
  expect(result.summary).not.toMatch(/already finished/)
}

describe('a BLOCKED run cannot be cancelled', () => {
  it('on timeout: warns that it stays BLOCKED, outputs BLOCKED, and the post step tries again', async () => {
    // BLOCKED from its creation: a loaded machine can take the whole 1 s timeout to create the
    // run, and the run must be BLOCKED by then, whatever the load (it once was still working).
    const api = await fakeApi({ script: () => [{ state: 'BLOCKED', afterMs: 0 }] })
    const inputs = inputsFor(api, { prompt: 'x', timeout: '1s' })
    const main = await runStep({ inputs })

    expect(main.code).toBe(1)
    const runId = main.outputs.run_id ?? ''
    expect(api.requestsTo('POST', `/agent/runs/${runId}/cancel`)).toHaveLength(1)
    expect(api.run(runId)?.state).toBe('BLOCKED')
    // Said once, in the error line, with what to do; the summary claims no cancel.
    expect(errorAnnotations(main).join('\n')).toMatch(BLOCKED_WORDING)
    expect(main.stdout.match(new RegExp(BLOCKED_WORDING.source, 'g'))).toHaveLength(1)
    expect(main.summary).not.toMatch(/cancelled it|was cancelled/)
    expect(main.outputs.state).toBe('BLOCKED')
    expectNoFinishedClaim(main)
    // Not settled: a person may have moved the run on by the time the post step runs.
    expect(savedRun(main.state)?.settled).not.toBe(true)

    const post = await runPostStep(main, { inputs })
    expect(post.code).toBe(0)
    expect(api.requestsTo('POST', `/agent/runs/${runId}/cancel`)).toHaveLength(2)
    expect(warnings(post)).toMatch(BLOCKED_WORDING)
    expectNoFinishedClaim(post)
    expect(contract.violations(api.exchanges())).toEqual([])
  })

  it('on a signal: warns that it stays BLOCKED and outputs BLOCKED', async () => {
    const api = await fakeApi({ script: () => [{ state: 'BLOCKED', afterMs: 0 }] })
    const inputs = inputsFor(api, { prompt: 'x' })
    const step = startStep({ inputs })
    await api.waitForRequest('GET', /\/agent\/runs\/run_/)

    step.child.kill('SIGTERM')
    const main = await step.result

    expect(main.code).toBe(1)
    const runId = main.outputs.run_id ?? ''
    expect(api.requestsTo('POST', `/agent/runs/${runId}/cancel`)).toHaveLength(1)
    expect(api.run(runId)?.state).toBe('BLOCKED')
    expect(warnings(main)).toMatch(BLOCKED_WORDING)
    expect(main.outputs.state).toBe('BLOCKED')
    expectNoFinishedClaim(main)
  })

  itNeedsProcess(
    'in the post step after a hard kill: warns, and does not fail the job',
    async () => {
      const api = await fakeApi({ script: () => [{ state: 'BLOCKED', afterMs: 0 }] })
      const inputs = inputsFor(api, { prompt: 'x' })
      const step = startStep({ inputs })
      await api.waitForRequest('GET', /\/agent\/runs\/run_/)
      step.child.kill('SIGKILL')
      const main = await step.result

      const post = await runPostStep(main, { inputs })

      expect(post.code).toBe(0)
      expect(warnings(post)).toMatch(BLOCKED_WORDING)
      expectNoFinishedClaim(post)
    },
  )
})

describe('the wire the action sends', () => {
  it('passes an MCP server saved in the service (warp_id) to it, and it all conforms', async () => {
    const api = await fakeApi({ atCapacity: true })
    const servers = {
      saved: { warp_id: 'mcp_01HZX' },
      local: { command: 'npx', args: ['-y', '@acme/mcp'] },
    }
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'x', mcp_servers: JSON.stringify(servers) }),
    })

    expect(result.code).toBe(0)
    const [create] = api.requestsTo('POST', /\/agent\/runs?$/)
    expect(create?.json).toMatchObject({ config: { mcp_servers: servers } })
    expect(api.allRuns()[0]?.agent_config?.mcp_servers).toEqual(servers)
    // The service at capacity queues the run: one line says so, and the step goes on.
    expect(result.stdout.match(/at capacity/g)).toHaveLength(1)
    expect(contract.violations(api.exchanges())).toEqual([])
  })

  it('conforms through a day of use: cancel_previous, create, wait, follow-up, await', async () => {
    // The follow-up's pass ends once a poll has shown it at work (no window a loaded machine
    // misses, then the grace for a pass never seen).
    const api = await fakeApi({ followupPassSeen: true })
    const stale = api.seedRun(
      { prompt: 'old', config: { name: 'pr-1' }, metadata: { gh_repository: 'octo-org/app' } },
      { script: [{ state: 'INPROGRESS', afterMs: 0 }] },
    )
    const first = await runStep({
      inputs: inputsFor(api, { prompt: 'Review', name: 'pr-1', cancel_previous: 'true' }),
    })
    expect(first.code).toBe(0)
    expect(api.run(stale.run_id)?.state).toBe('CANCELLED')
    const runId = first.outputs.run_id ?? ''

    const second = await runStep({
      inputs: inputsFor(api, { run_id: runId, followup: 'Also the changelog' }),
    })
    expect(second.code).toBe(0)
    const third = await runStep({ inputs: inputsFor(api, { run_id: runId }) })
    expect(third.code).toBe(0)

    const operations = new Set(api.exchanges().map((e) => contract.operationOf(e)))
    expect([...operations].sort()).toEqual(
      // getRunConversation: the answer, read once each time a run has ended.
      [
        'cancelRun',
        'getRun',
        'getRunConversation',
        'listRuns',
        'runAgent',
        'submitFollowup',
      ].sort(),
    )
    expect(contract.violations(api.exchanges())).toEqual([])
  })

  it('sends exactly the headers it needs, none that would change what a run is', async () => {
    const api = await fakeApi({ script: () => blockedAfterWork })
    const inputs = inputsFor(api, { prompt: 'x', timeout: '1s', cancel_previous: 'false' })
    const main = await runStep({ inputs })
    await runPostStep(main, { inputs })

    const sent = new Set(api.requests.flatMap((request) => Object.keys(request.headers)))
    expect([...sent].sort()).toEqual(
      [
        'accept',
        'authorization',
        'connection',
        'content-length',
        'content-type',
        'host',
        'user-agent',
      ].sort(),
    )
    for (const request of api.requests) {
      const isPost = request.method === 'POST'
      const hasBody = request.body !== ''
      expect(Object.keys(request.headers).sort()).toEqual(
        [
          'accept',
          'authorization',
          'connection',
          'host',
          'user-agent',
          ...(isPost ? ['content-length'] : []),
          ...(hasBody ? ['content-type'] : []),
        ].sort(),
      )
      expect(request.headers['user-agent']).toMatch(/^cloud-agent-run-action\b/)
    }
    // Every run it made is an API run, which stays cancellable.
    expect(api.allRuns().map((run) => run.source)).toEqual(['API'])
  })
})
