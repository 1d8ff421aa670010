/**
 * `npm run wire-types`: writes src/api/wire.gen.ts from the vendored OpenAPI facts.
 * `npm run wire-types -- --check`: changes nothing, and fails when the committed file is not
 * what the facts make (test/contract/wire-types.test.ts checks the same in `npm test`).
 */
import { writeFileSync } from 'node:fs'
import { committedWireTypes, generateWireTypes, WIRE_TYPES } from './wire-types/generate.ts'

const generated = await generateWireTypes()
let current = ''
try {
  current = committedWireTypes()
} catch {
  // No file yet: it is written below.
}

if (generated === current) {
  console.log('src/api/wire.gen.ts: up to date with the OpenAPI facts.')
} else if (process.argv.includes('--check')) {
  console.error(
    'src/api/wire.gen.ts is not what the OpenAPI facts make. Run `npm run wire-types` and commit it.',
  )
  process.exitCode = 1
} else {
  writeFileSync(WIRE_TYPES, generated)
  console.log(`Wrote ${WIRE_TYPES} from the OpenAPI facts.`)
}
