import type { DoorWords } from './door-words.ts'
import type { Log } from './log.ts'
import type { ForgeSteering } from './model/head.ts'
import type { World } from './world.ts'

/**
 * What a step tells its runner, and what the runner tells it: the log at each level (with
 * the annotations a person sees on the run's page), the outputs, the step's failure, the job
 * summary, the state saved for the post step, the secrets to mask, the signals that cancel
 * the step and the way to end it. A door gives the one it has (the runner's, over
 * @actions/core, in src/runner.ts; the command line's in src/cli/door.ts; a recorder in tests)
 * and hands it down with the World: nothing below a door writes to the process, so steps
 * can run side by side in one process.
 */
export interface StepIo extends Log {
  /** An error annotation; the step goes on (setFailed is the failure). */
  error(message: string): void
  /** A notice annotation: the line a person sees on the run's page. */
  notice(message: string, properties?: { title?: string }): void
  setOutput(name: string, value: string): void
  /** Fails the step with `message`, which is logged as an error. */
  setFailed(message: string): void
  /** Appends Markdown to the job summary; rejects when there is none to write to. */
  appendSummary(markdown: string): Promise<void>
  /** Saves a value for the post step, at once: a hard kill after this call keeps it. */
  saveState(name: string, value: string): void
  /** What the main step saved under `name`; '' when nothing. */
  getState(name: string): string
  /** Hides a value in all later log output. */
  setSecret(secret: string): void
  /** Listens for the signals that cancel the step; returns the unsubscribe. */
  onTerminationSignal(handler: (signal: NodeJS.Signals) => void): () => void
  /** Ends the step at once with `code`: past a cancel's budget, before the runner's kill. */
  exit(code: number): void
  /** The door's own words (who cancels, who cleans up): no line names another door's. */
  readonly words: DoorWords
}

/**
 * What a step reads of its door: its inputs, and where it runs. A door gives the one it has (the
 * runner's inputs in src/runner.ts, the command's flags in src/cli/source.ts) beside its StepIo.
 */
export interface InputSource {
  /** The input's value, trimmed; '' when not given. */
  get(name: string): string
  /** Hides a value in all later log output. */
  mask(secret: string): void
  /** Where the step runs, as its door read it: the workspace, the workflow, the event. */
  world: World
  /**
   * How a person names an input (with a value) at this door: `previous_run: cancel` in a
   * workflow, `--previous-run cancel` on the command line. A workflow's naming when not given.
   */
  nameOf?: (input: string, value?: string) => string
  /**
   * `previous_run: steer` on the door's forge, when it is not GitHub's: the command in a GitLab
   * merge request pipeline with a token hands GitLab's. Without it, steer works on GitHub only.
   */
  steering?: ForgeSteering
}
