/**
 * The API's wire types, generated from the vendored OpenAPI facts by openapi-typescript, then
 * formatted by Prettier as every committed file is. `scripts/wire-types.ts` writes them;
 * test/contract/wire-types.test.ts fails when the committed file is not what this makes.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript'
import * as prettier from 'prettier'

const FACTS = fileURLToPath(
  new URL('../../test/contract/service-openapi.facts.json', import.meta.url),
)
export const WIRE_TYPES = fileURLToPath(new URL('../../src/api/wire.gen.ts', import.meta.url))

const HEADER = `${COMMENT_HEADER}// From test/contract/service-openapi.facts.json by \`npm run wire-types\`.\n\n`

export async function generateWireTypes(): Promise<string> {
  const facts = withoutRepeatedOperationIds(JSON.parse(readFileSync(FACTS, 'utf8')) as OpenAPI3)
  // enumValues: the enumerations also as arrays, so that the action's known states are the schema's.
  const ast = await openapiTS(facts, { enumValues: true, silent: true })
  const options = await prettier.resolveConfig(WIRE_TYPES)
  return prettier.format(`${HEADER}${astToString(ast)}`, { ...options, filepath: WIRE_TYPES })
}

export function committedWireTypes(): string {
  return readFileSync(WIRE_TYPES, 'utf8')
}

/**
 * The facts with every operationId that names two operations removed: the service's document
 * repeats one (`listAgents`), and two operations of one name cannot both be types. Those
 * operations stay, typed in place under their paths.
 */
function withoutRepeatedOperationIds(facts: OpenAPI3): OpenAPI3 {
  const operations = Object.values(facts.paths ?? {}).flatMap((item) =>
    Object.values(item as Record<string, { operationId?: string }>),
  )
  const counts = new Map<string, number>()
  for (const { operationId } of operations) {
    if (operationId) counts.set(operationId, (counts.get(operationId) ?? 0) + 1)
  }
  for (const operation of operations) {
    if ((counts.get(operation.operationId ?? '') ?? 0) > 1) delete operation.operationId
  }
  return facts
}
