/**
 * output_schema end to end: the action against the fake API, whose runs answer with a document
 * that validates, one that does not and then does after a follow-up, and one that never does.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { conversationStep, type FakeAgentApi, type RunScript } from '../fake-api/server.ts'
import { runStep, startStep } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-structured-e2e'
const { fakeApi, inputsFor } = e2eServers(KEY)

const SCHEMA = `
type: object
required: [risk, files]
additionalProperties: false
properties:
  risk: { enum: [low, medium, high] }
  files: { type: array, items: { type: string } }
`

/**
 * A pass that ends SUCCEEDED with `answer` as the agent's final message, and these artifacts.
 * It works long enough for the step to see it start again after a follow-up.
 */
function pass(answer: string, artifacts: RunScript[number]['patch'] = {}): RunScript {
  return [
    { state: 'INPROGRESS', afterMs: 0 },
    {
      state: 'SUCCEEDED',
      afterMs: 600,
      patch: artifacts,
      conversation: [
        conversationStep(`step_${answer.length}`, [
          { role: 'assistant', content: [{ type: 'text', text: answer }] },
        ]),
      ],
    },
  ]
}

const json = (value: unknown) =>
  `Here is the result.\n\n\`\`\`json\n${JSON.stringify(value)}\n\`\`\``

const resultFile = (uid: string) => ({
  artifacts: [
    {
      artifact_type: 'FILE' as const,
      created_at: '2026-01-01T00:00:00Z',
      data: {
        artifact_uid: uid,
        filepath: 'out/result.json',
        filename: 'result.json',
        mime_type: 'application/json',
      },
    },
  ],
})

describe('output_schema', () => {
  it('asks for the document, validates it and sets structured_output', async () => {
    const api = await fakeApi({ script: () => pass(json({ risk: 'low', files: ['a.ts'] })) })
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Assess the risk', output_schema: SCHEMA }),
    })

    expect(result.code).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    expect(result.outputs.structured_output).toBe('{"risk":"low","files":["a.ts"]}')
    const created = api.requests.find((request) => request.method === 'POST')
    const prompt = (created?.json as { prompt: string }).prompt
    expect(prompt).toMatch(/^Assess the risk\n\nWhen you are done, end your final message/)
    expect(prompt).toContain('"required":["risk","files"]')
    expect(api.requests.filter((request) => request.path.endsWith('/followups'))).toHaveLength(0)
  })

  it('sends the errors back as a follow-up, then takes the corrected result.json', async () => {
    const api = await fakeApi({
      script: () => pass(json({ risk: 'severe', files: 'a.ts' })),
      followupScript: () => pass('I uploaded the corrected result.', resultFile('art_result')),
    })
    api.setArtifactContent('art_result', '{"risk":"high","files":["a.ts","b.ts"]}')
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Assess the risk', output_schema: SCHEMA }),
    })

    expect(result.code).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    expect(result.outputs.structured_output).toBe('{"risk":"high","files":["a.ts","b.ts"]}')
    const runId = result.outputs.run_id ?? ''
    const followups = api.followups(runId)
    expect(followups).toHaveLength(1)
    expect(followups[0]).toContain('/risk must be equal to one of the allowed values')
    expect(followups[0]).toContain('/files must be array')
    expect(result.stdout).toContain('correction 1 of 2')
  })

  it('fails with invalid_output when no correction validates', async () => {
    const api = await fakeApi({
      script: () => pass('No JSON here.'),
      followupScript: ({ pass: n }) => pass(json({ risk: `still wrong ${n}`, files: [] })),
    })
    const result = await runStep({
      inputs: inputsFor(api, {
        prompt: 'Assess the risk',
        output_schema: SCHEMA,
        output_retries: '1',
      }),
    })

    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('invalid_output')
    expect(result.outputs.structured_output).toBeUndefined()
    expect(api.followups(result.outputs.run_id ?? '')).toHaveLength(1)
    expect(result.stdout).toMatch(
      /::error::Run run_\S+: the agent's result did not validate against output_schema after 1 correction: \/risk must be equal to one of the allowed values/,
    )
    expect(result.summary).toContain('invalid_output')
  })

  it('checks an ordinary pattern against hostile text in linear time, within the timeout', async () => {
    // `^(\w+\s?)*$` backtracks exponentially on a word and a mark: on a backtracking engine
    // 41 characters froze the step past its timeout.
    const words = {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', pattern: '^(\\w+\\s?)*$' } },
    }
    const api = await fakeApi({
      script: () => pass(json({ name: `${'a'.repeat(4_000)}!` })),
      followupScript: () => pass(json({ name: 'plain words' })),
    })
    const result = await runStep({
      inputs: inputsFor(api, {
        prompt: 'Name it',
        output_schema: JSON.stringify(words),
        timeout: '20s',
      }),
    })

    expect(result.outputs.outcome).toBe('succeeded')
    expect(result.outputs.structured_output).toBe('{"name":"plain words"}')
    expect(api.followups(result.outputs.run_id ?? '')[0]).toContain(
      '/name must match pattern "^(\\w+\\s?)*$"',
    )
  })

  it('takes a document too deep to validate as invalid, and asks for another', async () => {
    const tree = {
      $defs: { node: { type: 'array', items: { $ref: '#/$defs/node' } } },
      $ref: '#/$defs/node',
    }
    const api = await fakeApi({
      script: () => pass(`\`\`\`json\n${'['.repeat(10_000)}${']'.repeat(10_000)}\n\`\`\``),
      followupScript: () => pass(json([[], [[]]])),
    })
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Grow a tree', output_schema: JSON.stringify(tree) }),
    })

    expect(result.code).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    expect(result.outputs.structured_output).toBe('[[],[[]]]')
    expect(api.followups(result.outputs.run_id ?? '')[0]).toContain(
      '/ is nested more than 256 levels deep',
    )
  })

  it('refuses a schema file outside the workspace before any request', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Assess', output_schema: '/etc/passwd' }),
    })

    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /::error::Input "output_schema" must name a file in the workspace \(.+\); "\/etc\/passwd" is outside it\./,
    )
    expect(api.requests).toHaveLength(0)
  })

  it('refuses a schema that is not one before any request', async () => {
    const api = await fakeApi()
    const result = await runStep({
      inputs: inputsFor(api, { prompt: 'Assess', output_schema: '{"type": "strng"}' }),
    })

    expect(result.code).toBe(1)
    expect(result.stdout).toContain(
      '::error::Input "output_schema" is not a valid JSON Schema (draft 2020-12)',
    )
    expect(api.requests).toHaveLength(0)
  })
})

describe('output_schema with tasks (v1.3, one engine)', () => {
  it("validates and repairs each task's result on its own; one that never validates fails the set", async () => {
    // The prompt says how a task's run answers: valid at once, valid after one correction, never.
    // The hopeless task's correction fails the set, which then stops the runs still going: it
    // ends only once the step has found the fixable task's corrected result valid (under load,
    // it ended first and the fixable task was cancelled).
    let fixed = false
    const api: FakeAgentApi = await fakeApi({
      script: ({ prompt }) => {
        if ((prompt ?? '').startsWith('good')) return pass(json({ risk: 'low', files: ['a.ts'] }))
        return pass(json({ risk: 'severe', files: [] }))
      },
      followupScript: ({ runId }) => {
        if ((api.run(runId)?.prompt ?? '').startsWith('fixable')) {
          return pass(json({ risk: 'medium', files: ['b.ts'] }))
        }
        const [working, ended] = pass(json({ risk: 'still severe', files: [] }))
        return [working, { ...ended, until: () => fixed }] as RunScript
      },
    })

    const step = startStep({
      inputs: inputsFor(api, {
        tasks: '["good: package a", "fixable: package b", "hopeless: package c"]',
        output_schema: SCHEMA,
        output_retries: '1',
      }),
    })
    // Should the line never come, the pass ends at the wait's bound, and the checks say why.
    const open = () => void (fixed = true)
    void step
      .printed(/Task 2 \(fixable: package b\): The agent's result validates/)
      .then(open, open)
    const result = await step.result

    expect(result.code, result.stdout).toBe(1)
    expect(result.outputs.outcome).toBe('failed')
    const runs = JSON.parse(result.outputs.runs ?? '[]') as Array<Record<string, unknown>>
    expect(runs.map((run) => [run.outcome, run.structured_output])).toEqual([
      ['succeeded', { risk: 'low', files: ['a.ts'] }],
      ['succeeded', { risk: 'medium', files: ['b.ts'] }],
      ['invalid_output', undefined],
    ])
    // Each run asked for the document; only the ones that did not validate were asked again.
    for (const created of api.requests.filter((request) => request.method === 'POST')) {
      if (created.path.endsWith('/followups')) continue
      expect((created.json as { prompt: string }).prompt).toContain('"required":["risk","files"]')
    }
    expect(runs.map((run) => api.followups(String(run.run_id)).length)).toEqual([0, 1, 1])
    expect(result.stdout).toMatch(
      /Task 2 \(fixable: package b\): The agent's result does not validate/,
    )
    // The set's error names the fields that failed, as one run's does.
    expect(result.stdout).toMatch(
      /::error::The set failed: [^\n]*task 3 \(hopeless: package c\) invalid result \(the agent's result did not validate against output_schema after 1 correction: \/risk must be equal to one of the allowed values/,
    )
  })
})
