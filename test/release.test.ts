/**
 * The release, dry-run on every change: what release.yml checks before a tag becomes a draft
 * release (scripts/release.ts) holds for this checkout at package.json's version, and refuses a
 * tag that is not it.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { releaseNotes, releaseProblems } from '../scripts/release.ts'
import { ROOT } from './e2e/harness.ts'

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string
}

describe('the release (scripts/release.ts, run by release.yml)', () => {
  it("this checkout may be released at package.json's version: its CHANGELOG section, dist/ and the component agree", () => {
    expect(releaseProblems(`v${version}`)).toEqual([])
  })

  it('refuses a tag that is not the version, or not a version at all', () => {
    expect(releaseProblems('v99.0.0').join('\n')).toMatch(/package\.json says .*bump it/)
    expect(releaseProblems('v99.0.0').join('\n')).toMatch(/no section "## 99\.0\.0/)
    expect(releaseProblems('latest')).toEqual(['The tag "latest" is not vMAJOR.MINOR.PATCH.'])
  })

  it("gives the release's notes: its CHANGELOG section, up to the next", () => {
    const changelog =
      '# Changelog\n\n## 2.0.0 (2026-12-01)\n\n- New.\n\n## 1.0.0 (2026-01-01)\n\n- Old.\n'
    expect(releaseNotes(changelog, '2.0.0')).toBe('- New.')
    expect(releaseNotes(changelog, '1.0.0')).toBe('- Old.')
    expect(releaseNotes(changelog, '1.5.0')).toBeUndefined()
  })
})
