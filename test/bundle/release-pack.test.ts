/**
 * The npm tarball the release attaches (scripts/release.ts's pack, run by release.yml): two npm
 * processes, so it is checked here with the published package (package.test.ts), in
 * `npm run test:bundle`, and not in `npm test`.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pack } from '../../scripts/release.ts'
import { ROOT } from '../e2e/harness.ts'

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string
}

describe('the release (scripts/release.ts, run by release.yml)', () => {
  // Two npm processes: 5 s on a loaded machine, near 30 s beside other suites. The bound is for a
  // broken npm, not a window this test measures.
  it(
    'packs the npm tarball the release attaches: its package.json keeps no development script',
    {
      timeout: 90_000,
    },
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'release-pack-'))
      const tarball = pack(dir)
      expect(tarball).toMatch(new RegExp(`cloud-agent-run-${version.replace(/\./g, '\\.')}\\.tgz$`))
      const listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n')
      expect(listed).toContain('package/dist/cli.js')
      expect(listed).toContain('package/action.yml')
      const manifest = JSON.parse(
        execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
      ) as Record<string, unknown>
      expect(manifest).not.toHaveProperty('scripts')
      expect(manifest).not.toHaveProperty('devDependencies')
      expect(manifest).toMatchObject({
        name: 'cloud-agent-run',
        version,
        bin: { 'cloud-agent-run': 'dist/cli.js' },
      })
    },
  )
})
