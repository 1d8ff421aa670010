import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { EndToEndFirst } from './test/support/end-to-end-first.ts'

/**
 * Node's compile cache (as test/e2e/harness.ts's step processes use it) for the test workers
 * too, which inherit this process's environment: a worker loads the sources and the packages
 * from what an earlier worker or run compiled.
 */
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(
  new URL('node_modules/.cache/node-compile-cache', import.meta.url),
)

/** End-to-end test files: each test starts its own fake servers and step processes. */
export const E2E_FILES = ['test/e2e/**/*.test.ts']

/**
 * Files about a process itself, left to `npm run test:bundle` (run by .ci/run): the GitLab
 * component's script, run by bash, which starts the command; local-action's run of the steps;
 * the fake API's own command (`npm run fake-api`), started and stopped by its signals.
 */
export const PROCESS_FILES = [
  'test/e2e/gitlab-component.test.ts',
  'test/e2e/local-action.test.ts',
  'test/fake-api/cli.test.ts',
]

const CORES = availableParallelism()

/**
 * How many tests of one end-to-end file run at once: three per core. A test mostly waits on
 * its step's timers, but every step is a Node process that needs ~100 ms of CPU to start,
 * and a step starved of the CPU misses the deadlines it is tested against (the runner's
 * grace, a timeout). Ten per file, four files at once, failed 59 tests on a loaded 2-core
 * machine.
 */
export const E2E_CONCURRENCY = CORES * 3

/**
 * `npm test` runs the end-to-end steps in-process (test/e2e/harness.ts): a step costs no
 * process, only its share of one event loop, and mostly waits on its fakes' timers.
 */
const IN_PROCESS_CONCURRENCY = 24

/**
 * With no step processes, the end-to-end files mostly wait on deadlines (GitHub's, the
 * cancel's: up to 18 s a test) and the unit files compute: more files at once than cores, so
 * that the files with the longest waits all start first (EndToEndFirst) and wait side by side
 * while the rest share the cores.
 */
const IN_PROCESS_WORKERS = CORES * 4

/** What every vitest config here shares. */
export const COMMON = {
  // One file per core: the tests of an end-to-end file already run at once (above).
  maxWorkers: CORES,
  testTimeout: 20_000,
  hookTimeout: 20_000,
  reporters: ['default', './test/support/closing-line-reporter.ts'],
  // The tests load as the sources' entries do: by Node itself, its types stripped (no `enum`,
  // no parameter property: tsconfig's erasableSyntaxOnly), with no Vite transform and no
  // module runner between a worker and its modules. No test mocks a module (vi.mock).
  experimental: { viteModuleRunner: false, nodeLoader: false },
}

/**
 * `npm test`: unit, integration and end-to-end tests, the end-to-end ones running the
 * TypeScript sources in-process (see test/e2e/harness.ts). The bundle, load and soak runs
 * have their own configs (vitest.bundle.config.ts, vitest.load.config.ts), run by .ci/run.
 *
 * One project, so that a worker runs any file after any other: with the unit and end-to-end
 * files in two, a worker was ended and a new one started (its Node, its modules loaded again)
 * each time the next file was of the other project, 23 workers in a run where 8 now serve.
 * An end-to-end file's tests run at once by its own `describe` and `it` (test/e2e/concurrent.ts),
 * a unit file's in turn.
 */
export default defineConfig({
  test: {
    ...COMMON,
    include: ['test/**/*.test.ts'],
    exclude: ['test/load/**', 'test/bundle/**', ...PROCESS_FILES],
    maxWorkers: IN_PROCESS_WORKERS,
    sequence: { sequencer: EndToEndFirst },
    // Half the unit files' CPU went to a fresh module graph per file. No module of src/ or
    // test/ keeps state at module level, so the files of a worker share one.
    isolate: false,
    globalSetup: ['test/e2e/compile-cache.ts'],
    maxConcurrency: IN_PROCESS_CONCURRENCY,
    // A safety net for an end-to-end test on a machine loaded by others, not a budget.
    testTimeout: 60_000,
  },
})
