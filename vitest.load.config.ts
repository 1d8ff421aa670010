import { defineConfig } from 'vitest/config'
import { COMMON } from './vitest.config.ts'

/** `npm run test:load`: the load and soak tests, against the committed bundle, one at a time. */
export default defineConfig({
  test: {
    ...COMMON,
    include: ['test/load/**/*.test.ts'],
    env: { ACTION_UNDER_TEST: 'bundle' },
    maxWorkers: 1,
  },
})
