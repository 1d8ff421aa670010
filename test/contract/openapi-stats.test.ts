/**
 * The OpenAPI facts are pinned (openapi.stats.yml, as the Oz SDK's .stats.yml pins its spec):
 * their source, and the sha256 of the facts file. A facts file changed without its pin, or a
 * pin that names no published document, fails here.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const HERE = new URL('./', import.meta.url)

interface Stats {
  configured_endpoints: number
  openapi_spec_url: string
  openapi_spec_hash: string
  facts: string
  facts_sha256: string
  wire_types: string
}

const stats = parse(readFileSync(new URL('openapi.stats.yml', HERE), 'utf8')) as Stats
const facts = readFileSync(new URL(stats.facts, HERE))

describe('the OpenAPI facts, pinned', () => {
  it('the facts file is the one the pin names: its sha256 is the pinned one', () => {
    expect(createHash('sha256').update(facts).digest('hex')).toBe(stats.facts_sha256)
  })

  it('names the published document it comes from, by an https URL and its hash', () => {
    expect(new URL(stats.openapi_spec_url).protocol).toBe('https:')
    expect(stats.openapi_spec_hash).toMatch(/^[0-9a-f]{32}$/)
    expect(stats.wire_types).toBe('src/api/wire.gen.ts')
  })

  it('counts the endpoints the facts hold', () => {
    const document = JSON.parse(facts.toString('utf8')) as {
      paths: Record<string, Record<string, unknown>>
    }
    const methods = ['get', 'put', 'post', 'delete', 'patch']
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.keys(item).filter((key) => methods.includes(key)),
    )
    expect(operations).toHaveLength(stats.configured_endpoints)
  })
})
