import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files that take longest, longest first, end-to-end or not: most wait (GitHub's
 * call deadlines, the post step's search, a create that hangs to its floor), a few compute
 * (the linear-text groups, 520 runs of a set). On a fresh clone vitest has no timings and
 * orders files by size, and a small file with long waits that starts last lengthens the whole
 * run by its waits (reliability.test.ts: 10 s; set-run.test.ts and release.test.ts's `npm
 * pack`, now in the bundle suite, started last, added 15 s). Paths from test/.
 */
const LONGEST = [
  'e2e/reliability-hostile.test.ts',
  'e2e/reliability-answers.test.ts',
  'integration/set-run.test.ts',
  'e2e/reliability-runs.test.ts',
  'e2e/reliability.test.ts',
  'e2e/cli-owns-runs.test.ts',
  'unit/linear-text.test.ts',
  'e2e/steer.test.ts',
  // The checks that read the code with TypeScript, ESLint or OpenAPI's tools: their time goes to
  // loading and warming those tools as the file is imported, outside the tests' duration that
  // vitest orders by, so its order ran them last, alone at the end of the run (8 s of it).
  'troubleshooting.test.ts',
  'layers.test.ts',
  'contract/contract.test.ts',
  'contract/wire-types.test.ts',
  'engine.test.ts',
  'examples.test.ts',
  'gitlab-ci.test.ts',
  'dependabot.test.ts',
  'docs.test.ts',
  'integration/tagged-runs.test.ts',
  'fake-api/server.test.ts',
  'e2e/agent-work.test.ts',
  'e2e/tasks.test.ts',
  'e2e/pull-requests.test.ts',
  'engines.test.ts',
  'integration/gitlab-note.test.ts',
]

/**
 * `npm test`'s file order: those above first and in their order, to wait side by side; then
 * the end-to-end files, then the others (they compute) in vitest's own order (the longest
 * last time first; by size with no timings), in the workers the waits leave.
 */
export class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification) => {
      const listed = LONGEST.findIndex((path) => file.moduleId.endsWith(`/test/${path}`))
      if (listed !== -1) return listed
      return file.moduleId.includes('/test/e2e/') ? LONGEST.length : LONGEST.length + 1
    }
    // Array.prototype.sort is stable: within a rank, vitest's order stays.
    return [...sorted].sort((a, b) => rank(a) - rank(b))
  }
}
