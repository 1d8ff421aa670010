/**
 * `npm run docs`: writes the inputs and outputs tables of docs/inputs.md from action.yml, and
 * CONTRIBUTING.md's layers from scripts/layers/table.ts and each file's opening comment.
 * `npm run docs -- --check`: changes nothing, and fails when the page's tables
 * are not what action.yml makes (test/docs.test.ts checks the same in `npm test`).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateReadme } from './docs/tables.ts'
import { spliceLayers } from './layers/layout.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const README = join(ROOT, 'docs', 'inputs.md')

const check = process.argv.includes('--check')
const current = readFileSync(README, 'utf8')
const generated = await generateReadme(
  current,
  readFileSync(join(ROOT, 'action.yml'), 'utf8'),
  README,
)

if (generated === current) {
  console.log('docs/inputs.md: the inputs and outputs tables match action.yml.')
} else if (check) {
  const was = current.split('\n')
  const now = generated.split('\n')
  const line = now.findIndex((text, index) => text !== was[index])
  console.error(
    'docs/inputs.md is not what `npm run docs` writes (the tables from action.yml, formatted by Prettier).',
    `First difference, line ${line + 1}:\n  docs/inputs.md: ${was[line] ?? '(end of file)'}\n  expected:  ${now[line] ?? '(end of file)'}`,
    '\nRun `npm run docs` and commit docs/inputs.md.',
  )
  process.exitCode = 1
} else {
  writeFileSync(README, generated)
  console.log('docs/inputs.md: wrote the inputs and outputs tables from action.yml.')
}

// CONTRIBUTING.md's layers (test/layers.test.ts checks the same in `npm test`).
const CONTRIBUTING = join(ROOT, 'CONTRIBUTING.md')
const page = readFileSync(CONTRIBUTING, 'utf8')
const layers = spliceLayers(page, ROOT)
if (layers === page) {
  console.log('CONTRIBUTING.md: the layers match scripts/layers/table.ts and the files.')
} else if (check) {
  console.error("CONTRIBUTING.md's layers are not what `npm run docs` writes. Run it and commit.")
  process.exitCode = 1
} else {
  writeFileSync(CONTRIBUTING, layers)
  console.log('CONTRIBUTING.md: wrote the layers.')
}
