import { randomBytes } from 'node:crypto'
import type {
  ConversationStep,
  CreateRunRequest,
  RequestUsage,
  RunCreator,
  RunItem,
} from '../../src/api/types.ts'

export interface RunStep {
  state: string
  /** Milliseconds since the run was created, or since its last follow-up. */
  afterMs: number
  /** Merged into the run from this step on (cumulatively with earlier steps' patches). */
  patch?: Partial<RunItem>
  /** Conversation steps the agent has added by this point, appended to earlier steps' ones. */
  conversation?: ConversationStep[]
  /** From this step on, the conversation endpoint answers 422 `operation_not_supported`. */
  conversationUnsupported?: boolean
  /** From this step on, the run's session is gone: a follow-up answers 410. */
  sessionGone?: boolean
  /**
   * This step comes only once a GET of the run has shown the step before it (and not before
   * its afterMs): a test that needs a state seen awaits that event, not a window of time that
   * a loaded machine can miss. Until then the run's clock stands just short of this step.
   */
  afterSeen?: boolean
  /**
   * This step comes only once `until()` holds (and not before its afterMs), asked at each read
   * of the run: an order between two runs, or between a run and what a step says, that a test
   * needs held by an event, not by a window of time. Until then the run's clock stands just
   * short of this step.
   */
  until?: () => boolean
  /**
   * The agent starts these child runs when the run reaches this step (orchestration): each
   * inherits the run's metadata, names it as `parent_run_id` and its root as `root_run_id`,
   * comes from `source: ORCHESTRATION`, and lives by its own script and usage. A run cancelled
   * (or interrupted) before this step starts none; cancelling the run leaves its children working.
   */
  spawn?: readonly ChildRun[]
}
export type RunScript = RunStep[]

/** A child run an agent starts: its own prompt, extra metadata and script (by default the fake's). */
export interface ChildRun {
  prompt?: string
  /** Keys of its own, over those it inherits from its parent. */
  metadata?: Record<string, string>
  /** Its agent's config (a `name` like its parent's, say); none by default. */
  config?: CreateRunRequest['config']
  /** Its script, or what makes it from the child's run ID (for its session link). */
  script?: RunScript | ((runId: string) => RunScript)
}
/** Decides how a new run evolves. `runId` is handy for links such as `session_link`. */
export type ScriptFactory = (create: CreateRunRequest, runId: string) => RunScript
/**
 * Decides how a run evolves after its `pass`-th follow-up (1 for the first), or undefined to
 * replay its script. A follow-up to a run not started yet starts no pass (it joins the prompt),
 * so it is not counted. A new script's conversation follows the earlier passes', and its
 * artifacts join theirs, as the service keeps a run's whole conversation and artifacts.
 */
export type FollowupScriptFactory = (followup: {
  runId: string
  message: string
  pass: number
}) => RunScript | undefined

/** The wire view of a run. */
export type FakeRunItem = RunItem

export const TERMINAL_STATES: ReadonlySet<string> = new Set([
  'SUCCEEDED',
  'FAILED',
  'ERROR',
  'CANCELLED',
])

/** States in which the agent has not started, so they don't set `started_at`. */
const NOT_STARTED_STATES: ReadonlySet<string> = new Set(['QUEUED', 'PENDING'])

/** States in which the agent works, so its usage grows. */
const WORKING_STATES: ReadonlySet<string> = new Set(['CLAIMED', 'INPROGRESS'])

/** Credits a working run spends per second in the fake, so usage visibly grows. */
const USAGE_PER_SECOND = { inference_cost: 0.5, compute_cost: 0.1 } as const

export const FAKE_CREATOR: RunCreator = {
  uid: 'user_fake',
  display_name: 'Fake API User',
  email: 'fake-user@example.test',
  type: 'user',
}

export const defaultScript: ScriptFactory = (create, runId) => {
  const sessionId = `sess_${runId.replace(/^run_/, '')}`
  return [
    { state: 'QUEUED', afterMs: 0 },
    {
      state: 'INPROGRESS',
      afterMs: 200,
      patch: { session_id: sessionId },
      conversation: [
        conversationStep('step_1', [
          { role: 'user', content: [{ type: 'text', text: create.prompt ?? '' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Looking at the repository.' },
              { type: 'action', id: 'act_1', category: 'command', name: 'ls', input: {} },
            ],
          },
        ]),
      ],
    },
    {
      state: 'SUCCEEDED',
      afterMs: 600,
      patch: { session_link: `https://app.example.test/sessions/${sessionId}` },
      conversation: [
        conversationStep('step_2', [
          {
            role: 'tool',
            content: [
              {
                type: 'action_result',
                action_id: 'act_1',
                category: 'command',
                name: 'ls',
                state: 'completed',
                output: { exit_code: 0 },
              },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
        ]),
      ],
    },
  ]
}

/** A conversation step with `messages` and no nested steps, for scripts. */
export function conversationStep(
  id: string,
  messages: ConversationStep['messages'],
  steps: ConversationStep[] = [],
): ConversationStep {
  return { id, messages, steps }
}

export interface StoredRun {
  readonly id: string
  /** Creation order; breaks ties between runs created in the same millisecond. */
  readonly seq: number
  readonly createdWall: number
  readonly request: CreateRunRequest
  script: readonly RunStep[]
  /** What earlier passes left, when a follow-up gave the run a new script. */
  earlier: { conversation: ConversationStep[]; patch: Partial<RunItem> }
  /** Start of the current pass through the script (creation, or the last follow-up). */
  epochWall: number
  epochMono: number
  cancelled: { wall: number; mono: number } | undefined
  /**
   * Set by an accepted interrupt: the agent stopped its turn, so the pass stands still (the run
   * stays INPROGRESS, its usage stops growing) until a follow-up starts the next pass.
   */
  interrupted: { wall: number; mono: number; elapsed: number } | undefined
  /** Interrupts the run accepted, all passes together. */
  interrupts: number
  overrides: Partial<RunItem>
  /** Every follow-up message the run accepted, oldest first, however it was routed. */
  followups: string[]
  /** Follow-ups that started a new pass (the `pass` a follow-up script is given is this plus one). */
  passes: number
  /** Follow-ups that arrived before the run started: they joined its prompt. */
  promptAdditions: string[]
  /** Indexes of the current pass's script steps a GET of the run has shown. */
  seen: Set<number>
  /** The milliseconds earlier passes worked: a run's usage grows over all its passes. */
  earlierWorkingMs: number | undefined
  /**
   * The credits a run spends once, when it first starts working: its sandbox and the context it
   * builds (clone, install, read the code). A follow-up's new pass of the same run does not pay
   * them again; a new run does, even one that carries a conversation on.
   */
  setupCredits: number
  /** Dollars a credit, for an account on dollar billing; undefined shows no dollars. */
  usdPerCredit: number | undefined
  /** The top of the run's tree (its own ID for a run no agent started). */
  rootId: string
  /** Indexes of the current pass's script steps whose children have been started. */
  spawned: Set<number>
}

export function newRunId(): string {
  return `run_${randomBytes(9).toString('base64url')}`
}

/**
 * Builds a stored run. State is never advanced by timers: `viewRun` derives it from the
 * script and the clock on every read, so thousands of idle runs cost nothing.
 */
function sortedScript(id: string, script: RunScript): RunScript {
  if (script.length === 0) throw new Error(`the script for run ${id} has no steps`)
  for (const step of script) {
    if (!Number.isFinite(step.afterMs) || step.afterMs < 0) {
      throw new Error(`script step ${step.state} has an invalid afterMs: ${step.afterMs}`)
    }
  }
  // A stable sort keeps the author's order for steps that share a time.
  // Children's scripts and `until` may be functions, which cannot be cloned: kept as given.
  return [...script]
    .sort((a, b) => a.afterMs - b.afterMs)
    .map(({ spawn, until, ...step }) => ({
      ...structuredClone(step),
      ...(spawn ? { spawn } : {}),
      ...(until ? { until } : {}),
    }))
}

export function makeStoredRun(
  id: string,
  seq: number,
  request: CreateRunRequest,
  script: RunScript,
  createdWall = Date.now(),
  rootId = id,
): StoredRun {
  const sorted = sortedScript(id, script)
  // Seeding a run in the past must make its script as far along as real time would have.
  const epochMono = performance.now() - (Date.now() - createdWall)
  return {
    id,
    seq,
    createdWall,
    request: structuredClone(request),
    script: sorted,
    earlier: { conversation: [], patch: {} },
    epochWall: createdWall,
    epochMono,
    cancelled: undefined,
    interrupted: undefined,
    interrupts: 0,
    overrides: {},
    followups: [],
    passes: 0,
    promptAdditions: [],
    seen: new Set(),
    earlierWorkingMs: undefined,
    setupCredits: 0,
    usdPerCredit: undefined,
    rootId,
    spawned: new Set(),
  }
}

export function restartRun(run: StoredRun, message: string, next?: RunScript): void {
  const mono = performance.now()
  if (viewRunShared(run, mono).started_at) {
    run.earlierWorkingMs =
      (run.earlierWorkingMs ?? 0) + workingMs(run, run.script, cutoffOf(run, mono))
  }
  if (next) {
    const view = viewRunShared(run)
    run.earlier = {
      conversation: structuredClone(conversationAt(run)?.steps ?? []),
      patch: structuredClone({
        ...(view.session_id ? { session_id: view.session_id } : {}),
        ...(view.session_link ? { session_link: view.session_link } : {}),
        ...(view.artifacts ? { artifacts: view.artifacts } : {}),
      }),
    }
    run.script = sortedScript(run.id, next)
  }
  // The service keeps the message in the run's conversation, as the person's next turn.
  run.earlier.conversation.push(
    conversationStep(`followup_${run.passes + 1}`, [
      { role: 'user', content: [{ type: 'text', text: message }] },
    ]),
  )
  run.epochWall = Date.now()
  run.epochMono = performance.now()
  run.cancelled = undefined
  run.interrupted = undefined
  run.seen = new Set()
  run.spawned = new Set()
  run.followups.push(message)
  run.passes += 1
}

/** A follow-up to a run that has not started: it joins the run's prompt, and the pass goes on. */
export function appendToPrompt(run: StoredRun, message: string): void {
  run.promptAdditions.push(message)
  run.followups.push(message)
}

export function cancelRun(run: StoredRun): void {
  run.cancelled = { wall: Date.now(), mono: performance.now() }
}

/** Stops the agent's turn: the run holds where it is (INPROGRESS) until a follow-up. */
export function interruptRun(run: StoredRun): void {
  const mono = performance.now()
  // The step it stood in is kept, even one held by `afterSeen` that a later GET would open.
  run.interrupted ??= { wall: Date.now(), mono, elapsed: scriptElapsed(run, cutoffOf(run, mono)) }
  run.interrupts += 1
}

/** Whether the agent has not started on the run yet (so a follow-up joins its prompt). */
export function hasNotStarted(state: string): boolean {
  return NOT_STARTED_STATES.has(state)
}

/** Where the pass's clock stops: at a cancel or an interrupt, else at `mono`. */
function cutoffOf(run: StoredRun, mono: number): number {
  return Math.min(mono, run.cancelled?.mono ?? Infinity, run.interrupted?.mono ?? Infinity)
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
  const cutoff = cutoffOf(run, mono)
  const elapsed = scriptElapsed(run, cutoff)
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
    prompt: [request.prompt ?? '', ...run.promptAdditions].join('\n\n'),
    created_at: rfc3339(run.createdWall),
    updated_at: rfc3339(updatedWall),
    started_at: startedWall !== undefined ? rfc3339(startedWall) : null,
    ...(request.config ? { agent_config: request.config } : {}),
    ...(request.metadata ? { metadata: request.metadata } : {}),
    ...(request.parent_run_id ? { parent_run_id: request.parent_run_id } : {}),
    root_run_id: run.rootId,
    conversation_id: request.conversation_id ?? `conv_${run.id.replace(/^run_/, '')}`,
    source: request.parent_run_id ? 'ORCHESTRATION' : 'API',
    execution_location: 'REMOTE',
    creator: FAKE_CREATOR,
    is_run_type_cancellable: true,
    ...(startedWall !== undefined || run.earlierWorkingMs !== undefined
      ? {
          request_usage: usageAfter(
            (run.earlierWorkingMs ?? 0) +
              (startedWall !== undefined ? workingMs(run, script, cutoff) : 0),
            run.setupCredits,
            run.usdPerCredit,
          ),
        }
      : {}),
    ...(terminal ? { run_time: isoDuration(updatedWall - run.createdWall) } : {}),
    ...run.earlier.patch,
    ...patches,
    ...run.overrides,
  }
  if (run.earlier.patch.artifacts && patches.artifacts && !run.overrides.artifacts) {
    view.artifacts = [...run.earlier.patch.artifacts, ...patches.artifacts]
  }
  view.run_id = run.id
  view.task_id = run.id
  view.state = state
  return view
}

/** What the agent has said and done by `mono`; undefined before there is a conversation. */
export function conversationAt(
  run: StoredRun,
  mono = performance.now(),
): { steps: ConversationStep[]; unsupported: boolean } | undefined {
  const reached = reachedSteps(run, mono)
  const unsupported = reached.some((step) => step.conversationUnsupported === true)
  const steps = [...run.earlier.conversation, ...reached.flatMap((step) => step.conversation ?? [])]
  if (!unsupported && steps.length === 0) return undefined
  return { steps: structuredClone(steps), unsupported }
}

/** Whether the run's session can still take a follow-up. */
export function isSessionGone(run: StoredRun, mono = performance.now()): boolean {
  if (reachedSteps(run, mono).some((step) => step.sessionGone === true)) return true
  const debugUntil = viewRunShared(run, mono).status_message?.session_debug_until
  return debugUntil !== undefined && Date.parse(debugUntil) < Date.now()
}

function reachedSteps(run: StoredRun, mono: number): RunStep[] {
  const cutoff = cutoffOf(run, mono)
  const elapsed = scriptElapsed(run, cutoff)
  const [first, ...rest] = run.script
  if (!first) return []
  return [first, ...rest.filter((step) => step.afterMs <= elapsed)]
}

/**
 * How far the current pass's script has run at `cutoff` (a monotonic time): the time since the
 * pass began, held just short of the first `afterSeen` step whose step before it no GET has shown,
 * or the first `until` step whose condition does not hold yet.
 */
function scriptElapsed(run: StoredRun, cutoff: number): number {
  const elapsed = cutoff - run.epochMono
  const gate = run.script.findIndex(
    (step, index) =>
      index > 0 &&
      ((step.afterSeen === true && !run.seen.has(index - 1)) ||
        (step.until !== undefined && !step.until())),
  )
  const held = run.script[gate]
  const reached = held && elapsed >= held.afterMs ? Math.max(0, held.afterMs - 0.001) : elapsed
  return Math.min(reached, run.interrupted?.elapsed ?? Infinity)
}

/**
 * The children the run's agent has started by `mono` and not yet been made, each with when it
 * was started (wall clock); they are marked made.
 */
export function takeDueChildren(
  run: StoredRun,
  mono = performance.now(),
): { child: ChildRun; startedWall: number }[] {
  const due: { child: ChildRun; startedWall: number }[] = []
  const elapsed = scriptElapsed(run, cutoffOf(run, mono))
  run.script.forEach((step, index) => {
    if (!step.spawn || run.spawned.has(index) || (index > 0 && step.afterMs > elapsed)) return
    run.spawned.add(index)
    const startedWall = run.epochWall + (index === 0 ? 0 : step.afterMs)
    for (const child of step.spawn) due.push({ child, startedWall })
  })
  return due
}

/** Whether the run's current pass still has children to start. */
export function hasChildrenToStart(run: StoredRun): boolean {
  return run.script.some((step, index) => step.spawn !== undefined && !run.spawned.has(index))
}

/** Records that a GET has shown the run as it stands at `mono`, which may open an `afterSeen` step. */
export function markSeen(run: StoredRun, mono = performance.now()): void {
  const cutoff = cutoffOf(run, mono)
  const elapsed = scriptElapsed(run, cutoff)
  let current = 0
  run.script.forEach((step, index) => {
    if (index > 0 && step.afterMs <= elapsed) current = index
  })
  run.seen.add(current)
}

/** Milliseconds the current pass has spent in working states up to `cutoff`. */
function workingMs(run: StoredRun, script: readonly RunStep[], cutoff: number): number {
  const elapsed = scriptElapsed(run, cutoff)
  let total = 0
  script.forEach((step, index) => {
    if (!WORKING_STATES.has(step.state)) return
    const from = index === 0 ? 0 : step.afterMs
    if (from > elapsed) return
    const next = script[index + 1]
    const to = next && next.afterMs <= elapsed ? next.afterMs : elapsed
    total += Math.max(0, to - from)
  })
  return total
}

function usageAfter(
  ms: number,
  setupCredits: number,
  usdPerCredit: number | undefined,
): RequestUsage {
  const seconds = ms / 1000
  const credits = {
    inference_cost: Number((seconds * USAGE_PER_SECOND.inference_cost).toFixed(4)),
    compute_cost: Number((seconds * USAGE_PER_SECOND.compute_cost).toFixed(4)),
    ...(setupCredits > 0 ? { platform_cost: setupCredits } : {}),
  }
  if (usdPerCredit === undefined) return credits
  const dollars = Object.fromEntries(
    Object.entries(credits).map(([part, value]) => [
      `${part}_usd`,
      Number((value * usdPerCredit).toFixed(6)),
    ]),
  )
  return { ...credits, ...dollars }
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
