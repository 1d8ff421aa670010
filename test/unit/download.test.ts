import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseArtifacts, planDownloads, type ArtifactEntry } from '../../src/agent/artifacts.ts'
import { downloadArtifacts, type DownloadDeps } from '../../src/agent/download.ts'

const file = (filepath: string) => ({
  artifact_type: 'FILE',
  data: { artifact_uid: `uid:${filepath}`, filepath, filename: 'x', mime_type: 'text/plain' },
})

let scratch: string
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'download-test-'))
})
afterEach(() => rmSync(scratch, { recursive: true, force: true }))

/** Lists every file and folder under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()
}

function deps(fetchFile: DownloadDeps['fetchFile']) {
  const warnings: string[] = []
  const infos: string[] = []
  return {
    warnings,
    infos,
    deps: {
      fetchFile,
      warning: (message: string) => warnings.push(message),
      info: (message: string) => infos.push(message),
      safeForLog: String,
      signal: new AbortController().signal,
      roots: [scratch],
    } satisfies DownloadDeps,
  }
}

const contentsOf = async (artifact: ArtifactEntry) =>
  new TextEncoder().encode(`contents of ${artifact.filepath}`)

describe('downloadArtifacts', () => {
  it('writes matching files under the directory, keeping their folders', async () => {
    const dir = join(scratch, 'out')
    const artifacts = parseArtifacts([file('review.json'), file('reports/a/summary.md')])
    const { deps: d, warnings } = deps(contentsOf)
    const written = await downloadArtifacts(dir, planDownloads(dir, artifacts), d)
    expect(warnings).toEqual([])
    expect(readFileSync(join(dir, 'review.json'), 'utf8')).toBe('contents of review.json')
    expect(readFileSync(join(dir, 'reports/a/summary.md'), 'utf8')).toBe(
      'contents of reports/a/summary.md',
    )
    expect([...written.values()]).toEqual([
      join(dir, 'review.json'),
      join(dir, 'reports/a/summary.md'),
    ])
    expect(tree(dir)).toEqual(['reports', 'reports/a', 'reports/a/summary.md', 'review.json'])
  })

  it('refuses a traversal with a warning, writes nothing for it, and goes on', async () => {
    const dir = join(scratch, 'out')
    const artifacts = parseArtifacts([file('../../escaped.txt'), file('/etc/evil'), file('ok.txt')])
    const { deps: d, warnings } = deps(contentsOf)
    await downloadArtifacts(dir, planDownloads(dir, artifacts), d)
    expect(warnings).toEqual([
      'Not downloading artifact "../../escaped.txt": it climbs out of the directory with ".."; nothing was written.',
      'Not downloading artifact "/etc/evil": it is an absolute path; nothing was written.',
    ])
    expect(tree(scratch)).toEqual(['out', 'out/ok.txt'])
  })

  it('does not write through a symbolic link in the directory', async () => {
    const dir = join(scratch, 'out')
    const outside = join(scratch, 'outside')
    mkdirSync(dir)
    mkdirSync(outside)
    symlinkSync(outside, join(dir, 'linked'))
    const artifacts = parseArtifacts([file('linked/sub/x.txt'), file('linked/y.txt')])
    const { deps: d, warnings } = deps(contentsOf)
    const written = await downloadArtifacts(dir, planDownloads(dir, artifacts), d)
    expect(written.size).toBe(0)
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toMatch(/not a plain folder/)
    expect(tree(outside)).toEqual([])
  })

  it("replaces a link at the file's own name instead of writing through it", async () => {
    const dir = join(scratch, 'out')
    const target = join(scratch, 'precious.txt')
    mkdirSync(dir)
    symlinkSync(target, join(dir, 'review.json'))
    const { deps: d } = deps(contentsOf)
    await downloadArtifacts(dir, planDownloads(dir, parseArtifacts([file('review.json')])), d)
    expect(existsSync(target)).toBe(false)
    expect(readFileSync(join(dir, 'review.json'), 'utf8')).toBe('contents of review.json')
  })

  it('warns about a download that fails, and keeps the others', async () => {
    const dir = join(scratch, 'out')
    const artifacts = parseArtifacts([file('a.txt'), file('b.txt')])
    const { deps: d, warnings } = deps(async (artifact) => {
      if (artifact.filepath === 'a.txt') throw new Error('signed URL expired (403)')
      return contentsOf(artifact)
    })
    const written = await downloadArtifacts(dir, planDownloads(dir, artifacts), d)
    expect(warnings).toEqual(['Could not download artifact "a.txt": signed URL expired (403)'])
    expect(tree(dir)).toEqual(['b.txt'])
    expect(written.size).toBe(1)
  })

  it('refuses a directory outside the roots, or reached through a link, or in .git', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'download-outside-'))
    mkdirSync(join(scratch, '.git'))
    symlinkSync(outside, join(scratch, 'reports'))
    symlinkSync(join(scratch, '.git'), join(scratch, 'agent-out'))
    const artifacts = parseArtifacts([file('config')])
    const cases: Array<[string, RegExp]> = [
      [join(outside, 'out'), /is outside the workspace and RUNNER_TEMP/],
      [join(scratch, 'reports', 'agent'), /reports is not a plain folder/],
      [join(scratch, 'agent-out'), /agent-out is not a plain folder/],
      [join(scratch, '.git', 'hooks'), /is inside \.git/],
      [join(scratch, 'a', '..', '.GIT'), /is inside \.git/],
    ]
    for (const [dir, reason] of cases) {
      const { deps: d } = deps(contentsOf)
      await expect(downloadArtifacts(dir, planDownloads(dir, artifacts), d), dir).rejects.toThrow(
        reason,
      )
    }
    expect(tree(outside)).toEqual([])
    expect(tree(join(scratch, '.git'))).toEqual([])
    rmSync(outside, { recursive: true, force: true })
  })

  it('makes no directory when there is nothing to download', async () => {
    const dir = join(scratch, 'out')
    const { deps: d } = deps(contentsOf)
    await downloadArtifacts(dir, [], d)
    expect(existsSync(dir)).toBe(false)
  })
})
