/**
 * The service's whole surface end to end (issue 39): `harness` picks the agent that works a run
 * and `worker_host` the self-hosted worker it runs on, for one run and for each task; a task may
 * name its own, and its own output_schema. A value the service refuses is one clear line; a bad
 * value is refused before any request.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import type { CreateRunRequest } from '../../src/api/types.ts'
import type { RunScript } from '../fake-api/server.ts'
import { runStep } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-surface-e2e'
const { fakeApi, inputsFor } = e2eServers(KEY)

const creates = (api: Awaited<ReturnType<typeof fakeApi>>) =>
  api.requestsTo('POST', /\/agent\/runs?$/).map((request) => request.json as CreateRunRequest)

/** A run whose final message ends with `document` as a ```json block. */
function answering(document: unknown): RunScript {
  const text = `Done.\n\n\`\`\`json\n${JSON.stringify(document)}\n\`\`\``
  return [
    { state: 'QUEUED', afterMs: 0 },
    {
      state: 'SUCCEEDED',
      afterMs: 100,
      conversation: [
        {
          id: 's1',
          steps: [],
          messages: [{ role: 'assistant', content: [{ type: 'text', text }] }],
        },
      ],
    },
  ]
}

describe('harness and worker_host', () => {
  it('sends config.harness { type } and config.worker_host as the published schema has them', async () => {
    const api = await fakeApi({ workerHosts: ['ci-runners.internal'] })
    const step = await runStep({
      inputs: inputsFor(api, {
        prompt: 'Fix it',
        harness: 'claude',
        worker_host: 'ci-runners.internal',
      }),
    })
    expect(step.code, step.stdout).toBe(0)
    expect(step.outputs.outcome).toBe('succeeded')
    expect(creates(api)[0]?.config).toMatchObject({
      harness: { type: 'claude' },
      worker_host: 'ci-runners.internal',
    })
  })

  it('empty sends neither: the service chooses', async () => {
    const api = await fakeApi()
    const step = await runStep({ inputs: inputsFor(api, { prompt: 'Fix it' }) })
    expect(step.code, step.stdout).toBe(0)
    expect(creates(api)[0]?.config).toBeUndefined()
  })

  it('a harness the service refuses is one clear line, and nothing runs', async () => {
    const api = await fakeApi()
    const step = await runStep({ inputs: inputsFor(api, { prompt: 'Fix it', harness: 'gemini' }) })
    expect(step.code).toBe(1)
    const errors = step.stdout.split('\n').filter((line) => line.startsWith('::error'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain(
      'The service refused the run (harness: gemini): POST /agent/run → 400 invalid_request: Unknown harness gemini',
    )
    expect(api.allRuns()).toHaveLength(0)
  })

  it('a worker host the team has not connected is one clear line', async () => {
    const api = await fakeApi({ workerHosts: ['ci-runners.internal'] })
    const step = await runStep({
      inputs: inputsFor(api, { prompt: 'Fix it', worker_host: 'elsewhere.internal' }),
    })
    expect(step.code).toBe(1)
    const errors = step.stdout.split('\n').filter((line) => line.startsWith('::error'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain(
      'The service refused the run (worker_host: elsewhere.internal): POST /agent/run → 400 invalid_request: No worker is connected as host elsewhere.internal',
    )
  })

  it('a refusal of the key or the credits keeps its own line and hint, harness or not', async () => {
    const api = await fakeApi()
    const step = await runStep({
      inputs: inputsFor(api, { prompt: 'Fix it', harness: 'claude', api_key: 'sk-wrong-key' }),
    })
    expect(step.code).toBe(1)
    const errors = step.stdout.split('\n').filter((line) => line.startsWith('::error'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('401')
    expect(errors[0]).toContain('Check the api_key input')
    expect(errors[0]).not.toContain('The service refused the run')
  })

  it('a bad value is refused before any request, naming the input', async () => {
    const api = await fakeApi()
    for (const [input, value] of [
      ['harness', 'copilot'],
      ['worker_host', 'two hosts'],
    ] as const) {
      const step = await runStep({ inputs: inputsFor(api, { prompt: 'Fix it', [input]: value }) })
      expect(step.code).toBe(1)
      expect(step.stdout).toContain(`Input "${input}" must`)
    }
    expect(api.requests).toHaveLength(0)
  })

  it('a task names its own harness, worker_host and output_schema, which win over the step’s', async () => {
    const api = await fakeApi({
      script: (create) =>
        create.prompt?.startsWith('List')
          ? answering({ outdated: ['left-pad'] })
          : answering({ tests: ['flaky'] }),
    })
    const tasks = JSON.stringify([
      {
        prompt: 'List the outdated dependencies',
        output_schema: '{"type": "object", "required": ["outdated"]}',
      },
      {
        prompt: 'Summarise the flaky tests',
        harness: 'claude',
        worker_host: 'ci-runners.internal',
      },
    ])
    const step = await runStep({
      inputs: inputsFor(api, {
        tasks,
        harness: 'oz',
        output_schema: '{"type": "object", "required": ["tests"]}',
      }),
    })
    expect(step.code, step.stdout).toBe(0)
    const byPrompt = new Map(creates(api).map((create) => [create.prompt?.split('\n')[0], create]))
    expect(byPrompt.get('List the outdated dependencies')?.config).toEqual({
      harness: { type: 'oz' },
    })
    expect(byPrompt.get('Summarise the flaky tests')?.config).toEqual({
      harness: { type: 'claude' },
      worker_host: 'ci-runners.internal',
    })
    // Each task's document validated against its own schema: no correction was asked for.
    for (const run of api.allRuns()) expect(api.followups(run.run_id)).toHaveLength(0)
    const runs = JSON.parse(step.outputs.runs ?? '[]') as { structured_output?: unknown }[]
    expect(runs.map((run) => run.structured_output)).toEqual([
      { outdated: ['left-pad'] },
      { tests: ['flaky'] },
    ])
  })
})
