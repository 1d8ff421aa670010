import { EOL } from 'node:os'
import { onTerminationSignal, type RunnerProcess } from '../runner.ts'
import type { StepIo } from '../step-io.ts'
import { COMMAND_WORDS } from '../door-words.ts'
import type { Speech } from './speech.ts'

/**
 * The command line's port to the engine: the log as plain lines for a person (on stderr, so
 * that stdout carries only what the command prints), every secret masked, debug lines left
 * out; the outputs, the summary and the failure kept for the door to print and answer with.
 * There is no post step: the state lives as long as the command, whose door cleans up after the
 * step itself; and the engine's `exit` is a request to the door, which cancels what is left
 * before the process ends. Its methods are bound: the
 * engine hands them on as functions (a Log's `info` alone), as @actions/core's are.
 */
export class CommandStepIo implements StepIo {
  readonly outputs: Record<string, string> = {}
  readonly words = COMMAND_WORDS
  summary = ''
  failed = false
  /** The first line the step failed with. */
  failure: string | undefined
  readonly #state = new Map<string, string>()
  readonly #secrets: Set<string>
  readonly #write: (text: string) => void
  readonly #host: Pick<RunnerProcess, 'on' | 'off'>
  readonly #onExit: (code: number) => void
  readonly #onOutput: ((name: string, value: string) => void) | undefined
  readonly #onState: ((state: ReadonlyMap<string, string>) => void) | undefined
  readonly #speech: Speech

  /**
   * `host`: the process's signals, as the command's entry hands them in; `onExit`: the door's
   * answer when the engine asks to end the process (past a signal's cancel budget).
   */
  constructor(
    write: (text: string) => void,
    secrets: Set<string>,
    host: Pick<RunnerProcess, 'on' | 'off'>,
    onExit: (code: number) => void,
    /** `onOutput`: told of each output as it is set (the merge request's note records the run). */
    options: {
      onOutput?: (name: string, value: string) => void
      /** Told of the whole saved state each time it changes (a CI job's `state.json`). */
      onState?: (state: ReadonlyMap<string, string>) => void
      /** Says the engine's lines, its failure and its summary in the command's words. */
      speech?: Speech
    } = {},
  ) {
    this.#speech = options.speech ?? ((text) => text)
    this.#onOutput = options.onOutput
    this.#onState = options.onState
    this.#write = write
    this.#secrets = secrets
    this.#host = host
    this.#onExit = onExit
  }

  readonly debug = (): void => {
    // A terminal's log is for people: the runner's debug lines stay hidden, as without ACTIONS_STEP_DEBUG.
  }

  readonly info = (message: string): void => {
    this.#line(message)
  }

  readonly warning = (message: string): void => {
    this.#line(`warning: ${message}`)
  }

  readonly error = (message: string): void => {
    this.#line(`error: ${message}`)
  }

  readonly notice = (message: string): void => {
    this.#line(`notice: ${message}`)
  }

  readonly setOutput = (name: string, value: string): void => {
    this.outputs[name] = value
    this.#onOutput?.(name, value)
  }

  readonly setFailed = (message: string): void => {
    this.failed = true
    this.failure ??= this.#speech(message)
    this.error(message)
  }

  readonly appendSummary = async (markdown: string): Promise<void> => {
    this.summary += `${this.#speech(markdown)}${EOL}`
  }

  readonly saveState = (name: string, value: string): void => {
    this.#state.set(name, value)
    this.#onState?.(this.#state)
  }

  /** Takes a saved state back (`cloud-agent-run cleanup`, from a job's `state.json`). */
  restoreState(state: Readonly<Record<string, string>>): void {
    for (const [name, value] of Object.entries(state)) this.#state.set(name, value)
  }

  readonly getState = (name: string): string => {
    return this.#state.get(name) ?? ''
  }

  readonly setSecret = (secret: string): void => {
    this.#secrets.add(secret)
  }

  readonly onTerminationSignal = (handler: (signal: NodeJS.Signals) => void): (() => void) => {
    return onTerminationSignal(this.#host, handler)
  }

  readonly exit = (code: number): void => {
    this.#onExit(code)
  }

  #line(text: string): void {
    let shown = this.#speech(text)
    for (const secret of this.#secrets) if (secret) shown = shown.split(secret).join('***')
    this.#write(`${shown}\n`)
  }
}
