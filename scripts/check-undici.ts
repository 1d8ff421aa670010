/**
 * CI: fails when any `undici` dependency edge resolves past vendor/no-undici, the stand-in for
 * undici, which the action does not use (see its README). An upgrade whose range the stand-in's
 * version does not satisfy would make npm install the real undici, and the build would bundle
 * it again (940 KB); this check turns that into a red build with the reason.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const STAND_IN = 'vendor/no-undici'

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
for (const [path, entry] of Object.entries(lock.packages)) {
  const installedAsUndici = /(^|\/)node_modules\/undici$/.test(path)
  if (
    installedAsUndici &&
    !(path === 'node_modules/undici' && entry.link && entry.resolved === STAND_IN)
  )
    problems.push(`package-lock.json: ${path} is not the link to ${STAND_IN}`)
  const isUndici = entry.name === 'undici' || (installedAsUndici && !entry.link)
  if (isUndici && path !== STAND_IN) problems.push(`package-lock.json: a real undici at ${path}`)
}

// The installed tree too: every place npm resolved `undici` to must be the stand-in.
const installed = execFileSync('npm', ['ls', 'undici', '--all', '--parseable'], {
  cwd: ROOT,
  encoding: 'utf8',
  shell: process.platform === 'win32',
})
  .split(/\r?\n/)
  .filter(Boolean)
for (const path of installed)
  if (realpathSync(path) !== realpathSync(join(ROOT, STAND_IN)))
    problems.push(`node_modules: undici at ${path} is not ${STAND_IN}`)
if (installed.length === 0) problems.push('node_modules: npm ls finds no undici at all')

if (problems.length > 0) {
  console.error(`undici escapes its stand-in:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}
console.log(`Every undici dependency resolves to ${STAND_IN}.`)
