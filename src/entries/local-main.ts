/**
 * `@github/local-action`'s entry for the main step (CONTRIBUTING.md, "Running the action
 * locally"): it imports a module and calls its `run()` with no arguments, so this one hands
 * the process to the step as the runner's entry does.
 */
import { runMain } from '../index.ts'

export const run = (): Promise<void> => runMain(process)
