/**
 * What may stand at the repository's root: each tracked entry is named here with what it is
 * for, so a stray (an empty file left by a shell redirect, a scratch script) fails the suite.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

const ALLOWED: Record<string, string> = {
  '.ci': "the CI's one script",
  '.env.example': 'the variables the demo and the local run read',
  '.gitattributes': 'dist/ marked generated',
  '.github': 'workflows, dependabot, templates',
  '.gitignore': 'what git leaves out',
  '.gitlab-ci.yml': "the GitLab pipeline's own CI",
  '.npmrc': "npm's settings",
  '.prettierignore': 'what prettier leaves alone',
  '.prettierrc.json': "prettier's settings",
  'BENCHMARKS.md': 'what was measured',
  'CHANGELOG.md': 'the releases',
  'CONTRIBUTING.md': 'where things are, and how to work on them',
  LICENSE: 'the license',
  'README.md': 'the front page',
  'SECURITY.md': 'how to report a vulnerability',
  'action.yml': 'the main action',
  dist: 'the bundle the actions run',
  docs: 'the documentation',
  'eslint.config.js': "lint's rules",
  examples: 'workflows to copy',
  'knip.json': "knip's settings",
  'package-lock.json': 'the locked dependencies',
  'package.json': 'the package',
  reconcile: 'the reconcile action',
  report: 'the report action',
  scripts: 'the build, the docs and the benches',
  src: 'the sources',
  templates: 'the GitLab CI/CD component',
  test: 'the tests',
  'tsconfig.json': "TypeScript's settings",
  vendor: 'the stand-ins for undici and @actions/exec',
  'vitest.bundle.config.ts': 'the bundle suite',
  'vitest.config.ts': '`npm test`',
  'vitest.load.config.ts': 'the load and soak suite',
}

describe('the repository root', () => {
  it('holds only what is named above: no stray file', () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((path) => path !== '')
    const entries = [...new Set(tracked.map((path) => path.split('/')[0] ?? ''))].sort()
    expect(entries.filter((entry) => !(entry in ALLOWED))).toEqual([])
  })
})
