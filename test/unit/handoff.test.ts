import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { handoffMetadata, readHandoff, type Handoff } from '../../src/model/handoff.ts'
import { runTag } from '../../src/run/create.ts'
import {
  commentShowsEnd,
  detachedSetHandedOver,
  detachedSetStanding,
  firstLook,
  handedOnTo,
  handedToPerson,
  setStarterLost,
  setStatusLeftPending,
  lostRunner,
  statusLeftPending,
  tasksWithRuns,
  waitingStep,
  workflowRunOf,
} from '../../src/reconcile/plan.ts'

const SHA = 'a'.repeat(40)
const WORLD = {
  forge: 'github' as const,
  project: 'octo-org/app',
  runId: '9876543210',
  runAttempt: '2',
  job: 'review',
  action: 'agent',
  workflow: 'Agent review',
}

/** The metadata a step tags its run with, as the service then shows it. */
function taggedBy(facts: Parameters<typeof handoffMetadata>[0]): Record<string, string> {
  return runTag(WORLD, () => 'inv-1', SHA, handoffMetadata(facts)).metadata
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

  it('looks for the step waiting for a run that is still going, unless none can', () => {
    expect(firstLook(run('INPROGRESS'), handoff({ waits: true }), options).kind).toBe('sweep-check')
    // A continue_run step on its thread may wait for a run its first step did not.
    expect(firstLook(run('INPROGRESS'), handoff({ waits: false }), options).kind).toBe(
      'sweep-check',
    )
    expect(
      firstLook(run('INPROGRESS'), handoff({ waits: false, thread: undefined }), options),
    ).toMatchObject({ kind: 'leave', why: 'it is still running; a later pass finishes it' })
    expect(firstLook(run('BLOCKED'), handoff({ waits: true }), options).kind).toBe('leave')
    expect(
      firstLook(run('INPROGRESS'), handoff({ waits: true }), { ...options, sweep: false }).kind,
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

describe("a tasks step's runs", () => {
  const setRun = (extra: Record<string, string>) =>
    readHandoff({ ...runTag(WORLD, () => 'inv-1').metadata, gh_set: 'set-1', ...extra })

  it("are awaited, and their comment and status are the set's, even without a hand-over", () => {
    // As the version before task runs carried a hand-over tagged them.
    expect(setRun({ gh_task: '0' })).toMatchObject({
      waits: true,
      comment: false,
      commitStatus: false,
      set: 'set-1',
      workflowRunId: '9876543210',
    })
    expect(
      setRun({ gh_wait: 'true', gh_key: 'Agent review/review', gh_thread: '12', gh_report: '' }),
    ).toMatchObject({ waits: true, key: 'Agent review/review', thread: 12, set: 'set-1' })
  })

  it('are swept like any awaited run, and a pass tells the truth about the ended ones', () => {
    const task = setRun({}) as Handoff
    expect(firstLook(run('INPROGRESS'), task, options).kind).toBe('sweep-check')
    const ended = firstLook(run('SUCCEEDED'), task, options)
    expect(ended).toMatchObject({ kind: 'leave', why: expect.stringContaining('`tasks` step') })
    expect(JSON.stringify(ended)).not.toContain('older version')
  })
})

describe('a detached set (tasks with wait: false)', () => {
  const SET_FACTS = { ...DETACHED, key: 'nightly', set: { tasks: 3, passWhen: '2' } }
  /** One task's run as the service lists it: tagged as a detached set's step tags it. */
  const taskRun = (task: number, state: string, patch: Partial<RunItem> = {}): RunItem => ({
    ...run(state),
    run_id: `run_${task}`,
    title: `Package ${task}`,
    created_at: '2026-11-26T10:00:00Z',
    run_time: `PT${task + 1}M`,
    metadata: { ...taggedBy(SET_FACTS), gh_set: 'set-1', gh_task: String(task) },
    ...patch,
  })
  const setHandoff = readHandoff(taskRun(0, 'SUCCEEDED').metadata) as Handoff

  it("carries the set's size and pass_when, and what its step shows, within the service's limits", () => {
    const metadata = taskRun(0, 'SUCCEEDED').metadata as Record<string, string>
    expect(Object.keys(metadata).length).toBeLessThanOrEqual(20)
    expect(setHandoff).toMatchObject({
      set: 'set-1',
      task: 0,
      tasks: 3,
      passWhen: { kind: 'at-least', count: 2 },
      waits: false,
      comment: true,
      commitStatus: true,
      headSha: SHA,
    })
    // A rule the set's size cannot hold, or a task out of it, is not read.
    const garbled = { ...metadata, gh_pass_when: '4', gh_task: '3' }
    expect(readHandoff(garbled)).not.toHaveProperty('passWhen')
    expect(readHandoff(garbled)).not.toHaveProperty('task')
    expect(readHandoff({ ...metadata, gh_pass_when: 'any' })?.passWhen).toEqual({ kind: 'any' })
  })

  it('is finished once a run of it ended; a run of it still going is checked for a lost runner', () => {
    expect(firstLook(taskRun(0, 'SUCCEEDED'), setHandoff, options).kind).toBe('finish-set')
    expect(firstLook(taskRun(0, 'INPROGRESS'), setHandoff, options)).toEqual({
      kind: 'set-sweep-check',
      handoff: setHandoff,
    })
    // Without the sweep, or waiting for a person, it is left.
    const going = { kind: 'leave', why: 'it is still running; a later pass finishes its set' }
    expect(firstLook(taskRun(0, 'INPROGRESS'), setHandoff, { ...options, sweep: false })).toEqual(
      going,
    )
    expect(firstLook(taskRun(0, 'BLOCKED'), setHandoff, options)).toEqual(going)
    const quiet = { ...setHandoff, comment: false, commitStatus: false }
    expect(firstLook(taskRun(0, 'SUCCEEDED'), quiet, options).kind).toBe('leave')
  })

  it('was handed over when GitHub shows it, or, shown nowhere, when every task has a run', () => {
    const none = { shows: true, comment: undefined, status: undefined, everyTaskRan: () => true }
    expect(detachedSetHandedOver(none, 'set-1')).toBe(false)
    expect(detachedSetHandedOver({ ...none, comment: { outcome: 'started' } }, 'set-1')).toBe(true)
    const started = { state: 'pending', description: 'Started 3 of 3 runs; … (set set-1)' }
    expect(detachedSetHandedOver({ ...none, status: started }, 'set-1')).toBe(true)
    const running = { state: 'pending', description: 'Cloud agent tasks: running: 0 of 3' }
    expect(detachedSetHandedOver({ ...none, status: running }, 'set-1')).toBe(false)
    expect(detachedSetHandedOver({ ...none, shows: false }, 'set-1')).toBe(true)
    expect(
      detachedSetHandedOver({ ...none, shows: false, everyTaskRan: () => false }, 'set-1'),
    ).toBe(false)
    const runs = [taskRun(0, 'INPROGRESS'), taskRun(2, 'INPROGRESS'), taskRun(2, 'FAILED')]
    expect(tasksWithRuns('set-1', runs)).toBe(2)
    expect(tasksWithRuns('set-2', runs)).toBe(0)
  })

  it("not handed over, is swept once its step's workflow run completed, not successfully", () => {
    expect(setStarterLost({ over: false, status: 'in_progress', conclusion: undefined })).toEqual({
      kind: 'leave',
      why: 'its step is still starting its set (workflow run in_progress)',
    })
    expect(
      setStarterLost({ over: true, status: 'completed', conclusion: 'success' }),
    ).toMatchObject({ kind: 'leave' })
    expect(setStarterLost({ over: true, status: 'completed', conclusion: 'failure' })).toEqual({
      kind: 'sweep',
    })
    expect(setStarterLost(undefined)).toMatchObject({ kind: 'leave' })
  })

  it('is going while any run of it is, and ended by its pass_when once all are, in task order', () => {
    const runs = [taskRun(2, 'FAILED'), taskRun(0, 'SUCCEEDED'), taskRun(1, 'INPROGRESS')]
    expect(detachedSetStanding(setHandoff, runs)).toEqual({ kind: 'going', ended: 2, total: 3 })
    const ended = detachedSetStanding(setHandoff, [...runs.slice(0, 2), taskRun(1, 'SUCCEEDED')])
    expect(ended.kind).toBe('ended')
    if (ended.kind !== 'ended') return
    expect(ended.outcome.word).toBe('succeeded')
    expect(ended.outcome.reason).toBe('the step asked for at least 2 of 3 runs')
    expect(ended.outcome.tasks.map((task) => [task.index, task.runId])).toEqual([
      [0, 'run_0'],
      [1, 'run_1'],
      [2, 'run_2'],
    ])
    // From the first start to the last end: task 2 ran 3 minutes.
    expect(ended.outcome.elapsedMs).toBe(3 * 60_000)
    // Another set's run, or a second run of one task, changes nothing.
    const stray = {
      ...taskRun(1, 'FAILED'),
      metadata: { ...taskRun(1, 'FAILED').metadata, gh_set: 'set-2' },
    }
    expect(detachedSetStanding(setHandoff, [...runs, stray]).kind).toBe('going')
  })

  it('counts a task whose run is not found as not succeeded: its create failed', () => {
    const standing = detachedSetStanding(setHandoff, [
      taskRun(0, 'SUCCEEDED'),
      taskRun(2, 'SUCCEEDED'),
    ])
    expect(standing.kind).toBe('ended')
    if (standing.kind !== 'ended') return
    expect(standing.outcome.word).toBe('succeeded')
    expect(standing.outcome.tasks[1]?.createError).toMatch(/its create failed/)
    const all = { ...setHandoff, passWhen: { kind: 'all' as const } }
    const failed = detachedSetStanding(all, [taskRun(0, 'SUCCEEDED'), taskRun(2, 'SUCCEEDED')])
    expect(failed.kind === 'ended' && failed.outcome.word).toBe('failed')
    expect(detachedSetStanding({ ...setHandoff, tasks: undefined }, []).kind).toBe('unknown')
  })

  it("a status is the pass's to end only while it is the pending one that names the set", () => {
    const started = 'Started 3 of 3 runs; this step does not wait for them (set set-1)'
    expect(setStatusLeftPending({ state: 'pending', description: started }, 'set-1')).toBe(true)
    expect(setStatusLeftPending({ state: 'pending', description: started }, 'set-12')).toBe(false)
    expect(setStatusLeftPending({ state: 'success', description: started }, 'set-1')).toBe(false)
    expect(setStatusLeftPending(undefined, 'set-1')).toBe(false)
  })
})

describe('waitingStep: the step a still-going run is judged by', () => {
  const waiting = handoff({ waits: true })
  const trace = (workflowRunId: string, outcome?: string, attempt?: number) => ({
    workflowRun: { workflowRunId, attempt },
    outcome,
  })

  it('is the newest step that showed the run, not the one that started it', () => {
    expect(
      waitingStep(waiting, [trace('9876543210', 'failed'), trace('9876543299')]),
    ).toMatchObject({ kind: 'check', workflowRun: { workflowRunId: '9876543299' } })
    expect(waitingStep(waiting, [trace('5', undefined, 2), trace('5', 'failed', 1)])).toMatchObject(
      { kind: 'check', workflowRun: { attempt: 2 } },
    )
    // IDs longer than a double holds exactly still order.
    expect(
      waitingStep(waiting, [trace('90071992547409930'), trace('90071992547409931', 'blocked')]),
    ).toMatchObject({ kind: 'leave' })
  })

  it('is none when the newest step ended and let the run go on: to a person, detached, or done', () => {
    expect(waitingStep(waiting, [trace('7', 'blocked')])).toEqual({
      kind: 'leave',
      why: 'its latest step (workflow run 7) ended on purpose (blocked) and let it run on: it was not left behind',
    })
    expect(waitingStep(waiting, [trace('7', 'started')]).kind).toBe('leave')
    expect(waitingStep(waiting, [trace('7', 'succeeded')]).kind).toBe('leave')
  })

  it('is still the step that ended meaning to stop the run, when the run goes on', () => {
    for (const outcome of ['timed_out', 'over_budget', 'interrupted', 'error']) {
      expect(waitingStep(waiting, [trace('7', outcome)])).toMatchObject({
        kind: 'check',
        trace: { outcome },
      })
    }
  })

  it('without a comment that shows the run, is the step that started it, if it waits', () => {
    expect(waitingStep(waiting, [])).toEqual({
      kind: 'check',
      workflowRun: { workflowRunId: '9876543210', attempt: 2 },
      trace: undefined,
    })
    expect(waitingStep(handoff({ waits: false }), [])).toEqual({
      kind: 'leave',
      why: 'it is still running; a later pass finishes it',
    })
    expect(waitingStep(handoff({ waits: true, workflowRunId: undefined }), [])).toEqual({
      kind: 'leave',
      why: 'its metadata names no workflow run to check',
    })
  })
})

describe("lostRunner: what the waiting step's workflow run says", () => {
  it('lost only once the workflow run is over, and did not succeed', () => {
    expect(lostRunner({ over: false, status: 'in_progress', conclusion: undefined })).toEqual({
      lost: false,
      why: 'its step waits for it (workflow run in_progress)',
    })
    expect(lostRunner({ over: true, status: 'completed', conclusion: 'success' }).lost).toBe(false)
    expect(lostRunner({ over: true, status: 'completed', conclusion: 'failure' }).lost).toBe(true)
    expect(lostRunner({ over: true, status: 'completed', conclusion: 'cancelled' }).lost).toBe(true)
    // A later attempt: the step's own attempt's conclusion is not shown.
    expect(lostRunner({ over: true, status: 'queued', conclusion: undefined }).lost).toBe(true)
    expect(lostRunner(undefined).lost).toBe(false)
  })
})

describe('handedOnTo: a cancelled step may have handed its run to a newer one (previous_run: steer)', () => {
  const cancelled = { conclusion: 'cancelled' }
  const newer = (status: string, conclusion?: string) => ({ id: '11', status, conclusion })
  it('leaves the run while a newer workflow run for the thread goes, or once it succeeded', () => {
    expect(handedOnTo(cancelled, newer('queued'))).toMatchObject({ kind: 'leave' })
    expect(handedOnTo(cancelled, newer('in_progress'))).toEqual({
      kind: 'leave',
      why: "its step's workflow run was cancelled, and a newer workflow run of the same workflow for its pull request (11) is in_progress: a step there may steer it (previous_run: steer)",
    })
    expect(handedOnTo(cancelled, newer('completed', 'success'))).toMatchObject({ kind: 'leave' })
  })
  it('sweeps once the newer one lost its runner too, with none, or when the step was not cancelled', () => {
    expect(handedOnTo(cancelled, newer('completed', 'failure'))).toEqual({ kind: 'sweep' })
    expect(handedOnTo(cancelled, newer('completed', 'cancelled'))).toEqual({ kind: 'sweep' })
    expect(handedOnTo(cancelled, undefined)).toEqual({ kind: 'sweep' })
    expect(handedOnTo({ conclusion: 'failure' }, newer('in_progress'))).toEqual({ kind: 'sweep' })
  })
})

describe('workflowRunOf: the workflow run a comment links', () => {
  it("reads this repository's links only", () => {
    expect(
      workflowRunOf('https://github.com/octo-org/app/actions/runs/123/attempts/2', 'octo-org/app'),
    ).toEqual({ workflowRunId: '123', attempt: 2 })
    expect(
      workflowRunOf('https://ghe.example/octo-org/app/actions/runs/9', 'octo-org/app'),
    ).toEqual({ workflowRunId: '9', attempt: undefined })
    expect(
      workflowRunOf('https://github.com/octo-org/other/actions/runs/123', 'octo-org/app'),
    ).toBeUndefined()
    expect(workflowRunOf('https://github.com/octo-org/app/pull/4', 'octo-org/app')).toBeUndefined()
    expect(workflowRunOf(undefined, 'octo-org/app')).toBeUndefined()
  })
})

describe("handedToPerson: a set's record names the runs its step let go on purpose", () => {
  const link = 'https://github.com/octo-org/app/actions/runs/77'
  it('leaves a run the record lists, naming the workflow run of its step', () => {
    expect(handedToPerson({ handedOff: ['r1'], workflowRun: link }, 'r1', 'octo-org/app')).toEqual({
      kind: 'leave',
      why: "its set's step (workflow run 77) handed it to a person (BLOCKED) and ended: it was not left behind",
    })
  })
  it('says nothing of a run it does not list, or without a record', () => {
    expect(
      handedToPerson({ handedOff: ['r1'], workflowRun: link }, 'r2', 'octo-org/app'),
    ).toBeUndefined()
    expect(handedToPerson({ workflowRun: link }, 'r1', 'octo-org/app')).toBeUndefined()
    expect(handedToPerson(undefined, 'r1', 'octo-org/app')).toBeUndefined()
  })
})
