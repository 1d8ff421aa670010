/**
 * CI: fails when any `undici` dependency edge resolves past vendor/no-undici, the stand-in for
 * undici, which the action does not use (see its README); and the same for `@actions/exec` and
 * vendor/no-exec. An upgrade whose range a stand-in's version does not satisfy would make npm
 * install the real package, and the build would bundle it again (undici's 940 KB; exec's 46 KB
 * and child_process at every start); this check turns that into a red build with the reason.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** Each package the action does not use, and the folder that stands in for it. */
const STAND_INS = [
  { name: 'undici', standIn: 'vendor/no-undici' },
  { name: '@actions/exec', standIn: 'vendor/no-exec' },
] as const

interface LockEntry {
  name?: string
  version?: string
  link?: boolean
  resolved?: string
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>
}

const problems: string[] = []
for (const { name, standIn } of STAND_INS) {
  const top = `node_modules/${name}`
  for (const [path, entry] of Object.entries(lock.packages)) {
    const installedAsIt = path === top || path.endsWith(`/${top}`)
    if (installedAsIt && !(path === top && entry.link && entry.resolved === standIn))
      problems.push(`package-lock.json: ${path} is not the link to ${standIn}`)
    const isIt = entry.name === name || (installedAsIt && !entry.link)
    if (isIt && path !== standIn) problems.push(`package-lock.json: a real ${name} at ${path}`)
  }

  // The installed tree too: every place npm resolved the package to must be the stand-in.
  const installed = execFileSync('npm', ['ls', name, '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  })
    .split(/\r?\n/)
    .filter(Boolean)
  for (const path of installed)
    if (realpathSync(path) !== realpathSync(join(ROOT, standIn)))
      problems.push(`node_modules: ${name} at ${path} is not ${standIn}`)
  if (installed.length === 0) problems.push(`node_modules: npm ls finds no ${name} at all`)
}

if (problems.length > 0) {
  console.error(`A package escapes its stand-in:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}
console.log(
  `Every dependency on ${STAND_INS.map(({ name, standIn }) => `${name} resolves to ${standIn}`).join(', and every one on ')}.`,
)
