/**
 * A set of one-hour runs on a fake clock, side by side: `tasks` in one step
 * (the real TaskSetRun, its poll schedule and list requests) against one step
 * per run (each polling its own run on the schedule of src/run/schedule.ts).
 * The fake service answers at once; every request is counted by kind.
 */
import type { CreateRunRequest, RunItem } from '../../src/api/types.ts'
import type { LifecycleClient } from '../../src/run/lifecycle.ts'
import { TaskSetRun } from '../../src/run/set.ts'
import { taskTag } from '../../src/run/create.ts'
import { pollTimes } from './schedule-sim.ts'
import { WORKFLOW_WORDS } from '../../src/door-words.ts'
import { Interruption } from '../../src/run/interruption.ts'

export interface SetFigures {
  tasks: number
  runMinutes: number
  /** With `tasks`: every request the set's step sent, by kind. */
  set: { creates: number; lists: number; reads: number; answers: number; total: number }
  /** One step per run: creates, polls and answer reads, summed over the steps. */
  singles: { creates: number; polls: number; answers: number; total: number }
  /** One run's polls: what the set's polls are measured against. */
  oneRunPolls: number
  /** Minutes of runner time held: one runner for the set against one per step. */
  runnerMinutes: { set: number; singles: number }
}

/** Runs `tasks` runs of `runMinutes`, all started together (max_parallel = tasks). */
export async function simulateSet(
  tasks: number,
  runMinutes: number,
  intervalMs: number,
): Promise<SetFigures> {
  const runMs = runMinutes * 60_000
  let now = 0
  const runs = new Map<string, { createdAt: number; metadata: Record<string, string> }>()
  const counts = { creates: 0, lists: 0, reads: 0 }
  const view = (runId: string): RunItem => {
    const run = runs.get(runId)
    const age = now - (run?.createdAt ?? now)
    return {
      run_id: runId,
      state: age >= runMs ? 'SUCCEEDED' : age > 10_000 ? 'INPROGRESS' : 'QUEUED',
      metadata: run?.metadata,
    }
  }
  const client = {
    createRun: (request: CreateRunRequest & { metadata?: Record<string, string> }) => {
      counts.creates += 1
      const runId = `run_${runs.size}`
      runs.set(runId, { createdAt: now, metadata: request.metadata ?? {} })
      return Promise.resolve({ run_id: runId, state: 'QUEUED' })
    },
    listRuns: () => {
      counts.lists += 1
      return Promise.resolve({ runs: [...runs.keys()].map(view), has_more: false })
    },
    getRun: (runId: string) => {
      counts.reads += 1
      return Promise.resolve(view(runId))
    },
    cancelRun: () => Promise.resolve('cancelled'),
  } as unknown as LifecycleClient
  const quiet = { info: () => undefined, warning: () => undefined, debug: () => undefined }
  const stepTag = { invocation: 'set-bench', metadata: {} }
  let next = 0
  const set = new TaskSetRun(
    {
      tasks: Array.from({ length: tasks }, (_, index) => ({ prompt: `task ${index}` })),
      maxParallel: tasks,
      passWhen: { kind: 'all' },
      timeoutMs: 2 * runMs,
      pollIntervalMs: intervalMs,
      caps: [],
    },
    {
      client,
      now: () => now,
      sleep: (ms: number) => {
        now += ms
        return Promise.resolve()
      },
      signal: new AbortController().signal,
      log: quiet,
      state: { saveRunCount: () => undefined, saveRun: () => undefined, markSet: () => undefined },
      setMetadata: { gh_set: stepTag.invocation },
      tagFor: (index) => taskTag(stepTag, index, () => `inv-${next++}`),
    },
  )
  const interruption = new Interruption({
    log: quiet,
    onSignal: () => () => undefined,
    exit: () => undefined,
    words: WORKFLOW_WORDS,
  })
  const outcome = await set.run(interruption)
  if (outcome.word !== 'succeeded') throw new Error(`the simulated set ended ${outcome.word}`)
  // The step reads each ended run's answer once (tasks.ts finishSet), as a single step does.
  const answers = outcome.tasks.length
  const oneRunPolls = pollTimes(runMs, intervalMs).length
  return {
    tasks,
    runMinutes,
    set: { ...counts, answers, total: counts.creates + counts.lists + counts.reads + answers },
    singles: {
      creates: tasks,
      polls: tasks * oneRunPolls,
      answers: tasks,
      total: tasks * (1 + oneRunPolls + 1),
    },
    oneRunPolls,
    runnerMinutes: { set: Math.ceil(now / 60_000), singles: tasks * runMinutes },
  }
}
