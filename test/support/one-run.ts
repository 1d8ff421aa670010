import type { AgentRunsClient } from '../../src/api/client.ts'
import type { Sleep } from '../../src/api/transport.ts'
import type { RunItem } from '../../src/api/types.ts'
import type { Log } from '../../src/log.ts'
import { runTag } from '../../src/run/create.ts'
import { RunLifecycle } from '../../src/run/lifecycle.ts'
import type { ReadingWatch } from '../../src/run/lines-and-lookups.ts'
import { RunScheduler } from '../../src/run/scheduler.ts'
import { RunTracker } from '../../src/run/tracker.ts'
import type { WatchVerdict } from '../../src/run/watch.ts'

export interface OneRunOptions {
  timeoutMs: number
  pollIntervalMs: number
  /** What the create answers (a run already seen); a run not yet seen by default. */
  lastSeen?: RunItem
  /** Adopts run r1 and sends it a follow-up: readings in its old state are stale until it moves. */
  followUp?: boolean
}

export interface OneRunDeps {
  client: Pick<AgentRunsClient, 'getRun'>
  now: () => number
  sleep: Sleep
  signal: AbortSignal
  log: Log
  watch?: ReadingWatch
}

/** How the one run's wait ended, as a test reads it. */
export type OneRunEnd =
  | { kind: 'terminal' | 'timed-out' | 'interrupted'; run: RunItem | undefined; elapsedMs: number }
  | { kind: 'stopped'; run: RunItem | undefined; verdict: WatchVerdict; elapsedMs: number }

/**
 * One run under the scheduler, as a step awaits it: created (answered at once, not logged) or
 * adopted and followed up, then read by `client.getRun` until it ends, the timeout, or the signal.
 */
export async function awaitOneRun(options: OneRunOptions, deps: OneRunDeps): Promise<OneRunEnd> {
  const created = options.lastSeen ?? { run_id: 'r1', state: 'PENDING' }
  const client = {
    ...deps.client,
    createRun: async () => created,
    sendFollowup: async () => ({ followupId: 'f1', outcome: 'live_session' as const }),
    cancelRun: async () => ({ kind: 'cancelled' as const }),
    listRuns: async () => ({ runs: [] }),
    iterateRuns: async function* () {},
  } as unknown as ConstructorParameters<typeof RunLifecycle>[1]['client']
  const log: Log = {
    ...deps.log,
    info: (line) => {
      if (!/^(Created run|Sent the follow-up)/.test(line)) deps.log.info(line)
    },
  }
  const startedAt = deps.now()
  const lifecycle = new RunLifecycle(
    {
      target: options.followUp
        ? { kind: 'existing', runId: 'r1', followup: 'again' }
        : { kind: 'create', request: { prompt: 'p' } },
      record: {},
      tag: runTag({
        forge: undefined,
        project: undefined,
        runId: undefined,
        runAttempt: undefined,
        job: undefined,
        action: undefined,
        workflow: undefined,
      }),
      wait: true,
      startFailure: 'throw',
    },
    { ...deps, log, client, tracker: new RunTracker(() => undefined) },
  )
  const end = await new RunScheduler(
    [lifecycle],
    {
      maxParallel: 1,
      passWhen: { kind: 'all' },
      timeoutMs: options.timeoutMs,
      pollIntervalMs: options.pollIntervalMs,
      caps: [],
    },
    { ...deps, log, client },
  ).run()
  const elapsedMs = deps.now() - startedAt
  const { run } = lifecycle.record
  const ended = lifecycle.end
  if (end.kind === 'interrupted') return { kind: 'interrupted', run, elapsedMs }
  switch (ended?.kind) {
    case 'terminal':
      return { kind: 'terminal', run, elapsedMs }
    case 'handed-off': {
      const verdict = { kind: 'blocked' as const, passes: ended.passes, question: ended.question }
      return { kind: 'stopped', run, verdict, elapsedMs }
    }
    case 'cancelled':
      return { kind: 'timed-out', run, elapsedMs }
    default:
      return { kind: 'interrupted', run, elapsedMs }
  }
}
