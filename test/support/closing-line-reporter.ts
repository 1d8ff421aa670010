/**
 * Ends every vitest run with one plain line, `tests: N passed, N failed, N skipped`,
 * which CI reads, after a line naming what the steps ran from (the sources, in-process or
 * as processes, or the bundle, and which Node). A skipped or todo test fails the run, unless a name
 * filter (-t) chose the tests: nothing here may be skipped.
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node'

export default class ClosingLineReporter implements Reporter {
  #filtered = false
  #target = 'in-process'

  onInit(vitest: Vitest): void {
    this.#filtered = Boolean(vitest.config.testNamePattern)
    // The bundle and load configs set ACTION_UNDER_TEST for the test workers only.
    this.#target =
      vitest.config.env?.ACTION_UNDER_TEST ?? process.env.ACTION_UNDER_TEST ?? 'in-process'
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 }
    for (const module of testModules)
      for (const test of module.children.allTests()) counts[test.result().state] += 1
    const skipped = counts.skipped + counts.pending
    const node = process.env.ACTION_NODE ?? `Node ${process.version}`
    const from =
      this.#target === 'in-process' ? 'in-process, from the sources' : `from the ${this.#target}`
    console.log(`\nSteps ran ${from}, on ${node}.`)
    if (skipped > 0 && !this.#filtered) {
      console.log(`${skipped} test(s) skipped: a test here must run or be deleted.`)
      process.exitCode = 1
    }
    console.log(`tests: ${counts.passed} passed, ${counts.failed} failed, ${skipped} skipped`)
  }
}
