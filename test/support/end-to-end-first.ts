import { basename } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The end-to-end files whose tests wait longest (GitHub's call deadlines, the post step's
 * search, the service unreachable for good), longest first. On a fresh clone vitest has no
 * timings and orders files by size, and a small file with long waits that starts last
 * lengthens the whole run by its waits (reliability.test.ts: 10 s).
 */
const LONGEST_WAITS = [
  'reliability-hostile.test.ts',
  'reliability-answers.test.ts',
  'reliability-runs.test.ts',
  'reliability.test.ts',
  'agent-work.test.ts',
  'pull-requests.test.ts',
]

/**
 * `npm test`'s file order: the end-to-end files, those above first and in their order, to
 * wait side by side; then the other files (they compute) in vitest's own order (the longest
 * last time first; by size with no timings), in the workers the shorter waits leave.
 */
export class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification) => {
      if (file.project.name !== 'e2e') return LONGEST_WAITS.length + 1
      const listed = LONGEST_WAITS.indexOf(basename(file.moduleId))
      return listed === -1 ? LONGEST_WAITS.length : listed
    }
    // Array.prototype.sort is stable: within a rank, vitest's order stays.
    return [...sorted].sort((a, b) => rank(a) - rank(b))
  }
}
