import type { DoorWords } from './door-words.ts'
import type { Log } from './log.ts'

/**
 * What a step tells its runner, and what the runner tells it: the log at each level (with
 * the annotations a person sees on the run's page), the outputs, the step's failure, the job
 * summary, the state saved for the post step, the secrets to mask, the signals that cancel
 * the step and the way to end it. A door gives the one it has (the runner's, over
 * @actions/core, in src/runner.ts; the command line's in src/cli.ts; a recorder in tests)
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
