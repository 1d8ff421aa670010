import { randomBytes } from 'node:crypto'
import type { CreateRunRequest, RunCreator, RunItem } from '../../src/api/types.ts'

export interface RunStep {
  state: string
  /** Milliseconds since the run was created, or since its last follow-up. */
  afterMs: number
  /** Merged into the run from this step on (cumulatively with earlier steps' patches). */
  patch?: Partial<RunItem>
}
export type RunScript = RunStep[]
/** Decides how a new run evolves. `runId` is handy for links such as `session_link`. */
export type ScriptFactory = (create: CreateRunRequest, runId: string) => RunScript

/** The wire view of a run: a RunItem plus the metadata it was created with. */
export type FakeRunItem = RunItem & { metadata?: Record<string, string> }

export const TERMINAL_STATES: ReadonlySet<string> = new Set([
  'SUCCEEDED',
  'FAILED',
  'ERROR',
  'CANCELLED',
])

/** States in which the agent has not started, so they don't set `started_at`. */
const NOT_STARTED_STATES: ReadonlySet<string> = new Set(['QUEUED', 'PENDING'])

export const FAKE_CREATOR: RunCreator = {
  uid: 'user_fake',
  display_name: 'Fake API User',
  email: 'fake-user@example.test',
  type: 'user',
}

export const defaultScript: ScriptFactory = (_create, runId) => {
  const sessionId = `sess_${runId.replace(/^run_/, '')}`
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 200, patch: { session_id: sessionId } },
    {
      state: 'SUCCEEDED',
      afterMs: 600,
      patch: { session_link: `https://app.example.test/sessions/${sessionId}` },
    },
  ]
}

export interface StoredRun {
  readonly id: string
  /** Creation order; breaks ties between runs created in the same millisecond. */
  readonly seq: number
  readonly createdWall: number
  readonly request: CreateRunRequest
  readonly script: readonly RunStep[]
  /** Start of the current pass through the script (creation, or the last follow-up). */
  epochWall: number
  epochMono: number
  cancelled: { wall: number; mono: number } | undefined
  overrides: Partial<RunItem>
  followups: string[]
}

export function newRunId(): string {
  return `run_${randomBytes(9).toString('base64url')}`
}

/**
 * Builds a stored run. State is never advanced by timers: `viewRun` derives it from the
 * script and the clock on every read, so thousands of idle runs cost nothing.
 */
export function makeStoredRun(
  id: string,
  seq: number,
  request: CreateRunRequest,
  script: RunScript,
  createdWall = Date.now(),
): StoredRun {
  if (script.length === 0) throw new Error(`the script for run ${id} has no steps`)
  for (const step of script) {
    if (!Number.isFinite(step.afterMs) || step.afterMs < 0) {
      throw new Error(`script step ${step.state} has an invalid afterMs: ${step.afterMs}`)
    }
  }
  // A stable sort keeps the author's order for steps that share a time.
  const sorted = [...script].sort((a, b) => a.afterMs - b.afterMs)
  // Seeding a run in the past must make its script as far along as real time would have.
  const epochMono = performance.now() - (Date.now() - createdWall)
  return {
    id,
    seq,
    createdWall,
    request: structuredClone(request),
    script: structuredClone(sorted),
    epochWall: createdWall,
    epochMono,
    cancelled: undefined,
    overrides: {},
    followups: [],
  }
}

export function restartRun(run: StoredRun, message: string): void {
  run.epochWall = Date.now()
  run.epochMono = performance.now()
  run.cancelled = undefined
  run.followups.push(message)
}

export function cancelRun(run: StoredRun): void {
  run.cancelled = { wall: Date.now(), mono: performance.now() }
}

/** A copy of the run as GET shows it at `mono`, safe for callers to mutate. */
export function viewRun(run: StoredRun, mono = performance.now()): FakeRunItem {
  return structuredClone(viewRunShared(run, mono))
}

/**
 * The run as GET shows it, sharing objects with the store: only for serialising or reading.
 * Lists skip the copy, which dominates their cost with thousands of runs.
 */
export function viewRunShared(run: StoredRun, mono = performance.now()): FakeRunItem {
  const cutoff = run.cancelled ? Math.min(mono, run.cancelled.mono) : mono
  const elapsed = cutoff - run.epochMono
  const { script } = run
  const first = script[0]
  if (!first) throw new Error(`the script for run ${run.id} has no steps`)
  // The first step is in force from the start of the pass, whatever its afterMs.
  const stepWall = (step: RunStep): number => run.epochWall + (step === first ? 0 : step.afterMs)

  const patches: Partial<RunItem> = {}
  let startedWall: number | undefined
  let current = first
  // Steps are sorted by afterMs, so the reached ones are a prefix.
  for (const step of script) {
    if (step !== first && step.afterMs > elapsed) break
    if (step.patch) Object.assign(patches, step.patch)
    if (startedWall === undefined && !NOT_STARTED_STATES.has(step.state))
      startedWall = stepWall(step)
    current = step
  }

  let state = current.state
  let updatedWall = stepWall(current)
  if (run.cancelled) {
    state = 'CANCELLED'
    updatedWall = run.cancelled.wall
  }
  const terminal = TERMINAL_STATES.has(state)

  const { request } = run
  const view: FakeRunItem = {
    run_id: run.id,
    state,
    title: request.title ?? defaultTitle(request),
    prompt: request.prompt ?? '',
    created_at: rfc3339(run.createdWall),
    updated_at: rfc3339(updatedWall),
    ...(startedWall !== undefined ? { started_at: rfc3339(startedWall) } : {}),
    ...(request.config ? { agent_config: request.config } : {}),
    ...(request.metadata ? { metadata: request.metadata } : {}),
    source: 'API',
    creator: FAKE_CREATOR,
    is_run_type_cancellable: true,
    ...(terminal ? { run_time: isoDuration(updatedWall - run.createdWall) } : {}),
    ...patches,
    ...run.overrides,
  }
  view.run_id = run.id
  view.state = state
  return view
}

function defaultTitle(request: CreateRunRequest): string {
  const source = request.prompt?.trim() || request.config?.skill_spec || 'Untitled run'
  return source.length > 60 ? `${source.slice(0, 57)}...` : source
}

export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms)).toISOString()
}

/** ISO 8601 duration the way the service writes it, e.g. `PT1.2S` or `PT2M30S`. */
export function isoDuration(ms: number): string {
  const totalMs = Math.max(0, Math.round(ms))
  const hours = Math.floor(totalMs / 3_600_000)
  const minutes = Math.floor((totalMs % 3_600_000) / 60_000)
  const seconds = (totalMs % 60_000) / 1000
  let out = 'PT'
  if (hours > 0) out += `${hours}H`
  if (minutes > 0) out += `${minutes}M`
  if (seconds > 0 || out === 'PT') out += `${Number(seconds.toFixed(3))}S`
  return out
}
