/**
 * A release is one tag, X.Y.Z (plain semver: the GitLab CI/CD Catalog refuses a `v`), which
 * GitHub's `uses:`, GitLab's `component:` and `include:`, and the raw URLs all name.
 * `node scripts/release.ts check X.Y.Z`: whether this checkout is the release X.Y.Z, before
 * anything is published: package.json's version is X.Y.Z, CHANGELOG.md has its dated section, the
 * npm package holds what the command needs, and the GitLab component pins the same version.
 * `node scripts/release.ts notes X.Y.Z`: that CHANGELOG section, as the GitHub release's notes,
 * after the release commit's SHA to pin by.
 * `node scripts/release.ts pack DIR`: the npm package as a tarball in DIR (its path on stdout),
 * its package.json without the development scripts and dependencies, attached to the release.
 * release.yml runs them; test/release.test.ts runs them on every change (the dry run).
 */
import { execFileSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const TAG = /^(\d+\.\d+\.\d+)$/

/** The CHANGELOG section of `version`, without its heading; undefined when there is none. */
export function releaseNotes(changelog: string, version: string): string | undefined {
  const heading = new RegExp(
    `^## ${version.replace(/\./g, '\\.')} \\(\\d{4}-\\d{2}-\\d{2}\\)$`,
    'm',
  )
  const found = heading.exec(changelog)
  if (!found) return undefined
  const rest = changelog.slice(found.index + found[0].length)
  const next = rest.search(/^## /m)
  return (next < 0 ? rest : rest.slice(0, next)).trim()
}

/** What is wrong with releasing this checkout as `tag`: one line each; none when it may go. */
export function releaseProblems(tag: string, root = ROOT): string[] {
  const version = TAG.exec(tag)?.[1]
  if (!version) return [`The tag "${tag}" is not MAJOR.MINOR.PATCH (plain semver, no v).`]
  const problems: string[] = []
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    version: string
    files: string[]
  }
  if (manifest.version !== version) {
    problems.push(`package.json says ${manifest.version}, the tag ${tag}: bump it and tag again.`)
  }
  if (!releaseNotes(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), version)) {
    problems.push(
      `CHANGELOG.md has no section "## ${version} (YYYY-MM-DD)": write it and tag again.`,
    )
  }
  for (const file of ['dist/cli.js', 'dist/index.js', 'dist/inputs.json', 'action.yml']) {
    if (!existsSync(join(root, file))) problems.push(`${file} is missing: the package needs it.`)
  }
  const component = join(root, 'templates', 'cloud-agent-run.yml')
  const pinned = existsSync(component)
    ? /^ {4}version:\n(?: {6}.*\n)*? {6}default: (\S+)$/m.exec(readFileSync(component, 'utf8'))?.[1]
    : version
  if (pinned !== version) {
    problems.push(
      `templates/cloud-agent-run.yml pins the command at ${pinned ?? 'no version'}, not ${version}.`,
    )
  }
  return problems
}

/**
 * The release's notes: the commit to pin by (organisations may require actions pinned by full
 * commit SHA), then the CHANGELOG section.
 */
export function notesWithPin(
  notes: string,
  sha: string,
  version: string,
  repository: string,
): string {
  return [
    `The release's commit is \`${sha}\`. Pin it where a workflow must name a full commit SHA:`,
    '',
    '```yaml',
    `- uses: ${repository}@${sha} # ${version}`,
    '```',
    '',
    notes,
  ].join('\n')
}

/** The package's manifest as it is installed: no scripts or tools of this repository's own. */
function packedManifest(manifest: Record<string, unknown>): Record<string, unknown> {
  const development = new Set(['scripts', 'devDependencies', 'devEngines'])
  return Object.fromEntries(Object.entries(manifest).filter(([key]) => !development.has(key)))
}

/**
 * Packs the npm package into `destination` and returns the tarball's path: the files `npm pack`
 * would take, with the installed manifest (packedManifest), so that installing it runs nothing
 * and warns of nothing (the repository's `prepare` is a development hook).
 */
export function pack(destination: string, root = ROOT): string {
  const listed = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
  })
  const [dryRun] = JSON.parse(listed) as { files: { path: string }[] }[]
  const stage = mkdtempSync(join(tmpdir(), 'cloud-agent-run-pack-'))
  try {
    for (const { path } of dryRun?.files ?? []) {
      mkdirSync(dirname(join(stage, path)), { recursive: true })
      cpSync(join(root, path), join(stage, path))
    }
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >
    writeFileSync(
      join(stage, 'package.json'),
      `${JSON.stringify(packedManifest(manifest), null, 2)}\n`,
    )
    mkdirSync(destination, { recursive: true })
    const out = execFileSync(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', resolve(destination)],
      { cwd: stage, encoding: 'utf8' },
    )
    const [packed] = JSON.parse(out) as { filename: string }[]
    return join(resolve(destination), packed?.filename ?? '')
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [verb, tag = ''] = process.argv.slice(2)
  if (verb === 'check') {
    const problems = releaseProblems(tag)
    for (const problem of problems) console.error(`::error::${problem}`)
    if (problems.length === 0) {
      // What npm would publish, for the log: the package is dist/ and action.yml, nothing more.
      const packed = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: ROOT,
        encoding: 'utf8',
      })
      const [pack] = JSON.parse(packed) as { files: { path: string }[] }[]
      console.log(`${tag} may be released: the package holds ${pack?.files.length ?? 0} files.`)
    }
    process.exitCode = problems.length === 0 ? 0 : 1
  } else if (verb === 'notes') {
    const version = tag.replace(/^v/, '')
    const notes = releaseNotes(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'), version)
    if (notes === undefined) {
      console.error(`CHANGELOG.md has no section for ${tag}.`)
      process.exitCode = 1
    } else {
      const sha = execFileSync('git', ['rev-parse', 'HEAD^{commit}'], {
        cwd: ROOT,
        encoding: 'utf8',
      }).trim()
      const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        repository: { url: string }
      }
      const repository = /github\.com\/([^/]+\/[^/.]+)/.exec(manifest.repository.url)?.[1] ?? ''
      console.log(notesWithPin(notes, sha, version, repository))
    }
  } else if (verb === 'pack') {
    console.log(pack(tag || '.'))
  } else {
    console.error('usage: node scripts/release.ts check|notes X.Y.Z, or pack DIR')
    process.exitCode = 2
  }
}
