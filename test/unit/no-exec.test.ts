/**
 * vendor/no-exec, installed as `@actions/exec`: importing it, as @actions/core's platform.js
 * does at its top, loads nothing (no child_process); anything that reaches for it gets an
 * error that says why it is not there. Each case runs in a fresh Node, as a step would.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../e2e/harness.ts'

/** Runs an ES module in a fresh Node at the repository's root; returns what it printed. */
function inFreshNode(source: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 15_000,
  }).trim()
}

describe('the @actions/exec stand-in', () => {
  it("@actions/core's import resolves, and loads no child_process", () => {
    const printed = inFreshNode(`
      const core = await import('@actions/core')
      const { exec, getExecOutput } = await import('@actions/exec')
      console.log(typeof core.platform.getDetails, typeof exec, typeof getExecOutput)
      console.log(process.moduleLoadList.some((name) => name.endsWith(' child_process')))
    `)
    expect(printed.split('\n')).toEqual(['function function function', 'false'])
  })

  it('exec() and getExecOutput() reject, naming the stand-in', () => {
    const printed = inFreshNode(`
      const { exec, getExecOutput } = await import('@actions/exec')
      await exec('true').catch((error) => console.log(error.message))
      await getExecOutput('true').catch((error) => console.log(error.message))
    `)
    expect(printed.split('\n')).toEqual([
      expect.stringMatching(/^@actions\/exec's exec was called, but .*vendor\/no-exec/),
      expect.stringMatching(/^@actions\/exec's getExecOutput was called, but .*vendor\/no-exec/),
    ])
  })
})
