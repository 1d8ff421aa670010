import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, it } from './concurrent.ts'
import { parse } from 'yaml'
import type { InputSource } from '../../src/step-io.ts'
import { readRunnerWorld } from '../../src/runner.ts'
import type { FakeAgentApi } from '../fake-api/server.ts'
import { RecordingStepIo } from '../support/step-io.ts'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** Where Node keeps what it compiled of the sources between step processes. */
export const COMPILE_CACHE = join(ROOT, 'node_modules', '.cache', 'node-compile-cache')

interface ActionYml {
  inputs: Record<string, { default?: string }>
  runs: { main: string; post?: string }
}

/** action.yml, read once: every step spawned reads its entries and input defaults. */
const ACTION_YML = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYml

/** The second action of the repository, from the same bundle: its runs.main is `../dist/…`. */
const RECONCILE_YML = parse(
  readFileSync(join(ROOT, 'reconcile', 'action.yml'), 'utf8'),
) as ActionYml

/** The third action, report/, from the same bundle. */
const REPORT_YML = parse(readFileSync(join(ROOT, 'report', 'action.yml'), 'utf8')) as ActionYml

/** Which action of the repository a step runs: the main one (action.yml), reconcile/ or report/. */
export type ActionName = 'main' | 'reconcile' | 'report'

/** The action's definition, and the folder its runs.main is relative to. */
function actionYml(action: ActionName): { yml: ActionYml; dir: string } {
  if (action === 'reconcile') return { yml: RECONCILE_YML, dir: join(ROOT, 'reconcile') }
  if (action === 'report') return { yml: REPORT_YML, dir: join(ROOT, 'report') }
  return { yml: ACTION_YML, dir: ROOT }
}

/** The main step's entry in the committed bundle, as the runner starts it. */
export const BUNDLE = join(ROOT, ACTION_YML.runs.main)

/**
 * What a step runs. `in-process`: the step's run() from the sources, in the test's own
 * process, handed the world, the inputs and a recording port (test/support/step-io.ts) built
 * from the environment a process would get: many steps at once, no process to start.
 * `sources`: the TypeScript entry that builds each bundle file, run by Node directly (type
 * stripping), as a process. `bundle`: the committed dist/ file that action.yml names, as the
 * runner runs it.
 */
export type ActionTarget = 'in-process' | 'sources' | 'bundle'

const TARGETS: readonly string[] = ['in-process', 'sources', 'bundle'] satisfies ActionTarget[]

/**
 * ACTION_UNDER_TEST=bundle switches every step to the committed bundle (`npm run test:bundle`),
 * =sources to processes of the sources; `npm test` runs steps in-process.
 */
export function defaultTarget(): ActionTarget {
  const value = process.env.ACTION_UNDER_TEST ?? 'in-process'
  if (!TARGETS.includes(value))
    throw new Error(`ACTION_UNDER_TEST must be one of ${TARGETS.join(', ')}, not "${value}"`)
  return value as ActionTarget
}

/** The target of a process: a test that spawns a process itself runs the sources or the bundle. */
export function processTarget(): 'sources' | 'bundle' {
  return defaultTarget() === 'bundle' ? 'bundle' : 'sources'
}

/**
 * A test that needs its step to be a process: a hard kill (SIGKILL) and the post step after
 * it, a signal before the step listens, Node's own options (NODE_EXTRA_CA_CERTS). `npm test`
 * runs steps in-process and leaves these to where steps are processes: `npm run test:bundle`
 * (run by .ci/run), or ACTION_UNDER_TEST=sources.
 */
export function itNeedsProcess(name: string, test: () => Promise<void>, timeoutMs?: number): void {
  if (defaultTarget() !== 'in-process') it(name, test, timeoutMs)
}

/** A group of tests that each need a process (see itNeedsProcess). */
export function describeNeedsProcess(name: string, suite: () => void): void {
  if (defaultTarget() !== 'in-process') describe(name, suite)
}

/** The file the runner runs for a step (action.yml's runs.main or runs.post), or its source. */
export function stepEntry(
  step: 'main' | 'post',
  target: 'sources' | 'bundle' = processTarget(),
  action: ActionName = 'main',
): string {
  const { yml, dir } = actionYml(action)
  const { runs } = yml
  const bundled = join(dir, (step === 'post' ? runs.post : undefined) ?? runs.main)
  if (target === 'bundle') return bundled
  // dist/main.js and dist/post.js only call their step's run(), as src/entries/ do.
  const source = join(ROOT, 'src', 'entries', basename(bundled).replace(/\.js$/, '.ts'))
  if (!existsSync(source)) throw new Error(`No source entry in src/entries/ for ${bundled}`)
  return source
}

/** The runner gives every declared input, with action.yml's default where the workflow gave none. */
export function inputEnv(
  inputs: Record<string, string>,
  action: ActionName = 'main',
): Record<string, string> {
  const declared = actionYml(action).yml.inputs
  const unknown = Object.keys(inputs).filter((name) => !(name in declared))
  if (unknown.length > 0) throw new Error(`Not inputs of action.yml: ${unknown.join(', ')}`)
  // base_url's default is Warp's real service: a test that could reach it must name its fake.
  if (inputs['api_key'] && inputs['base_url'] === undefined) {
    throw new Error('A step with an api_key needs a base_url: the default is the real service.')
  }
  const env: Record<string, string> = {}
  for (const [name, spec] of Object.entries(declared)) {
    // The runner evaluates expressions in defaults; github.token is the only one action.yml uses.
    const value = (inputs[name] ?? spec.default ?? '').replace(
      '${{ github.token }}',
      DEFAULT_GITHUB_TOKEN,
    )
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value
  }
  return env
}

/** Parses a GITHUB_OUTPUT / GITHUB_STATE file: `name<<delimiter` blocks, last value wins. */
export function parseFileCommands(text: string): Record<string, string> {
  const values: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i += 1) {
    const match = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '')
    if (!match) continue
    const [, name, delimiter] = match as unknown as [string, string, string]
    const value: string[] = []
    for (i += 1; i < lines.length && lines[i] !== delimiter; i += 1) value.push(lines[i] ?? '')
    values[name] = value.join('\n')
  }
  return values
}

/**
 * The bound on a test's wait for an event of a step (its first request, a line it prints): not
 * a window the event must fit in, only what ends a wait for a step that is broken. Long, because
 * a step on a loaded 2-core machine may take seconds to start; under the e2e test timeout.
 */
export const STEP_START_TIMEOUT_MS = 40_000

/** What `${{ github.token }}` evaluates to in the end-to-end tests. */
export const DEFAULT_GITHUB_TOKEN = 'ghs_default_test_token'

/** What the runner sets for every step, as a workflow run would have it. */
export const RUNNER_CONTEXT = {
  GITHUB_ACTIONS: 'true',
  GITHUB_REPOSITORY: 'octo-org/app',
  GITHUB_WORKFLOW: 'Agent review',
  GITHUB_RUN_ID: '9876543210',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_JOB: 'review',
  GITHUB_ACTION: 'agent',
} as const

export interface StepResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  state: Record<string, string>
  summary: string
}

/** A running step as a test may stop it: a process, or an in-process step told of a signal. */
export interface StepHandle {
  kill(signal: NodeJS.Signals): boolean
}

export interface RunningStep {
  child: StepHandle | ChildProcess
  result: Promise<StepResult>
  /** Resolves when stdout has printed a line matching `pattern`. */
  printed(pattern: RegExp, timeoutMs?: number): Promise<void>
}

export interface StepOptions {
  inputs: Record<string, string>
  /** STATE_* handed to a post step, from the main step's GITHUB_STATE. */
  state?: Record<string, string>
  env?: Record<string, string>
  /** The node binary that runs the step; for the bundle ACTION_NODE, else the tests' own Node. */
  node?: string
  /** Which step of action.yml runs: `main` (the default) or `post`. */
  step?: 'main' | 'post'
  /** The sources or the committed bundle; ACTION_UNDER_TEST decides by default. */
  target?: ActionTarget
  /** Which action: `main` (action.yml, the default) or `reconcile` (reconcile/action.yml). */
  action?: ActionName
}

export interface StepEnvironment {
  /** The step's working directory, also RUNNER_TEMP. */
  dir: string
  files: { GITHUB_OUTPUT: string; GITHUB_STATE: string; GITHUB_STEP_SUMMARY: string }
  /** Everything the runner gives the process: INPUT_*, file commands, STATE_*, context. */
  env: Record<string, string>
}

/** The runner's environment for one step, in a fresh temporary directory. */
export function prepareStepEnvironment(
  options: Pick<StepOptions, 'inputs' | 'state' | 'env' | 'action'>,
): StepEnvironment {
  const dir = mkdtempSync(join(tmpdir(), 'agent-run-step-'))
  const files = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STATE: join(dir, 'state'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
  }
  for (const file of Object.values(files)) writeFileSync(file, '')
  const stateEnv = Object.fromEntries(
    Object.entries(options.state ?? {}).map(([name, value]) => [`STATE_${name}`, value]),
  )
  const env = {
    PATH: process.env.PATH ?? '',
    // Windows processes need these to start at all; elsewhere they are unset.
    ...Object.fromEntries(
      ['SystemRoot', 'TEMP', 'TMP'].flatMap((name) =>
        process.env[name] === undefined ? [] : [[name, process.env[name]]],
      ),
    ),
    RUNNER_TEMP: dir,
    ...RUNNER_CONTEXT,
    ...files,
    ...inputEnv(options.inputs, options.action),
    ...stateEnv,
    ...options.env,
  }
  return { dir, files, env }
}

/**
 * Starts the step as the runner does (INPUT_*, file commands, STATE_* for post): as a process
 * of its entry (see stepEntry), or in-process from the same environment.
 */
export function startStep(options: StepOptions): RunningStep {
  const target = options.target ?? defaultTarget()
  if (target === 'in-process' && options.node === undefined) return startInProcess(options)
  return startProcess(options, target === 'bundle' ? 'bundle' : 'sources')
}

/** Spawns the step's entry (see stepEntry) as the runner does: INPUT_*, file commands, STATE_* for post. */
function startProcess(options: StepOptions, target: 'sources' | 'bundle'): RunningStep {
  const { dir, files, env } = prepareStepEnvironment(options)
  // ACTION_NODE runs the bundle on another Node than the tests' own (CI checks Node 20 too);
  // the TypeScript sources need the tests' own, which strips types.
  const node =
    options.node ?? (target === 'bundle' ? process.env.ACTION_NODE : undefined) ?? process.execPath
  const child = spawn(node, [stepEntry(options.step ?? 'main', target, options.action)], {
    cwd: dir,
    // The sources are hundreds of modules; Node's compile cache halves their load time.
    env: target === 'sources' ? { NODE_COMPILE_CACHE: COMPILE_CACHE, ...env } : env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  const watchers = new Set<() => void>()
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    for (const watcher of [...watchers]) watcher()
  })
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const result = new Promise<StepResult>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout,
        stderr,
        outputs: parseFileCommands(readFileSync(files.GITHUB_OUTPUT, 'utf8')),
        state: parseFileCommands(readFileSync(files.GITHUB_STATE, 'utf8')),
        summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
      }),
    )
  })
  const printed = printedBy(
    () => stdout,
    (watcher) => {
      watchers.add(watcher)
      return () => watchers.delete(watcher)
    },
    () => `${stdout}\n${stderr}`,
  )
  return { child, result, printed }
}

/** Resolves when the step's stdout has printed a line matching `pattern`. */
function printedBy(
  output: () => string,
  watch: (watcher: () => void) => () => void,
  shown = output,
): RunningStep['printed'] {
  return (pattern, timeoutMs = STEP_START_TIMEOUT_MS) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(output())) return
        stop()
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        stop()
        reject(new Error(`Step never printed ${pattern}; it printed:\n${shown()}`))
      }, timeoutMs)
      const stop = watch(check)
      check()
    })
}

/** The module whose run() is the step: as src/entries/ and dist/ call it. */
async function stepModule(
  step: 'main' | 'post',
  action: ActionName,
): Promise<{ run(io: RecordingStepIo, inputs: InputSource): Promise<unknown> }> {
  if (action === 'reconcile') return import('../../src/reconcile/main.ts')
  if (action === 'report') return import('../../src/report/main.ts')
  return step === 'post' ? import('../../src/step/post.ts') : import('../../src/step/main.ts')
}

/**
 * The step in this process: the world, the inputs and the port built from the environment the
 * runner would give a process (INPUT_* with action.yml's defaults, STATE_* for a post step,
 * the event file, RUNNER_TEMP, the step's folder as its working directory). What only a
 * process has (a hard kill, another Node, Node's own options) is for a process target.
 */
function startInProcess(options: StepOptions): RunningStep {
  const { dir, env } = prepareStepEnvironment(options)
  let ended: ((result: StepResult) => void) | undefined
  const ending = new Promise<StepResult>((resolve) => (ended = resolve))
  const snapshot = (code: number, stderr = ''): StepResult => ({
    code,
    signal: null,
    stdout: io.stdout,
    stderr,
    outputs: { ...io.outputs },
    state: { ...io.state },
    summary: io.summary,
  })
  const io = new RecordingStepIo({
    saved: options.state,
    summaryWritable: Boolean(env.GITHUB_STEP_SUMMARY),
    // A process ends at once: what the step does after is not seen.
    onExit: (code) => ended?.(snapshot(code)),
  })
  const world = readRunnerWorld(env, dir)
  const inputs: InputSource = {
    get: (name) => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim(),
    mask: (secret) => io.setSecret(secret),
    world,
  }
  const ran = stepModule(options.step ?? 'main', options.action ?? 'main')
    .then((module) => module.run(io, inputs))
    .then(
      () => snapshot(io.exitCode),
      // What Node prints of an uncaught error, and its exit code.
      (error: unknown) => snapshot(1, error instanceof Error ? `${error.stack}\n` : `${error}\n`),
    )
  const result = Promise.race([ran, ending])
  const child: StepHandle = {
    kill: (signal) => {
      if (signal !== 'SIGINT' && signal !== 'SIGTERM') {
        throw new Error(`An in-process step cannot take ${signal}: the test needs a process.`)
      }
      if (!io.listening) {
        throw new Error(`The step does not listen for ${signal} yet: a process would die of it.`)
      }
      // A process hears a signal from its event loop, once the promise callbacks queued before
      // it have run: never between two of them, as a call from here would.
      setImmediate(() => io.signal(signal))
      return true
    },
  }
  return {
    child,
    result,
    printed: printedBy(
      () => io.stdout,
      (watcher) => io.watch(watcher),
    ),
  }
}

export function runStep(options: StepOptions): Promise<StepResult> {
  return startStep(options).result
}

/**
 * Runs the main step until it has polled its run once, then kills it the way
 * nothing can catch (SIGKILL): what a container job or a runner crash leaves.
 */
export async function killWhilePolling(
  api: FakeAgentApi,
  options: StepOptions,
): Promise<StepResult> {
  const step = startStep(options)
  await api.waitForRequest('GET', /\/agent\/runs\/run_/, STEP_START_TIMEOUT_MS)
  step.child.kill('SIGKILL')
  return step.result
}

/** Runs the post step the way the runner does after the main step: same inputs, its state. */
export function runPostStep(main: StepResult, options: StepOptions): Promise<StepResult> {
  return runStep({ ...options, step: 'post', state: main.state })
}

export { until } from '../support/until.ts'

/** Lines the runner shows as error annotations. */
export function errorAnnotations(result: StepResult): string[] {
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('::error'))
    .map((line) => line.replace(/^::error[^:]*::/, ''))
}
