/**
 * `node scripts/release.ts check vX.Y.Z`: whether this checkout is the release vX.Y.Z, before
 * anything is published: package.json's version is X.Y.Z, CHANGELOG.md has its dated section, the
 * npm package holds what the command needs, and the GitLab component pins the same version.
 * `node scripts/release.ts notes vX.Y.Z`: that CHANGELOG section, as the GitHub release's notes.
 * release.yml runs both; test/release.test.ts runs them on every change (the dry run).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const TAG = /^v(\d+\.\d+\.\d+)$/

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
  if (!version) return [`The tag "${tag}" is not vMAJOR.MINOR.PATCH.`]
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
    const notes = releaseNotes(
      readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'),
      tag.replace(/^v/, ''),
    )
    if (notes === undefined) {
      console.error(`CHANGELOG.md has no section for ${tag}.`)
      process.exitCode = 1
    } else console.log(notes)
  } else {
    console.error('usage: node scripts/release.ts check|notes vX.Y.Z')
    process.exitCode = 2
  }
}
