import { describe, expect, it } from 'vitest'
import type { ArtifactEntry } from '../../src/agent/artifacts.ts'
import { parseConversation } from '../../src/agent/conversation.ts'
import { compileOutputSchema } from '../../src/agent/structured-output.ts'
import type { RunItem } from '../../src/api/types.ts'
import { checkDocument, type OutputCheckDeps } from '../../src/run/output.ts'

const schema = await compileOutputSchema({
  input: 'output_schema',
  text: '{"type":"object","required":["ok"],"properties":{"ok":{"const":true}}}',
})

const succeeded = (run: Partial<RunItem> = {}): RunItem => ({
  run_id: 'run_1',
  state: 'SUCCEEDED',
  ...run,
})

const saying = (text: string) =>
  parseConversation({
    steps: [{ id: 's', messages: [{ role: 'assistant', content: [{ type: 'text', text }] }] }],
  })

/** Deps whose agent's final message is `answer`. */
function deps(answer: string, overrides: Partial<OutputCheckDeps> = {}) {
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
    now: () => 0,
    log,
    readConversation: () => Promise.resolve(saying(answer)),
    readFile: () => Promise.reject(new Error('no file here')),
    ...overrides,
  }
  return { check, lines }
}

const block = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``

/** One look at a run's document; the lifecycle asks for each correction it says is due. */
describe('checkDocument', () => {
  it('takes a document that validates', async () => {
    const { check } = deps(block({ ok: true }))
    expect(await checkDocument(succeeded(), 0, check)).toMatchObject({
      kind: 'valid',
      document: { ok: true },
    })
  })

  it('asks for a correction that names the errors, while one is left', async () => {
    const { check, lines } = deps(block({ ok: false }))
    const checked = await checkDocument(succeeded(), 1, check)
    expect(checked).toMatchObject({ kind: 'correct', remainingMs: 60_000 })
    expect(checked.kind === 'correct' && checked.message).toContain(
      '- /ok must be equal to constant',
    )
    expect(lines.at(-1)).toContain('(correction 2 of 2)')
  })

  it('gives up after output_retries corrections: invalid, with the errors', async () => {
    const { check, lines } = deps(block({}), { retries: 1 })
    expect(await checkDocument(succeeded(), 1, check)).toMatchObject({
      kind: 'invalid',
      invalidOutput: { errors: ["/ must have required property 'ok'"], corrections: 1 },
    })
    expect(lines.at(-1)).toMatch(/No correction is left \(output_retries: 1\)\.$/)
  })

  it('asks for nothing once the timeout is spent', async () => {
    const { check, lines } = deps(block({}), { deadline: 0 })
    expect(await checkDocument(succeeded(), 0, check)).toMatchObject({
      kind: 'invalid',
      invalidOutput: { corrections: 0 },
    })
    expect(lines.at(-1)).toContain('No time is left within the timeout input')
  })

  it('reads the newest result.json when the message has no block, and warns when it cannot', async () => {
    const file = (uid: string, filepath: string) => ({
      artifact_type: 'FILE',
      data: { artifact_uid: uid, filepath, filename: filepath.split('/').pop() },
    })
    const read: string[] = []
    const { check } = deps('Uploaded.', {
      readFile: (artifact: ArtifactEntry) => {
        read.push(artifact.artifactUid ?? '')
        return Promise.resolve('{"ok":true}')
      },
    })
    const run = succeeded({
      artifacts: [
        file('old', 'result.json'),
        file('x', 'other.json'),
        file('new', 'out/result.json'),
      ],
    } as Partial<RunItem>)
    expect(await checkDocument(run, 0, check)).toMatchObject({ document: { ok: true } })
    expect(read).toEqual(['new'])

    const failing = deps('Uploaded.', { retries: 0 })
    const broken = await checkDocument(run, 0, failing.check)
    expect(failing.lines).toContain("W Could not read the agent's result.json: no file here")
    expect(broken).toMatchObject({ kind: 'invalid', invalidOutput: { corrections: 0 } })
  })
})
