/**
 * Writes dist/main.js and dist/post.js, the files action.yml names as the
 * steps' entries. Each only imports the shared bundle (dist/index.js) and calls
 * its step's run(); the bundle itself does nothing on import.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const DIST = fileURLToPath(new URL('../dist/', import.meta.url))

const entries = { 'main.js': 'runMain', 'post.js': 'runPost' } as const

for (const [file, run] of Object.entries(entries)) {
  writeFileSync(`${DIST}${file}`, `import { ${run} } from './index.js'\n\nawait ${run}()\n`)
}
