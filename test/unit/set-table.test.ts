import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { mergeSets, type SetEntry } from '../../src/model/key-history.ts'
import { keyHistoryOf, keyedMarkerOf, newerOtherKind } from '../../src/github/keyed-comment.ts'
import { parseMarker, renderMarker } from '../../src/github/run-marker.ts'
import {
  composeSetComment,
  parseSetMarker,
  renderSetMarker,
  setBodyOf,
} from '../../src/github/set-comment.ts'
import type { SetOutcome, TaskRun } from '../../src/model/set.ts'
import {
  notSucceededTasks,
  renderSetCheck,
  renderSetComment,
  renderSetSummary,
  renderSetTable,
  setHeadline,
  setStatusOf,
} from '../../src/summary/set-table.ts'

const T0 = Date.parse('2026-11-24T10:00:00Z')

function task(index: number, run?: Partial<RunItem>, extra: Partial<TaskRun> = {}): TaskRun {
  return {
    index,
    request: { prompt: `do ${index}` },
    ...(run
      ? {
          invocation: `inv${index}`,
          runId: `run_${index}`,
          startedAt: T0,
          run: { run_id: `run_${index}`, state: 'INPROGRESS', ...run } as RunItem,
        }
      : {}),
    ...extra,
  }
}

const running = (tasks: TaskRun[]) => ({ kind: 'running', tasks }) as const

describe('a detached set (wait: false) as its step leaves it', () => {
  const handed = (index: number) =>
    task(index, { state: 'QUEUED' }, { endedAt: T0 + 300, settled: true, end: { kind: 'started' } })
  const outcome: SetOutcome = {
    word: 'started',
    tasks: [
      handed(0),
      handed(1),
      task(2, undefined, { invocation: 'inv2', createError: 'refused', endedAt: T0 }),
    ],
    reason: 'the step does not wait for its runs (wait: false); a reconcile pass reports the set',
    elapsedMs: 300,
    listFallback: false,
    handedOver: 'set-1',
  }
  const view = { kind: 'ended', outcome } as const

  it('says how many runs were handed over, none of them done, and names the set in its status', () => {
    expect(setHeadline(view)).toMatchObject({
      icon: '🚀',
      title: 'started',
      figures: ['2 of 3 runs started and handed over, 1 could not be created'],
    })
    expect(setStatusOf(view)).toEqual({
      state: 'pending',
      description: 'Started 2 of 3 runs; this step does not wait for them (set set-1)',
    })
    const table = renderSetTable(view)
    // A run handed over shows no duration: it goes on.
    expect(table).toContain('| 1 | do 0 | 🚀 started | QUEUED |  |  |  |')
    expect(table).toContain('| 3 | do 2 | ❌ error |')
  })
})

describe("the set's check run and its downloaded files", () => {
  const ended = (count: number): SetOutcome => ({
    word: 'timed_out',
    tasks: Array.from({ length: count }, (_, index) =>
      task(index, { state: 'SUCCEEDED' }, { endedAt: T0 + 1_000, settled: true }),
    ),
    reason: 'the step reached its timeout (30m)',
    elapsedMs: 1_000,
    listFallback: false,
  })

  it("takes its conclusion from the set's outcome, the tally as its title, the table within GitHub's room", () => {
    const check = renderSetCheck(ended(3), 65_535)
    expect(check.conclusion).toBe('timed_out')
    expect(check.title).toBe('Timed out: 3 of 3 runs succeeded')
    // The first paragraph is what the post step keeps.
    expect(check.summary.split('\n\n')[0]).toBe(
      'The step reached its timeout &#40;30m&#41;. Outcome: `timed_out`.',
    )
    expect(check.summary).toContain('| 3 | do 2 | ✅ succeeded | SUCCEEDED | 1s |  |  |')
    const many = renderSetCheck(ended(2_000), 65_535)
    expect(many.summary.length).toBeLessThanOrEqual(65_535)
    expect(many.summary).toMatch(/_…and \d+ more tasks: the job summary lists every one\._$/)
  })

  it("lists each task's folder of downloaded files under the summary's table", () => {
    const outcome = ended(2)
    const [first] = outcome.tasks
    const summary = renderSetSummary(outcome, [
      { task: first as TaskRun, dir: '/work/out/1-<b>', files: 2 },
    ])
    expect(summary).toContain(
      '**Downloaded files**\n\n- **1** do 0: 2 files in <code>/work/out/1-&#60;b&#62;</code>',
    )
    expect(renderSetSummary(outcome)).not.toContain('Downloaded files')
  })
})

describe('the set table, while the set runs and once it ended', () => {
  it('shows where each task stands while the set runs: running, waiting to start, ended', () => {
    const tasks = [
      task(
        0,
        { state: 'SUCCEEDED', request_usage: { inference_cost: 3 } },
        { endedAt: T0 + 60_000, settled: true },
      ),
      task(1, { state: 'INPROGRESS', request_usage: { inference_cost: 5 } }),
      task(2),
    ]
    const table = renderSetTable(running(tasks))
    expect(table.split('\n')).toEqual([
      '| # | Task | Outcome | State | Duration | Credits | Session |',
      '| --: | --- | --- | --- | --: | --: | --- |',
      // Numbered from 1, as a person counts.
      '| 1 | do 0 | ✅ succeeded | SUCCEEDED | 1m 0s | 3 credits |  |',
      // A run at work shows no credits yet: they change at every poll.
      '| 2 | do 1 | ⏳ in progress | INPROGRESS |  |  |  |',
      '| 3 | do 2 | ⏸️ waiting to start |  |  |  |  |',
    ])
    expect(setHeadline(running(tasks))).toMatchObject({
      icon: '⏳',
      title: '1 of 3 done',
      figures: ['1 succeeded', '1 in flight', '3 credits by the runs done'],
    })
    expect(setStatusOf(running(tasks))).toEqual({
      state: 'pending',
      description: '1 of 3 done: 1 succeeded',
    })
  })

  it('ends with the outcome: the icon, the tally, the reason, and the commit state', () => {
    const outcome: SetOutcome = {
      word: 'failed',
      tasks: [
        task(
          0,
          { state: 'FAILED', status_message: { message: 'The <b>tests</b> do not build' } },
          { endedAt: T0 + 1_000, settled: true },
        ),
        task(1, { state: 'CANCELLED' }, { endedAt: T0 + 2_000, stoppedBy: 'pass-when' }),
        task(2, undefined, { stoppedBy: 'pass-when' }),
      ],
      reason: '1 of 3 runs did not succeed, so all 3 runs can no longer succeed',
      elapsedMs: 2_000,
      listFallback: false,
    }
    const summary = renderSetSummary(outcome)
    expect(summary).toContain('## ❌ Cloud agent tasks: failed')
    expect(summary).toContain(
      '0 of 3 runs succeeded · ⏱ 2s. 1 of 3 runs did not succeed, so all 3 runs can no longer succeed.',
    )
    expect(summary).toContain('| 2 | do 1 | ⛔ cancelled | CANCELLED | 2s |  |  |')
    expect(summary).toContain('| 3 | do 2 | ⏸️ not started |  |  |  |  |')
    // Why a task did not succeed, under the table, inert.
    expect(summary).toContain('\n\n- **1** do 0: The &#60;b&#62;tests&#60;/b&#62; do not build\n')
    // The error line's list: each task that did not pass, by number and title, and why.
    expect(notSucceededTasks(outcome.tasks)).toBe(
      'task 1 failed (The <b>tests</b> do not build); task 2 cancelled (the set could no longer pass)',
    )
    expect(setStatusOf({ kind: 'ended', outcome })).toEqual({
      state: 'failure',
      description: 'Failed: 1 of 3 runs did not succeed, so all 3 runs can no longer succeed',
    })
  })

  it('gives the rows that do not fit one line saying how many more the summary lists', () => {
    const tasks = Array.from({ length: 50 }, (_, index) => task(index, { state: 'QUEUED' }))
    const comment = renderSetComment(running(tasks), undefined, 1_500)
    expect(comment.length).toBeLessThanOrEqual(1_500)
    const shown = comment.split('\n').filter((line) => /^\| \d+ \|/.test(line)).length
    expect(shown).toBeGreaterThan(5)
    expect(comment).toContain(`_…and ${50 - shown} more tasks: the job summary lists every one._`)
  })

  it('makes a title inert: no HTML, no mention, no table break', () => {
    const tasks = [task(0, { state: 'QUEUED', title: '<img src=x> @octo | 1' })]
    const row = renderSetTable(running(tasks)).split('\n')[2] ?? ''
    expect(row).not.toContain('<img')
    expect(row).not.toMatch(/(^|\s)@octo/)
    // Seven cells: eight pipes, none of them the title's.
    expect(row.match(/\|/g)).toHaveLength(8)
  })
})

describe("the set comment's marker", () => {
  const record = (set: string, startedAt: string, extra: Partial<SetEntry> = {}): SetEntry => ({
    set,
    done: 1,
    total: 2,
    startedAt,
    ...extra,
  })

  it('reads back what it wrote, and is never read as a run marker', () => {
    const marker = {
      key: 'nightly',
      step: 'build/agent',
      sets: [record('s2', '2026-11-24T10:00:00Z', { outcome: 'succeeded' as const })],
    }
    const body = composeSetComment(marker, '### body')
    expect(parseSetMarker(body)).toEqual(marker)
    expect(parseMarker(body)).toBeUndefined()
  })

  it('shares its key with a run marker: one key, one comment, whichever step wrote it', () => {
    const setBody = composeSetComment(
      { key: 'review', step: 's', sets: [record('s1', '2026-11-24T10:00:00Z')] },
      'now',
    )
    const set = keyedMarkerOf(setBody)
    expect(set).toEqual({ kind: 'set', key: 'review', newestStart: '2026-11-24T10:00:00Z' })
    // A run's step that started after the set's is newer; one that started before is older.
    expect(newerOtherKind(set, 'run', '2026-11-24T09:59:59Z')).toBe(true)
    expect(newerOtherKind(set, 'run', '2026-11-24T10:00:01Z')).toBe(false)
    expect(newerOtherKind(set, 'set', '2026-11-24T09:00:00Z')).toBe(false)
    const reply =
      '<!-- cloud-agent-run: {"run_id":"r","step":"s","key":"review","reply":true,"runs":[]} -->'
    expect(keyedMarkerOf(reply)).toBeUndefined()
  })

  it('one history of the key for both kinds: a set keeps the runs, a run keeps the sets, old markers read', () => {
    // Markers as released versions wrote them: a run's with runs only, a set's with sets only.
    const oldRun =
      '<!-- cloud-agent-run: {"run_id":"run_r1","step":"s","key":"review","runs":[{"run_id":"run_r1","state":"FAILED","outcome":"failed","started_at":"2026-11-24T09:00:00Z"}]} -->\n### ❌ one'
    const oldSet =
      '<!-- cloud-agent-set: {"key":"review","step":"s","sets":[{"set":"s1","outcome":"succeeded","done":2,"total":2,"started_at":"2026-11-24T08:00:00Z"}]} -->\n### table'
    expect(keyHistoryOf(oldRun, 'review')).toEqual({
      runs: [
        { runId: 'run_r1', state: 'FAILED', outcome: 'failed', startedAt: '2026-11-24T09:00:00Z' },
      ],
      sets: [],
    })
    expect(keyHistoryOf(oldSet, 'review').sets.map((set) => set.set)).toEqual(['s1'])
    expect(keyHistoryOf(oldSet, 'other')).toEqual({ runs: [], sets: [] })

    // A set that takes the run's comment over keeps the run; its history says both kinds.
    const { runs, sets } = keyHistoryOf(oldRun, 'review')
    const marker = {
      key: 'review',
      step: 's',
      sets: mergeSets(
        [...sets, ...keyHistoryOf(oldSet, 'review').sets],
        record('s2', '2026-11-24T10:00:00Z'),
      ),
      runs,
    }
    const body = composeSetComment(marker, '### now')
    expect(parseSetMarker(body)).toEqual(marker)
    expect(keyedMarkerOf(body)).toEqual({
      kind: 'set',
      key: 'review',
      newestStart: '2026-11-24T10:00:00Z',
    })
    expect(body).toContain(
      '<details><summary>Earlier runs and sets (2)</summary>\n\n- ❌ failed · run `run_r1` · started 2026-11-24 09:00 UTC\n- ✅ succeeded · 2 of 2 done · started 2026-11-24 08:00 UTC\n\n</details>',
    )
    expect(setBodyOf(body)).toBe('### now')

    // A run that takes it back keeps every set, in a marker that reads as before.
    const back = renderMarker({
      runId: 'run_r2',
      step: 's',
      key: 'review',
      runs: [...runs],
      sets: marker.sets,
    })
    expect(parseMarker(back)?.sets?.map((set) => set.set)).toEqual(['s2', 's1'])
    expect(keyHistoryOf(back, 'review').runs.map((run) => run.runId)).toEqual(['run_r1'])
  })

  it('keeps the runs its step handed to a person, and drops what is not a run ID', () => {
    const handedOff = ['run_a1', 'run_b2']
    const marker = {
      key: 'nightly',
      step: 's',
      sets: [record('s1', '2026-11-24T10:00:00Z', { outcome: 'failed' as const, handedOff })],
    }
    expect(parseSetMarker(composeSetComment(marker, 'body'))).toEqual(marker)
    const forged = renderSetMarker(marker).replace('"run_b2"', '"x y"')
    expect(parseSetMarker(forged)?.sets[0]?.handedOff).toEqual(['run_a1'])
  })

  it('cannot be closed or forged by a key: < and > are spelled as JSON escapes', () => {
    const written = renderSetMarker({ key: '--> <!-- cloud-agent-set: {}', step: 's', sets: [] })
    expect(written.match(/-->/g)).toHaveLength(1)
    expect(parseSetMarker(written)?.key).toBe('--> <!-- cloud-agent-set: {}')
  })

  it('keeps the earlier sets newest first, each where it was first shown, in a collapsed history', () => {
    const earlier = [record('s1', '2026-11-23T10:00:00Z', { outcome: 'failed' })]
    const sets = mergeSets(earlier, record('s2', '2026-11-24T10:00:00Z'))
    expect(sets.map((set) => set.set)).toEqual(['s2', 's1'])
    const again = mergeSets(sets, record('s2', '2026-11-24T11:00:00Z', { done: 2 }))
    expect(again[0]).toMatchObject({ set: 's2', done: 2, startedAt: '2026-11-24T10:00:00Z' })
    const body = composeSetComment({ key: 'k', step: 's', sets: again }, 'now')
    expect(body).toContain(
      '<details><summary>Earlier sets (1)</summary>\n\n- ❌ failed · 1 of 2 done · started 2026-11-23 10:00 UTC',
    )
  })
})
