/**
 * The release, dry-run on every change: what release.yml checks before a tag becomes a draft
 * release (scripts/release.ts) holds for this checkout at package.json's version, and refuses a
 * tag that is not it. The tarball it packs, two npm processes, is checked with the package in
 * `npm run test:bundle` (test/bundle/release-pack.test.ts).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { notesWithPin, releaseNotes, releaseProblems } from '../scripts/release.ts'
import { ROOT } from './e2e/harness.ts'

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string
}

describe('the release (scripts/release.ts, run by release.yml)', () => {
  it("this checkout may be released at package.json's version: its CHANGELOG section, dist/ and the component agree", () => {
    expect(releaseProblems(version)).toEqual([])
  })

  it('refuses a tag that is not the version, or not a version at all', () => {
    expect(releaseProblems('99.0.0').join('\n')).toMatch(/package\.json says .*bump it/)
    expect(releaseProblems('99.0.0').join('\n')).toMatch(/no section "## 99\.0\.0/)
    // One tag scheme: plain semver, which the GitLab Catalog takes and GitHub's uses: names too.
    for (const tag of ['latest', `v${version}`]) {
      expect(releaseProblems(tag)).toEqual([
        `The tag "${tag}" is not MAJOR.MINOR.PATCH (plain semver, no v).`,
      ])
    }
  })

  it("gives the release's notes: its CHANGELOG section, up to the next", () => {
    const changelog =
      '# Changelog\n\n## 2.0.0 (2026-12-01)\n\n- New.\n\n## 1.0.0 (2026-01-01)\n\n- Old.\n'
    expect(releaseNotes(changelog, '2.0.0')).toBe('- New.')
    expect(releaseNotes(changelog, '1.0.0')).toBe('- Old.')
    expect(releaseNotes(changelog, '1.5.0')).toBeUndefined()
  })

  it("heads the notes with the release commit's SHA, as a pinned uses: line", () => {
    const sha = 'a'.repeat(40)
    const notes = notesWithPin('- New.', sha, '1.3.0', 'octo-org/cloud-agent-run-action')
    expect(notes).toContain(`- uses: octo-org/cloud-agent-run-action@${sha} # 1.3.0`)
    expect(notes.endsWith('\n- New.')).toBe(true)
  })

  it('the docs show both ways in: a pinned SHA beside @v1, and the release tarball beside npm', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(readme).toContain('octo-org/cloud-agent-run-action@v1')
    expect(readme).toMatch(/octo-org\/cloud-agent-run-action@<sha> # \d+\.\d+\.\d+/)
    const cli = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')
    expect(cli).toMatch(/npx cloud-agent-run@1\b/)
    expect(cli).toMatch(
      /npx --yes https:\/\/github\.com\/octo-org\/cloud-agent-run-action\/releases\/download\/(\d+\.\d+\.\d+)\/cloud-agent-run-\1\.tgz/,
    )
    const workflow = readFileSync(join(ROOT, '.github', 'workflows', 'release.yml'), 'utf8')
    expect(workflow).toMatch(/gh release create [^\n]*--draft[\s\S]*"\$tarball"/)
  })
})
