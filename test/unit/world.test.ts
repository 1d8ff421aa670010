import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readRunnerWorld } from '../../src/runner.ts'
import { workflowRunUrl } from '../../src/world.ts'

describe("readRunnerWorld: the runner's world, read once by a step", () => {
  const dir = mkdtempSync(join(tmpdir(), 'world-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const event = (name: string, text: string): string => {
    const path = join(dir, name)
    writeFileSync(path, text)
    return path
  }

  it('reads each variable the action uses, and the event payload from its file', () => {
    const world = readRunnerWorld(
      {
        GITHUB_REPOSITORY: 'octo-org/app',
        GITHUB_SERVER_URL: 'https://ghe.example.com',
        GITHUB_API_URL: 'https://ghe.example.com/api/v3',
        GITHUB_WORKFLOW: 'Agent review',
        GITHUB_RUN_ID: '42',
        GITHUB_RUN_ATTEMPT: '3',
        GITHUB_JOB: 'review',
        GITHUB_ACTION: 'agent',
        GITHUB_SHA: 'a'.repeat(40),
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: event('pr.json', '{"pull_request":{"number":7}}'),
        GITHUB_WORKSPACE: '/home/runner/work/app',
        RUNNER_TEMP: '/home/runner/temp',
      },
      // The runner's workspace wins over the directory the step started in.
      '/somewhere/else',
    )
    expect(world).toEqual({
      forge: 'github',
      project: 'octo-org/app',
      repository: 'octo-org/app',
      serverUrl: 'https://ghe.example.com',
      apiUrl: 'https://ghe.example.com/api/v3',
      workflow: 'Agent review',
      runId: '42',
      runAttempt: '3',
      job: 'review',
      action: 'agent',
      sha: 'a'.repeat(40),
      eventName: 'pull_request',
      event: { pull_request: { number: 7 } },
      workspace: '/home/runner/work/app',
      runnerTemp: '/home/runner/temp',
    })
  })

  it('outside a workflow: nothing of GitHub, the working directory, the system temp', () => {
    const world = readRunnerWorld({}, '/home/someone/checkout')
    expect(world.repository).toBeUndefined()
    expect(world.event).toBeUndefined()
    expect(world.workspace).toBe('/home/someone/checkout')
    expect(world.runnerTemp).toBe(tmpdir())
  })

  it('has no payload for an event file that is missing, not JSON, or not an object', () => {
    for (const path of [join(dir, 'missing.json'), event('bad.json', '{'), event('n.json', '7')]) {
      expect(readRunnerWorld({ GITHUB_EVENT_PATH: path }, dir).event).toBeUndefined()
    }
  })
})

describe('workflowRunUrl', () => {
  it('links the run attempt on the configured server', () => {
    expect(
      workflowRunUrl({
        serverUrl: 'https://ghe.example.com/',
        repository: 'o/r',
        runId: '42',
        runAttempt: '3',
      }),
    ).toBe('https://ghe.example.com/o/r/actions/runs/42/attempts/3')
    const run = { serverUrl: undefined, repository: 'o/r', runAttempt: undefined }
    expect(workflowRunUrl({ ...run, runId: '42' })).toBe('https://github.com/o/r/actions/runs/42')
    expect(workflowRunUrl({ ...run, runId: '4)2' })).toBeUndefined()
  })
})
