/**
 * The project's own workflows as a careful organisation requires them: every action pinned by
 * its full commit SHA (the version in a comment), npm publishing by trusted publishing (OIDC)
 * with no long-lived token, and the GitLab release job on a pinned image.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const root = new URL('../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')
const workflows = readdirSync(new URL('.github/workflows/', root)).map(
  (name) => `.github/workflows/${name}`,
)

describe('supply chain', () => {
  it.each(workflows)(
    '%s pins every action by its full commit SHA, its version in a comment',
    (path) => {
      const uses = [...read(path).matchAll(/^\s*-?\s*uses:\s*(\S+)(.*)$/gm)]
      expect(uses.length).toBeGreaterThan(0)
      for (const [line, target = '', rest = ''] of uses) {
        if (target.startsWith('./')) continue
        expect(target, line).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/)
        expect(rest, line).toMatch(/^ # v\d+\.\d+\.\d+$/)
      }
    },
  )

  it('publishes to npm by trusted publishing, with provenance and no npm token', () => {
    const release = read('.github/workflows/release.yml')
    expect(release).not.toMatch(/NPM_TOKEN|NODE_AUTH_TOKEN/)
    expect(release).toContain('id-token: write')
    expect(release).toContain('npm publish --provenance')
  })

  it("runs the GitLab release job on a pinned image, never 'latest'", () => {
    const [image] = /image:\s*(\S*release-cli\S*)/.exec(read('.gitlab-ci.yml'))?.slice(1) ?? []
    expect(image).toMatch(/:v\d+\.\d+\.\d+$|@sha256:[0-9a-f]{64}$/)
  })
})
