/**
 * The words for what only a door does: who cancels a step, who cleans up after it, what a
 * person calls it and its inputs. The Action's steps and the command share every other word;
 * these differ, so no line printed outside GitHub Actions names a post step, a workflow or a
 * GitHub input. Each door's port (StepIo) carries its own.
 */
export interface DoorWords {
  /** Why a signal came, after "Received SIGTERM: ". */
  readonly signalled: string
  /** What a signal means for the step's outcome: why, and what it did to the step. */
  readonly interrupted: Interrupted
  /** What the step is, for a person: the heading of a failure ("The step failed"). */
  readonly step: string
  /** The line before cancelling a run the door finds still going once the step stopped. */
  leftGoing(run: string): string
  /** An input as a person gave it here, to open an error's line: `Input "timeout"`, `--timeout`. */
  input(name: string): string
}

/** A signal's meaning for a step's outcome, as its sentences put it: "`reason`, `effect`". */
export interface Interrupted {
  /** "the workflow was cancelled" */
  readonly reason: string
  /** "which interrupted this step" */
  readonly effect: string
}

/** An Action's steps: the workflow cancels them; the post step cleans up after the main step. */
export const WORKFLOW_WORDS: DoorWords = {
  signalled: 'the workflow is cancelling this step',
  interrupted: { reason: 'the workflow was cancelled', effect: 'which interrupted this step' },
  step: 'step',
  leftGoing: (run) => `The main step left ${run} unfinished; cancelling it.`,
  input: (name) => `Input "${name}"`,
}

/** The command: a person or a CI's job cancels it, and it cleans up after itself before it exits. */
export const COMMAND_WORDS: DoorWords = {
  signalled: 'cancelling the runs this command made before it exits',
  interrupted: { reason: 'the command received a signal', effect: 'which stopped it' },
  step: 'command',
  leftGoing: (run) => `The command stopped with ${run} still going; cancelling it before it exits.`,
  input: (name) => `--${name.replace(/_/g, '-')}`,
}
