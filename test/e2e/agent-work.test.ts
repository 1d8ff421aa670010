/**
 * Issue 10 through the bundle against the fake: what the agent did comes back
 * into the workflow. Its answer (result, summary), its files (artifacts, with
 * real downloads from the fake's second origin, which never sees the key),
 * its cost (max_credits cancelling), BLOCKED per on_blocked, the session link
 * while the run works, and a conversation the service does not have (404) or
 * cannot give (422).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { beforeAll, expect } from 'vitest'
import { loadContract, type WireContract } from '../contract/schema.ts'
import { conversationStep, type RunScript } from '../fake-api/server.ts'
import { errorAnnotations, runPostStep, runStep, startStep, type StepResult } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-e2e-agent-work-71b3'
const { fakeApi, inputsFor } = e2eServers(KEY, { prompt: 'Review this pull request' })
let contract: WireContract

beforeAll(async () => {
  contract = await loadContract()
})

const ANSWER = '## Verdict\n\n**Approve.** The change is sound; see `review.json`.'

const file = (uid: string, filepath: string) => ({
  artifact_type: 'FILE' as const,
  created_at: '2026-01-01T00:00:00Z',
  data: {
    artifact_uid: uid,
    filepath,
    filename: filepath.split('/').pop() ?? filepath,
    mime_type: 'application/json',
  },
})

function reviewScript(artifacts: ReturnType<typeof file>[]): RunScript {
  return [
    { state: 'QUEUED', afterMs: 0 },
    {
      state: 'INPROGRESS',
      afterMs: 100,
      conversation: [
        conversationStep('step_1', [
          { role: 'user', content: [{ type: 'text', text: 'Review this pull request' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Reading the diff.' },
              {
                type: 'action',
                id: 'act_1',
                category: 'files',
                name: 'read_file',
                input: { path: 'SECRET-INPUT' },
              },
            ],
          },
        ]),
      ],
    },
    {
      // Once the step has seen it at work, however slowly it started on a loaded machine.
      state: 'SUCCEEDED',
      afterMs: 300,
      afterSeen: true,
      patch: { artifacts, session_link: 'https://app.example.test/sessions/s1' },
      conversation: [
        conversationStep('step_2', [
          { role: 'assistant', content: [{ type: 'text', text: ANSWER }] },
        ]),
      ],
    },
  ]
}

/** Every file and folder under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort() : []
}

function warnings(result: StepResult): string[] {
  return result.stdout.split('\n').filter((line) => line.startsWith('::warning'))
}

describe("the agent's work, through the bundle", () => {
  it('sets result, lists artifacts, downloads a matching file, and never sends the key to storage', async () => {
    const api = await fakeApi({
      script: () =>
        reviewScript([file('art_review', 'review.json'), file('art_notes', 'notes/extra.md')]),
    })
    api.setArtifactContent('art_review', '{"verdict":"approve"}\n')
    const result = await runStep({
      inputs: inputsFor(api, {
        download_artifacts: 'review.json',
        artifacts_dir: 'agent-output',
        show_progress: 'true',
      }),
    })

    expect(result.code).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    expect(result.outputs.result).toBe(ANSWER)
    const listed = JSON.parse(result.outputs.artifacts ?? '[]') as Array<Record<string, string>>
    expect(listed.map((artifact) => [artifact.type, artifact.name])).toEqual([
      ['FILE', 'review.json'],
      ['FILE', 'extra.md'],
    ])
    const path = listed[0]?.path ?? ''
    expect(path.endsWith(join('agent-output', 'review.json'))).toBe(true)
    expect(readFileSync(path, 'utf8')).toBe('{"verdict":"approve"}\n')
    expect(tree(dirname(path))).toEqual(['review.json'])
    expect(listed[1]?.path).toBeUndefined()

    // The signed URL's origin was asked, and never with the key.
    expect(api.downloads.requests.length).toBeGreaterThan(0)
    expect(api.downloads.requests.every((request) => request.authorization === undefined)).toBe(
      true,
    )
    expect(JSON.stringify(api.downloads.requests.map((request) => request.headers))).not.toContain(
      KEY,
    )

    // The summary shows the answer as Markdown, the files and the cost.
    expect(result.summary).toContain("<details open><summary>The agent's answer</summary>")
    expect(result.summary).toContain('**Approve.**')
    expect(result.summary).toContain('review.json')
    expect(Number(result.outputs.credits)).toBeGreaterThan(0)
    // show_progress: the action by category and name, never its input.
    expect(result.stdout).toContain('Agent action: files read_file')
    expect(result.stdout).not.toContain('SECRET-INPUT')
    // Every request, the conversation and artifact reads included, conforms to the schema.
    expect(contract.violations(api.exchanges())).toEqual([])
  })

  it('refuses a traversal with a warning and writes nothing, and the run still succeeds', async () => {
    const api = await fakeApi({
      script: () =>
        reviewScript([file('art_up', '../../escaped.json'), file('art_abs', '/tmp/absolute.json')]),
    })
    const result = await runStep({
      inputs: inputsFor(api, { download_artifacts: '**', artifacts_dir: 'agent-output' }),
    })
    expect(result.code).toBe(0)
    expect(result.outputs.outcome).toBe('succeeded')
    const refusals = warnings(result).filter((line) => line.includes('Not downloading artifact'))
    expect(refusals).toHaveLength(2)
    expect(refusals.join('\n')).toContain('climbs out of the directory')
    expect(refusals.join('\n')).toContain('absolute path')
    expect(api.downloads.requests).toEqual([])
    const listed = JSON.parse(result.outputs.artifacts ?? '[]') as Array<Record<string, string>>
    expect(listed.every((artifact) => artifact.path === undefined)).toBe(true)
  })

  it('cancels a run past max_credits and fails with outcome over_budget, naming the cap', async () => {
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 50 },
      ],
    })
    const result = await runStep({ inputs: inputsFor(api, { max_credits: '0.3', timeout: '30s' }) })
    expect(result.code).toBe(1)
    expect(result.outputs.outcome).toBe('over_budget')
    const runId = result.outputs.run_id ?? ''
    expect(api.requestsTo('POST', `/agent/runs/${runId}/cancel`)).toHaveLength(1)
    expect(api.run(runId)?.state).toBe('CANCELLED')
    expect(errorAnnotations(result).join('\n')).toMatch(
      /more than the max_credits cap of 0\.3 credits/,
    )
    expect(Number(result.outputs.credits)).toBeGreaterThan(0.3)
  })

  describe('an agent that orchestrates: one run with its children', () => {
    const usage = (credits: number, usd: number) => ({
      request_usage: { inference_cost: credits, inference_cost_usd: usd },
    })
    const child =
      (credits: number, state = 'SUCCEEDED') =>
      (childId: string) => [
        {
          state,
          afterMs: 0,
          patch: {
            ...usage(credits, credits / 10),
            session_link: `https://app.example.test/s/${childId}`,
          },
        },
      ]

    it("counts the tree's spend, each run once, and lists the runs the agent started with their sessions", async () => {
      const api = await fakeApi({
        script: () => [
          { state: 'INPROGRESS', afterMs: 0, spawn: [{ script: child(2) }, { script: child(3) }] },
          { state: 'SUCCEEDED', afterMs: 200, patch: usage(1, 0.1) },
        ],
      })
      const result = await runStep({ inputs: inputsFor(api) })

      expect(result.code, result.stdout).toBe(0)
      const [, ...children] = api.tree(result.outputs.run_id ?? '')
      expect(children).toHaveLength(2)
      expect(result.outputs).toMatchObject({ credits: '6', cost_usd: '0.6' })
      expect(result.summary).toContain('<details><summary>The agent started 2 runs</summary>')
      for (const { run_id: childId } of children) {
        expect(result.summary).toContain(`[Session](https://app.example.test/s/${childId})`)
      }
    })

    it('max_credits counts the children: the tree past the cap is cancelled, every run of it', async () => {
      const api = await fakeApi({
        script: () => [
          {
            state: 'INPROGRESS',
            afterMs: 0,
            patch: usage(1, 0.1),
            spawn: [{ script: child(4, 'INPROGRESS') }, { script: child(4, 'INPROGRESS') }],
          },
        ],
      })
      const result = await runStep({ inputs: inputsFor(api, { max_credits: '5', timeout: '30s' }) })

      expect(result.code).toBe(1)
      expect(result.outputs.outcome).toBe('over_budget')
      const runs = api.tree(result.outputs.run_id ?? '')
      expect(runs.map((run) => run.state)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED'])
      expect(result.outputs.credits).toBe('9')
    })
  })

  describe('BLOCKED, per on_blocked', () => {
    const blocked: RunScript = [
      { state: 'QUEUED', afterMs: 0 },
      {
        state: 'INPROGRESS',
        afterMs: 50,
        patch: { session_link: 'https://app.example.test/sessions/b1' },
        conversation: [
          conversationStep('step_1', [
            {
              role: 'assistant',
              content: [{ type: 'text', text: 'Which database should I migrate?' }],
            },
          ]),
        ],
      },
      { state: 'BLOCKED', afterMs: 200 },
    ]

    it('fail: ends at once, failing, and hands the run over (no cancel, not even in the post step)', async () => {
      const api = await fakeApi({ script: () => blocked })
      const inputs = inputsFor(api, { on_blocked: 'fail' })
      const main = await runStep({ inputs })
      expect(main.code).toBe(1)
      expect(main.outputs.outcome).toBe('blocked')
      expect(main.outputs.state).toBe('BLOCKED')
      expect(main.stdout).toContain('It waits for: Which database should I migrate?')
      expect(main.stdout).toContain('answer in the session (https://app.example.test/sessions/b1)')
      expect(main.summary).toContain('Which database should I migrate?')
      const runId = main.outputs.run_id ?? ''
      const post = await runPostStep(main, { inputs })
      expect(post.code).toBe(0)
      expect(api.requestsTo('POST', `/agent/runs/${runId}/cancel`)).toHaveLength(0)
      expect(api.run(runId)?.state).toBe('BLOCKED')
    })

    it('pass: ends at once, passing, with state BLOCKED', async () => {
      const api = await fakeApi({ script: () => blocked })
      const main = await runStep({ inputs: inputsFor(api, { on_blocked: 'pass' }) })
      expect(main.code).toBe(0)
      expect(main.outputs.outcome).toBe('blocked')
      expect(main.outputs.state).toBe('BLOCKED')
      expect(main.outputs.result).toBe('Which database should I migrate?')
      expect(
        api.requestsTo('POST', `/agent/runs/${main.outputs.run_id ?? ''}/cancel`),
      ).toHaveLength(0)
    })

    it('wait: says what it waits for, then waits until the timeout', async () => {
      const api = await fakeApi({ script: () => blocked })
      // 6 s: a step slow to start on a loaded machine still sees BLOCKED before its timeout.
      const main = await runStep({ inputs: inputsFor(api, { on_blocked: 'wait', timeout: '6s' }) })
      expect(main.code).toBe(1)
      expect(main.outputs.outcome).toBe('timed_out')
      expect(main.stdout).toContain('It waits for: Which database should I migrate?')
      expect(main.stdout).toContain('This step waits on, until its timeout (on_blocked: wait).')
    })
  })

  it('logs the session link while the run is still in progress', async () => {
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        {
          state: 'INPROGRESS',
          afterMs: 100,
          patch: { session_link: 'https://app.example.test/sessions/early' },
        },
        { state: 'SUCCEEDED', afterMs: 60_000 },
      ],
    })
    const step = startStep({ inputs: inputsFor(api) })
    await step.printed(/Session: https:\/\/app\.example\.test\/sessions\/early/)
    const [run] = api.allRuns()
    expect(run?.state).toBe('INPROGRESS')
    step.child.kill('SIGTERM')
    const result = await step.result
    expect(result.outputs.session_link).toBe('https://app.example.test/sessions/early')
  })

  it('passes with outcome superseded when a newer run with the same name replaces the run', async () => {
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 50 },
      ],
    })
    const older = startStep({ inputs: inputsFor(api, { name: 'pr-7-review', timeout: '30s' }) })
    await api.waitForRequest('GET', /\/agent\/runs\/run_/)
    const newer = await runStep({
      inputs: inputsFor(api, { name: 'pr-7-review', cancel_previous: 'true', wait: 'false' }),
    })
    const replaced = await older.result
    expect(replaced.code).toBe(0)
    expect(replaced.outputs.outcome).toBe('superseded')
    expect(replaced.outputs.state).toBe('CANCELLED')
    expect(replaced.stdout).toMatch(
      new RegExp(`::notice[^\\n]*superseded by run ${newer.outputs.run_id ?? 'none'}`),
    )
  })

  it.each([
    [
      '404',
      [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'SUCCEEDED', afterMs: 200 },
      ] as RunScript,
      /no conversation to read \(404\)/,
    ],
    [
      '422',
      [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'SUCCEEDED', afterMs: 200, conversationUnsupported: true },
      ] as RunScript,
      /normalized form yet \(422\)/,
    ],
  ])(
    'a %s conversation: one info line, result empty, the outcome unchanged',
    async (_status, script, line) => {
      const api = await fakeApi({ script: () => script })
      const result = await runStep({ inputs: inputsFor(api) })
      expect(result.code).toBe(0)
      expect(result.outputs.outcome).toBe('succeeded')
      expect(result.outputs.result ?? '').toBe('')
      expect(result.stdout.split('\n').filter((text) => line.test(text))).toHaveLength(1)
      expect(warnings(result)).toEqual([])
    },
  )
})
