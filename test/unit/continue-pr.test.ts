import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import type { RunHome } from '../../src/model/home.ts'
import { changePath, namesChange, runThatMade } from '../../src/run/continue-pr.ts'
import { readContinueFrom, surfaceConfig } from '../../src/inputs/surface.ts'

const home: RunHome = { forge: 'github', project: 'Octo-Org/App', thread: 7, change: 7 }

const made = (runId: string, url: string, extra: Partial<RunItem> = {}): RunItem => ({
  run_id: runId,
  state: 'SUCCEEDED',
  created_at: '2026-11-27T10:00:00Z',
  metadata: { gh_repository: 'Octo-Org/App', gh_forge: 'github' },
  artifacts: [
    {
      artifact_type: 'PULL_REQUEST',
      created_at: '2026-11-27T10:05:00Z',
      data: { url, branch: 'b' },
    },
  ],
  ...extra,
})

describe('continue_from: the run that made the pull request', () => {
  it('names the pull or merge request by its path, in lower case, on any host', () => {
    expect(changePath(home)).toBe('/octo-org/app/pull/7')
    expect(changePath({ ...home, forge: 'gitlab', project: 'g/app' })).toBe(
      '/g/app/-/merge_requests/7',
    )
    expect(changePath({ ...home, change: undefined })).toBeUndefined()
    expect(changePath({ ...home, forge: undefined })).toBeUndefined()
    const path = '/octo-org/app/pull/7'
    expect(namesChange('https://github.com/octo-org/app/pull/7', path)).toBe(true)
    expect(namesChange('https://ghe.example.com/octo-org/app/pull/7/', path)).toBe(true)
    expect(namesChange('https://github.com/octo-org/app/pull/77', path)).toBe(false)
    expect(namesChange('https://github.com/other/octo-org/app/pull/70', path)).toBe(false)
    expect(namesChange('not a url', path)).toBe(false)
    expect(namesChange(7, path)).toBe(false)
  })

  it('picks the newest run of this project and forge whose PULL_REQUEST artifact names it', () => {
    const url = 'https://github.com/octo-org/app/pull/7'
    const older = made('r1', url)
    const newer = made('r2', url, { created_at: '2026-11-27T11:00:00Z' })
    const otherPr = made('r3', 'https://github.com/octo-org/app/pull/8', {
      created_at: '2026-11-27T12:00:00Z',
    })
    const otherProject = made('r4', url, {
      created_at: '2026-11-27T13:00:00Z',
      metadata: { gh_repository: 'someone/else' },
    })
    const gitlab = made('r5', url, {
      created_at: '2026-11-27T14:00:00Z',
      metadata: { gh_repository: 'Octo-Org/App', gh_forge: 'gitlab' },
    })
    const runs = [older, newer, otherPr, otherProject, gitlab]
    expect(runThatMade(runs, home, '/octo-org/app/pull/7')?.run_id).toBe('r2')
    expect(runThatMade([otherPr], home, '/octo-org/app/pull/7')).toBeUndefined()
  })
})

describe('harness, worker_host and continue_from inputs', () => {
  it('sends what is given, and nothing for empty', () => {
    expect(surfaceConfig({ harness: '', workerHost: '' })).toEqual({})
    expect(surfaceConfig({ harness: 'codex', workerHost: 'w1.internal' })).toEqual({
      harness: { type: 'codex' },
      worker_host: 'w1.internal',
    })
    expect(surfaceConfig({ harness: 'Claude', workerHost: '' })).toMatchObject({ input: 'harness' })
    expect(surfaceConfig({ harness: '', workerHost: 'a b' })).toMatchObject({
      input: 'worker_host',
    })
  })

  it('continue_from takes pull_request, and refuses what it cannot be combined with', () => {
    const none = { tasks: false, runId: false, continueRun: false, steer: false }
    expect(readContinueFrom('', none)).toBeUndefined()
    expect(readContinueFrom('pull_request', none)).toBe('pull_request')
    expect(readContinueFrom('issue', none)).toMatchObject({ input: 'continue_from' })
    for (const clash of ['tasks', 'runId', 'continueRun', 'steer'] as const) {
      const refused = readContinueFrom('pull_request', { ...none, [clash]: true })
      expect(refused).toMatchObject({ input: 'continue_from' })
      expect((refused as { message: string }).message).toContain('cannot be combined with')
    }
  })
})
