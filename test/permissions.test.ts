import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

/**
 * docs/permissions.md names every permission the actions ask for: the ones their inputs'
 * descriptions name, and the ones the reconcile example and page grant.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const read = (...path: string[]) => readFileSync(join(ROOT, ...path), 'utf8')
const PAGE = read('docs', 'permissions.md')

/** The scopes of a workflow's `permissions:`, as GitHub names them. */
const SCOPES =
  'actions|attestations|checks|contents|deployments|discussions|id-token|issues|packages|pages|pull-requests|security-events|statuses'

/** `pull-requests write` or `pull-requests: write`, written as `pull-requests: write`. */
function permissionsIn(text: string): string[] {
  const found = text.matchAll(new RegExp(`\\b(${SCOPES}):? (read|write)\\b`, 'g'))
  return [...new Set([...found].map((m) => `${m[1]}: ${m[2]}`))].sort()
}

/** What an action.yml's inputs say they need. */
function inputsNeed(actionYml: string): string[] {
  const inputs = (parse(actionYml) as { inputs: Record<string, { description: string }> }).inputs
  return permissionsIn(
    Object.values(inputs)
      .map((input) => input.description)
      .join('\n'),
  )
}

/** A workflow's top-level `permissions:`. */
function grantedBy(workflow: string): string[] {
  const permissions = (parse(workflow) as { permissions: Record<string, string> }).permissions
  return Object.entries(permissions).map(([scope, level]) => `${scope}: ${level}`)
}

/** The page's text for the main action (before the reconcile section) and for reconcile. */
function sections(page: string): { main: string; reconcile: string } {
  const at = page.indexOf('## The reconcile action')
  const end = page.indexOf('\n## ', at + 1)
  return { main: page.slice(0, at), reconcile: page.slice(at, end === -1 ? undefined : end) }
}

/** The permissions a section does not name as `scope: level`. */
function unnamed(section: string, needed: readonly string[]): string[] {
  return needed.filter((permission) => !section.includes(`\`${permission}\``))
}

describe('docs/permissions.md', () => {
  const { main, reconcile } = sections(PAGE)
  const reconcileNeeds = [
    ...inputsNeed(read('reconcile', 'action.yml')),
    ...grantedBy(read('examples', 'reconcile.yml')),
    ...permissionsIn(/```yaml\n([\s\S]*?)```/.exec(read('docs', 'reconcile.md'))?.[1] ?? ''),
  ]

  it("names every permission the main action's inputs ask for", () => {
    const needed = inputsNeed(read('action.yml'))
    expect(needed).toEqual(
      expect.arrayContaining(['pull-requests: write', 'statuses: write', 'checks: write']),
    )
    expect(unnamed(main, needed)).toEqual([])
  })

  it('names, for the reconcile action, every permission its inputs, example and page ask for', () => {
    expect(reconcileNeeds).toContain('actions: read')
    expect(unnamed(reconcile, [...new Set(reconcileNeeds)])).toEqual([])
  })

  it('would miss a permission the reconcile section leaves out', () => {
    const without = reconcile.replaceAll('`actions: read`', 'actions')
    expect(unnamed(without, reconcileNeeds)).toContain('actions: read')
  })
})
