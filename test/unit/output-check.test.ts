import { describe, expect, it } from 'vitest'
import type { ArtifactEntry } from '../../src/agent/artifacts.ts'
import { parseConversation } from '../../src/agent/conversation.ts'
import { compileOutputSchema } from '../../src/agent/structured-output.ts'
import type { RunItem } from '../../src/api/types.ts'
import type { StepOutcome } from '../../src/model/step.ts'
import { awaitValidOutput, type OutputCheckDeps } from '../../src/run/output.ts'

const schema = await compileOutputSchema({
  input: 'output_schema',
  text: '{"type":"object","required":["ok"],"properties":{"ok":{"const":true}}}',
})

const finished = (run: Partial<RunItem> = {}): StepOutcome => ({
  kind: 'finished',
  run: { run_id: 'run_1', state: 'SUCCEEDED', ...run },
  elapsedMs: 1,
})

const saying = (text: string) =>
  parseConversation({
    steps: [{ id: 's', messages: [{ role: 'assistant', content: [{ type: 'text', text }] }] }],
  })

/** Deps whose agent answers each pass with the next of `answers`; the clock moves 10 s a pass. */
function deps(answers: string[], overrides: Partial<OutputCheckDeps> = {}) {
  let now = 0
  let pass = 0
  const followups: string[] = []
  const lines: string[] = []
  const log = {
    info: (m: string) => lines.push(m),
    warning: (m: string) => lines.push(`W ${m}`),
    debug: () => undefined,
  }
  const check: OutputCheckDeps = {
    schema,
    retries: 2,
    deadline: 60_000,
    now: () => now,
    log,
    readConversation: () => Promise.resolve(saying(answers[pass] ?? '')),
    readFile: () => Promise.reject(new Error('no file here')),
    followUp: (_runId, message) => {
      followups.push(message)
      pass += 1
      now += 10_000
      return Promise.resolve(finished())
    },
    ...overrides,
  }
  return { check, followups, lines }
}

const block = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``

describe('awaitValidOutput', () => {
  it('takes a document that validates at once, without a follow-up', async () => {
    const { check, followups } = deps([block({ ok: true })])
    const checked = await awaitValidOutput(finished(), check)
    expect(checked.document).toEqual({ ok: true })
    expect(checked.outcome).toEqual(finished())
    expect(followups).toEqual([])
  })

  it('asks for corrections until one validates', async () => {
    const { check, followups } = deps(['none', block({ ok: false }), block({ ok: true })])
    const checked = await awaitValidOutput(finished(), check)
    expect(checked.document).toEqual({ ok: true })
    expect(followups).toHaveLength(2)
    expect(followups[1]).toContain('- /ok must be equal to constant')
  })

  it('gives up after output_retries corrections: invalid_output, with the errors', async () => {
    const { check, followups, lines } = deps([block({}), block({}), block({})], { retries: 1 })
    const checked = await awaitValidOutput(finished(), check)
    expect(followups).toHaveLength(1)
    expect(checked.document).toBeUndefined()
    expect(checked.outcome).toMatchObject({
      invalidOutput: { errors: ["/ must have required property 'ok'"], corrections: 1 },
    })
    expect(lines.at(-1)).toMatch(/No correction is left \(output_retries: 1\)\.$/)
  })

  it('asks for nothing once the timeout is spent', async () => {
    const { check, followups, lines } = deps([block({})], { deadline: 0 })
    const checked = await awaitValidOutput(finished(), check)
    expect(followups).toEqual([])
    expect(checked.outcome).toMatchObject({ invalidOutput: { corrections: 0 } })
    expect(lines.at(-1)).toContain('No time is left within the timeout input')
  })

  it('leaves a run that did not succeed, or a correction pass that failed, as it ended', async () => {
    const failed = finished({ state: 'FAILED' })
    expect((await awaitValidOutput(failed, deps([]).check)).outcome).toBe(failed)
    const timedOut = { ...finished(), kind: 'interrupted' } as StepOutcome
    const { check } = deps(['none'], { followUp: () => Promise.resolve(timedOut) })
    expect((await awaitValidOutput(finished(), check)).outcome).toBe(timedOut)
  })

  it('reads the newest result.json when the message has no block, and warns when it cannot', async () => {
    const file = (uid: string, filepath: string) => ({
      artifact_type: 'FILE',
      data: { artifact_uid: uid, filepath, filename: filepath.split('/').pop() },
    })
    const read: string[] = []
    const { check } = deps(['Uploaded.'], {
      readFile: (artifact: ArtifactEntry) => {
        read.push(artifact.artifactUid ?? '')
        return Promise.resolve('{"ok":true}')
      },
    })
    const run = {
      artifacts: [
        file('old', 'result.json'),
        file('x', 'other.json'),
        file('new', 'out/result.json'),
      ],
    }
    const checked = await awaitValidOutput(finished(run as Partial<RunItem>), check)
    expect(read).toEqual(['new'])
    expect(checked.document).toEqual({ ok: true })

    const failing = deps(['Uploaded.'], { retries: 0 })
    const broken = await awaitValidOutput(finished(run as Partial<RunItem>), failing.check)
    expect(failing.lines).toContain("W Could not read the agent's result.json: no file here")
    expect(broken.outcome).toMatchObject({ invalidOutput: { corrections: 0 } })
  })
})
