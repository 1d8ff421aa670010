import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { handoffMetadata, readHandoff, type Handoff } from '../../src/model/handoff.ts'
import { tagFromEnvironment } from '../../src/run/create.ts'
import { commentShowsEnd, firstLook, statusLeftPending } from '../../src/reconcile/plan.ts'

const SHA = 'a'.repeat(40)
const ENV = {
  GITHUB_REPOSITORY: 'octo-org/app',
  GITHUB_RUN_ID: '9876543210',
  GITHUB_RUN_ATTEMPT: '2',
  GITHUB_JOB: 'review',
  GITHUB_ACTION: 'agent',
  GITHUB_WORKFLOW: 'Agent review',
}

/** The metadata a step tags its run with, as the service then shows it. */
function taggedBy(facts: Parameters<typeof handoffMetadata>[0]): Record<string, string> {
  return tagFromEnvironment(ENV, () => 'inv-1', SHA, handoffMetadata(facts)).metadata
}

const DETACHED = {
  thread: 12,
  key: 'Agent review/review',
  wait: false,
  comment: true,
  commitStatus: true,
}

describe("the hand-over in a run's metadata", () => {
  it("round-trips what a pass needs, within the service's limits", () => {
    const metadata = taggedBy(DETACHED)
    expect(Object.keys(metadata).length).toBeLessThanOrEqual(20)
    for (const value of Object.values(metadata))
      expect(Buffer.byteLength(value)).toBeLessThanOrEqual(256)
    expect(readHandoff(metadata)).toEqual({
      repository: 'octo-org/app',
      workflowRunId: '9876543210',
      attempt: 2,
      headSha: SHA,
      thread: 12,
      key: 'Agent review/review',
      waits: false,
      comment: true,
      commitStatus: true,
    } satisfies Handoff)
  })

  it('says when the step shows nothing on GitHub, and when there is no thread', () => {
    const metadata = taggedBy({
      ...DETACHED,
      thread: undefined,
      comment: false,
      commitStatus: false,
      wait: true,
    })
    expect(metadata).not.toHaveProperty('gh_thread')
    expect(readHandoff(metadata)).toMatchObject({
      thread: undefined,
      comment: false,
      commitStatus: false,
      waits: true,
    })
  })

  it('reads no hand-over from runs that carry none, or a garbled one', () => {
    expect(readHandoff(undefined)).toBeUndefined()
    expect(readHandoff({ gh_repository: 'octo-org/app' })).toBeUndefined()
    expect(readHandoff({ ...taggedBy(DETACHED), gh_wait: 'maybe' })).toBeUndefined()
    expect(readHandoff({ ...taggedBy(DETACHED), gh_repository: '../../x' })).toBeUndefined()
    const garbled = readHandoff({
      ...taggedBy(DETACHED),
      gh_thread: '12abc',
      gh_head_sha: 'HEAD',
      gh_run_id: '1; rm',
    })
    expect(garbled).toMatchObject({
      thread: undefined,
      headSha: undefined,
      workflowRunId: undefined,
    })
  })
})

const run = (state: string): RunItem => ({ run_id: 'run_1', state })
const handoff = (patch: Partial<Handoff> = {}): Handoff => ({
  ...(readHandoff(taggedBy(DETACHED)) as Handoff),
  ...patch,
})
const options = { repository: 'octo-org/app', sweep: true }

describe('firstLook: what a pass does with a run, from the run alone', () => {
  it('finishes an ended run whose step showed it on GitHub, waiting or not', () => {
    expect(firstLook(run('SUCCEEDED'), handoff(), options).kind).toBe('finish')
    expect(firstLook(run('FAILED'), handoff({ waits: true }), options).kind).toBe('finish')
  })

  it('checks for a lost runner only where a step waits for a run that is still going', () => {
    expect(firstLook(run('INPROGRESS'), handoff({ waits: true }), options).kind).toBe('sweep-check')
    expect(firstLook(run('INPROGRESS'), handoff({ waits: false }), options)).toMatchObject({
      kind: 'leave',
      why: 'it is still running; a later pass finishes it',
    })
    expect(firstLook(run('BLOCKED'), handoff({ waits: true }), options).kind).toBe('leave')
    expect(
      firstLook(run('INPROGRESS'), handoff({ waits: true }), { ...options, sweep: false }).kind,
    ).toBe('leave')
    expect(
      firstLook(run('QUEUED'), handoff({ waits: true, workflowRunId: undefined }), options).kind,
    ).toBe('leave')
  })

  it('leaves runs of other repositories, and runs without a hand-over', () => {
    expect(
      firstLook(run('SUCCEEDED'), handoff({ repository: 'octo-org/other' }), options),
    ).toMatchObject({
      kind: 'leave',
      why: 'it belongs to octo-org/other',
    })
    expect(firstLook(run('SUCCEEDED'), undefined, options).kind).toBe('leave')
    expect(
      firstLook(run('SUCCEEDED'), handoff({ comment: false, commitStatus: false }), options).kind,
    ).toBe('leave')
  })
})

describe('what GitHub shows, and whether a pass writes', () => {
  it('a comment is at its end with a final outcome, or a terminal state without one', () => {
    expect(commentShowsEnd({ state: 'QUEUED', outcome: 'started' })).toBe(false)
    expect(commentShowsEnd({ state: 'INPROGRESS' })).toBe(false)
    expect(commentShowsEnd({ state: 'SUCCEEDED', outcome: 'succeeded' })).toBe(true)
    expect(commentShowsEnd({ state: 'CANCELLED', outcome: 'superseded' })).toBe(true)
    expect(commentShowsEnd({ state: 'CANCELLED' })).toBe(true)
  })

  it("a status is the pass's to end only while it is the pending one that names the run", () => {
    const started = 'Started (run run_1); this step does not wait for it'
    expect(statusLeftPending({ state: 'pending', description: started }, 'run_1')).toBe(true)
    expect(
      statusLeftPending({ state: 'pending', description: 'In progress (run run_1)' }, 'run_1'),
    ).toBe(true)
    expect(
      statusLeftPending({ state: 'pending', description: 'In progress (run run_12)' }, 'run_1'),
    ).toBe(false)
    expect(statusLeftPending({ state: 'success', description: 'Succeeded' }, 'run_1')).toBe(false)
    expect(statusLeftPending(undefined, 'run_1')).toBe(false)
  })
})
