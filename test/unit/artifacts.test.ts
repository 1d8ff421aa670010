import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { artifactMatcher, artifactsToDownload } from '../../src/agent/artifact-match.ts'
import {
  artifactsOutput,
  defaultArtifactsDir,
  parseArtifactPatterns,
  parseArtifacts,
  planDownloads,
  safeArtifactPath,
  taskFolderName,
} from '../../src/agent/artifacts.ts'

const file = (filepath: string, uid = `uid-${filepath}`) => ({
  artifact_type: 'FILE',
  created_at: '2026-01-01T00:00:00Z',
  data: {
    artifact_uid: uid,
    filepath,
    filename: filepath.split('/').pop(),
    mime_type: 'text/plain',
  },
})

const RUN_ARTIFACTS = [
  {
    artifact_type: 'PULL_REQUEST',
    data: { url: 'https://github.com/o/r/pull/7', branch: 'fix/flaky' },
  },
  file('review.json'),
  file('reports/coverage/summary.md'),
  {
    artifact_type: 'SCREENSHOT',
    data: { artifact_uid: 'shot-1', mime_type: 'image/png', description: 'Login page' },
  },
  {
    artifact_type: 'PLAN',
    data: { document_uid: 'd1', title: 'Plan', url: 'https://app.example.com/plan/d1' },
  },
  { artifact_type: 'SOMETHING_NEW', data: { whatever: true } },
]

describe('parseArtifacts and the artifacts output', () => {
  it('lists every artifact with type, name and url', () => {
    const artifacts = parseArtifacts(RUN_ARTIFACTS)
    expect(artifactsOutput(artifacts)).toEqual([
      { type: 'PULL_REQUEST', name: 'fix/flaky', url: 'https://github.com/o/r/pull/7' },
      { type: 'FILE', name: 'review.json' },
      { type: 'FILE', name: 'summary.md' },
      { type: 'SCREENSHOT', name: 'Login page' },
      { type: 'PLAN', name: 'Plan', url: 'https://app.example.com/plan/d1' },
      { type: 'SOMETHING_NEW' },
    ])
  })

  it('adds the local path of a downloaded file', () => {
    const artifacts = parseArtifacts(RUN_ARTIFACTS)
    const review = artifacts[1]
    if (!review) throw new Error('no review artifact')
    const output = artifactsOutput(artifacts, new Map([[review, '/tmp/a/review.json']]))
    expect(output[1]).toEqual({ type: 'FILE', name: 'review.json', path: '/tmp/a/review.json' })
  })

  it('drops urls that are not http(s), and survives garbage', () => {
    expect(
      parseArtifacts([{ artifact_type: 'PULL_REQUEST', data: { url: 'javascript:alert(1)' } }]),
    ).toEqual([{ type: 'PULL_REQUEST' }])
    for (const garbage of [null, 'x', {}, [null, 1, 'x', { data: 'x' }, { artifact_type: 5 }]]) {
      expect(() => artifactsOutput(parseArtifacts(garbage))).not.toThrow()
    }
  })
})

describe('download_artifacts patterns', () => {
  it('splits lines and commas and drops blanks', () => {
    expect(parseArtifactPatterns(' a.json ,\n\n b/** \r\n')).toEqual(['a.json', 'b/**'])
    expect(parseArtifactPatterns('')).toEqual([])
  })

  it('refuses exclusions and control characters', () => {
    expect(() => parseArtifactPatterns('!x')).toThrow(/exclude/)
    expect(() => parseArtifactPatterns('a\u0000b')).toThrow(/control/)
  })

  it('matches * within a folder, ** across folders, and bare names in any folder', () => {
    const cases: Array<[string, string, boolean]> = [
      ['review.json', 'review.json', true],
      ['review.json', 'out/review.json', true],
      ['*.json', 'out/deep/x.json', true],
      ['out/*.json', 'out/x.json', true],
      ['out/*.json', 'out/deep/x.json', false],
      ['out/**/*.json', 'out/deep/x.json', true],
      ['**', '.hidden/file', true],
      ['reports/**', 'reports/a/b/c.md', true],
      ['reports/**', 'other/a.md', false],
      ['*.md', 'review.json', false],
    ]
    for (const [pattern, filepath, expected] of cases) {
      expect([pattern, filepath, artifactMatcher([pattern])(filepath)]).toEqual([
        pattern,
        filepath,
        expected,
      ])
    }
    expect(artifactMatcher(['out/*.json'])('.\\out\\x.json')).toBe(true)
  })

  it('picks only FILE artifacts that match', () => {
    const picked = artifactsToDownload(parseArtifacts(RUN_ARTIFACTS), [
      '**/*.md',
      'review.json',
      'Login*',
    ])
    expect(picked.map((artifact) => artifact.filepath)).toEqual([
      'review.json',
      'reports/coverage/summary.md',
    ])
    expect(artifactsToDownload(parseArtifacts(RUN_ARTIFACTS), [])).toEqual([])
  })
})

describe('safeArtifactPath', () => {
  const dir = resolve('/tmp/artifacts')

  it('places a relative path inside the directory', () => {
    expect(safeArtifactPath(dir, 'reports/a.md')).toEqual({
      ok: true,
      path: join(dir, 'reports', 'a.md'),
    })
    expect(safeArtifactPath(dir, './a//b.txt')).toEqual({ ok: true, path: join(dir, 'a', 'b.txt') })
  })

  const HOSTILE: Record<string, string> = {
    'parent folder': '../escape.txt',
    'parent folder, deeper': 'a/b/../../../escape.txt',
    'parent folder, backslashes': '..\\..\\escape.txt',
    absolute: '/etc/passwd',
    'absolute, backslash': '\\Windows\\System32\\x.dll',
    UNC: '\\\\server\\share\\x',
    'drive letter': 'C:\\Windows\\x.dll',
    'drive-relative': 'C:x.txt',
    NUL: 'a\u0000.txt',
    'control character': 'a\u0007.txt',
    'reserved name': 'CON',
    'reserved name with extension': 'out/nul.txt',
    'reserved COM port': 'com1.log',
    'alternate data stream': 'file.txt:hidden',
    'trailing dot': 'evil.',
    'trailing space': 'evil ',
    empty: '',
    'only dots and slashes': './/.',
    'into .git': '.git/config',
    'into .git, deeper and in capitals': 'sub/.GIT/hooks/pre-commit',
    'into .git, backslashes': '.git\\hooks\\post-checkout',
  }
  for (const [name, filepath] of Object.entries(HOSTILE)) {
    it(`refuses: ${name}`, () => {
      const placed = safeArtifactPath(dir, filepath)
      expect(placed.ok).toBe(false)
    })
  }

  it('gives a reason a person can act on', () => {
    expect(safeArtifactPath(dir, '../x')).toEqual({
      ok: false,
      reason: 'it climbs out of the directory with ".."',
    })
  })
})

describe('planDownloads', () => {
  it('refuses unsafe names and a second file for the same place', () => {
    const artifacts = parseArtifacts([file('a.txt'), file('../b.txt'), file('A.TXT', 'other')])
    const plan = planDownloads('/tmp/d', artifacts)
    expect(plan.map((entry) => ('path' in entry ? entry.path : entry.refused))).toEqual([
      resolve('/tmp/d/a.txt'),
      'it climbs out of the directory with ".."',
      'another artifact has the same path',
    ])
  })
})

describe('defaultArtifactsDir', () => {
  it('is under RUNNER_TEMP, and a hostile run ID cannot climb out of it', () => {
    expect(defaultArtifactsDir('/runner/tmp', 'run-1')).toBe(
      resolve('/runner/tmp/cloud-agent-artifacts/run-1'),
    )
    expect(defaultArtifactsDir('/runner/tmp', '..')).toBe(
      resolve('/runner/tmp/cloud-agent-artifacts/__'),
    )
    expect(defaultArtifactsDir('/runner/tmp', '../../x')).toBe(
      resolve('/runner/tmp/cloud-agent-artifacts/______x'),
    )
  })
})

describe('taskFolderName', () => {
  it('is the task number from 1, then the title as a safe, bounded slug', () => {
    expect(taskFolderName(0, 'Package a')).toBe('1-package-a')
    expect(taskFolderName(2, 'Crème brûlée: the API!')).toBe('3-creme-brulee-the-api')
    expect(taskFolderName(4, undefined)).toBe('5')
    expect(taskFolderName(4, '')).toBe('5')
    // Nothing of a hostile title survives but letters, digits and dashes.
    expect(taskFolderName(1, '../../.git/hooks')).toBe('2-git-hooks')
    expect(taskFolderName(1, 'C:\\CON\u0000')).toBe('2-c-con')
    expect(taskFolderName(1, '日本語')).toBe('2')
    const long = taskFolderName(9, 'word '.repeat(40))
    expect(long.length).toBeLessThanOrEqual(3 + 40)
    expect(long).toMatch(/^10-(word-)*word$/)
  })
})
