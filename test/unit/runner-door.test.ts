/**
 * The Action's door reads the runner's inputs and state, and writes its outputs, state and
 * summary, through the process its entry hands in: never the global one.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runnerDoor, type RunnerProcess } from '../../src/runner.ts'

function hostWith(env: NodeJS.ProcessEnv): RunnerProcess {
  return {
    env,
    cwd: () => tmpdir(),
    on: () => process,
    off: () => process,
    exit: () => undefined as never,
  }
}

/** The values a file of key-value commands holds, as the runner reads them. */
function readCommands(file: string): Record<string, string> {
  const found: Record<string, string> = {}
  const pattern = /^(.+)<<(ghadelimiter_[\w-]+)\r?\n([\s\S]*?)\r?\n\2\r?$/gm
  for (const [, name = '', , value = ''] of readFileSync(file, 'utf8').matchAll(pattern)) {
    found[name] = value
  }
  return found
}

describe("the Action's door", () => {
  it('reads inputs and state, and writes outputs, state and the summary, at the paths the host names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-door-'))
    const [output, state, summary] = ['output', 'state', 'summary'].map((name) => join(dir, name))
    for (const file of [output, state, summary]) writeFileSync(file ?? '', '')
    const host = hostWith({
      INPUT_PROMPT: '  Review it  ',
      INPUT_RUN_ID: '',
      STATE_run_id: 'run_1',
      GITHUB_OUTPUT: output,
      GITHUB_STATE: state,
      GITHUB_STEP_SUMMARY: summary,
    })
    const { io, inputs } = runnerDoor(host)

    expect(inputs.get('prompt')).toBe('Review it')
    expect(inputs.get('run_id')).toBe('')
    expect(inputs.get('title')).toBe('')
    expect(io.getState('run_id')).toBe('run_1')
    io.setOutput('outcome', 'succeeded')
    io.setOutput('result', 'two\nlines')
    io.saveState('comment_id', '42')
    await io.appendSummary('### Done')

    expect(readCommands(output ?? '')).toEqual({ outcome: 'succeeded', result: 'two\nlines' })
    expect(readCommands(state ?? '')).toEqual({ comment_id: '42' })
    expect(readFileSync(summary ?? '', 'utf8')).toMatch(/^### Done\r?\n$/)
  })

  it('says where a summary cannot be written', async () => {
    const { io } = runnerDoor(hostWith({}))
    await expect(io.appendSummary('x')).rejects.toThrow(/GITHUB_STEP_SUMMARY/)
  })
})
