import { WORKFLOW_WORDS } from '../../src/door-words.ts'
import type { StepIo } from '../../src/step-io.ts'

/**
 * A step's port as a test records it: what the runner would show (the log, written as
 * @actions/core writes it: plain lines and `::command::` lines, escaped alike), the outputs,
 * the saved state (starting from what the main step saved, for a post step), the summary,
 * whether the step failed; and the signals, delivered by `signal()` to what the step listens
 * with. So the end-to-end tests' assertions read an in-process step as they read a process.
 * Its methods are bound, as @actions/core's functions are free: the engine hands them on.
 */
export class RecordingStepIo implements StepIo {
  stdout = ''
  summary = ''
  readonly words = WORKFLOW_WORDS
  readonly outputs: Record<string, string> = {}
  readonly state: Record<string, string> = {}
  /** The exit code the process would end with: 1 once the step failed. */
  exitCode = 0
  /** The code of `exit()`, when the step ended itself as a process would. */
  exited: number | undefined
  readonly #saved: Readonly<Record<string, string>>
  readonly #listeners = new Set<(signal: NodeJS.Signals) => void>()
  readonly #watchers = new Set<() => void>()
  readonly #summaryWritable: boolean
  readonly #onExit: (code: number) => void

  /**
   * `saved`: STATE_* as the runner hands them to a post step. `summaryWritable`: whether the
   * runner gave the step a summary file (GITHUB_STEP_SUMMARY).
   */
  constructor(options: {
    saved?: Readonly<Record<string, string>>
    summaryWritable?: boolean
    onExit?: (code: number) => void
  }) {
    this.#saved = options.saved ?? {}
    this.#summaryWritable = options.summaryWritable ?? true
    this.#onExit = options.onExit ?? (() => undefined)
  }

  readonly debug = (message: string): void => {
    this.#command('debug', {}, message)
  }

  readonly info = (message: string): void => {
    this.#write(`${message}\n`)
  }

  readonly warning = (message: string): void => {
    this.#command('warning', {}, message)
  }

  readonly error = (message: string): void => {
    this.#command('error', {}, message)
  }

  readonly notice = (message: string, properties: { title?: string } = {}): void => {
    this.#command('notice', properties, message)
  }

  readonly setOutput = (name: string, value: string): void => {
    this.outputs[name] = value
  }

  readonly setFailed = (message: string): void => {
    this.exitCode = 1
    this.error(message)
  }

  readonly appendSummary = async (markdown: string): Promise<void> => {
    if (!this.#summaryWritable) {
      throw new Error(
        'Unable to find environment variable for $GITHUB_STEP_SUMMARY. Check if your runtime environment supports job summaries.',
      )
    }
    this.summary += `${markdown}\n`
  }

  readonly saveState = (name: string, value: string): void => {
    this.state[name] = value
  }

  readonly getState = (name: string): string => {
    return this.#saved[name] ?? ''
  }

  readonly setSecret = (secret: string): void => {
    this.#command('add-mask', {}, secret)
  }

  readonly onTerminationSignal = (handler: (signal: NodeJS.Signals) => void): (() => void) => {
    this.#listeners.add(handler)
    return () => this.#listeners.delete(handler)
  }

  readonly exit = (code: number): void => {
    this.exited ??= code
    this.#onExit(code)
  }

  /** Whether the step listens for the termination signals now. */
  get listening(): boolean {
    return this.#listeners.size > 0
  }

  /** Delivers a signal as the process would; false when the step does not listen (a process would die). */
  signal(signal: NodeJS.Signals): boolean {
    if (this.#listeners.size === 0) return false
    for (const listener of [...this.#listeners]) listener(signal)
    return true
  }

  /** Calls `watcher` at every write to stdout, until the returned function is called. */
  watch(watcher: () => void): () => void {
    this.#watchers.add(watcher)
    return () => this.#watchers.delete(watcher)
  }

  #command(name: string, properties: Record<string, string | undefined>, message: string): void {
    const given = Object.entries(properties).filter(([, value]) => value)
    const props = given.map(([key, value]) => `${key}=${escapeProperty(value ?? '')}`).join(',')
    this.#write(`::${name}${props ? ` ${props}` : ''}::${escapeData(message)}\n`)
  }

  #write(text: string): void {
    this.stdout += text
    for (const watcher of [...this.#watchers]) watcher()
  }
}

/** As @actions/core escapes a command's message. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

/** As @actions/core escapes a command's property. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}
