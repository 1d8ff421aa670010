import { defineConfig } from 'vitest/config'
import { COMMON, E2E_CONCURRENCY, E2E_FILES, PROCESS_FILES } from './vitest.config.ts'

/**
 * `npm run test:bundle`: the end-to-end tests against the committed dist/, as the
 * runner runs it (ACTION_NODE picks another Node), the tests about a process (PROCESS_FILES),
 * and the checks of the bundle itself.
 */
export default defineConfig({
  test: {
    ...COMMON,
    include: [...E2E_FILES, ...PROCESS_FILES, 'test/bundle/**/*.test.ts'],
    env: { ACTION_UNDER_TEST: 'bundle' },
    sequence: { concurrent: true },
    maxConcurrency: E2E_CONCURRENCY,
    testTimeout: 60_000,
  },
})
