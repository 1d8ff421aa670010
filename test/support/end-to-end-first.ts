import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * `npm test`'s file order: the end-to-end files first, then vitest's own order (the
 * longest last time first; by size on a fresh clone, which has no timings). The
 * end-to-end files hold the long waits, and on a fresh clone the unit files, larger,
 * would otherwise take the workers first and leave those waits to start late.
 */
export class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const endToEnd = (file: TestSpecification) => file.project.name === 'e2e'
    return [...sorted.filter(endToEnd), ...sorted.filter((file) => !endToEnd(file))]
  }
}
