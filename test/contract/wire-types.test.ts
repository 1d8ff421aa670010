/**
 * The wire types (src/api/wire.gen.ts) are what openapi-typescript makes of the vendored facts:
 * a change to the facts without `npm run wire-types` fails here.
 */
import { expect, it } from 'vitest'
import { committedWireTypes, generateWireTypes } from '../../scripts/wire-types/generate.ts'

it('src/api/wire.gen.ts is generated from service-openapi.facts.json (npm run wire-types)', async () => {
  expect(committedWireTypes() === (await generateWireTypes())).toBe(true)
})
