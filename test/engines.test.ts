/**
 * The Node.js versions package.json's `engines` states are the ones every locked package
 * accepts, so that `npm ci` is quiet on each of them (issue 12): checked on the first
 * release of each line and the latest of the lines that matter.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import { describe, expect, it } from 'vitest'
import { ROOT } from './e2e/harness.ts'

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string }
  devEngines: { runtime: { name: string; version: string } }
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>
}

/** Every locked package that installs everywhere and states the Node versions it accepts. */
const required = Object.entries(lock.packages).flatMap(([path, entry]) => {
  const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
  return path && range && !entry.optional
    ? [{ name: path.replace(/^.*node_modules\//, ''), range }]
    : []
})

const PROBES = ['20.19.0', '22.12.0', '22.13.0', '22.19.0', '22.30.0', '23.5.0', '24.0.0', '26.0.0']

describe("package.json's devEngines: the Node that development needs", () => {
  it.each(PROBES)(
    'Node %s: stated as supported exactly when every package accepts it',
    (version) => {
      const refused = required.filter(({ range }) => !semver.satisfies(version, range))
      const stated = semver.satisfies(version, manifest.devEngines.runtime.version)
      expect(stated ? refused.map(({ name, range }) => `${name} wants ${range}`) : []).toEqual([])
      if (!stated)
        expect(refused.length, `${version} is accepted by every package`).toBeGreaterThan(0)
    },
  )
})

describe('npm on an older Node (scripts/npm-node.ts, run after an install)', () => {
  /** What the script says, on stderr: its stdout stays empty (`npm pack --json` is JSON). */
  const say = (userAgent: string) => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'npm-node.ts')], {
      env: { ...process.env, npm_config_user_agent: userAgent },
      encoding: 'utf8',
    })
    expect(run.stdout).toBe('')
    return run.stderr
  }

  it('says in one line that the tools run on the Node 24 it installed', () => {
    const said = say('npm/11.6.2 node/v20.19.5 linux x64 workspaces/false')
    expect(said.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^npm runs on Node 20\.19\.5, older than the 22\.19 the tools need: it installed Node \d+\.\d+\.\d+ \(the node dev dependency\), on which every npm script runs\.$/,
      ),
    ])
  })

  it.each(['npm/11.6.2 node/v22.19.0 linux x64', 'npm/11.6.2 node/v24.11.0 linux x64', ''])(
    'says nothing when npm runs on a Node the tools accept (%j)',
    (userAgent) => {
      expect(say(userAgent)).toBe('')
    },
  )
})

describe("package.json's engines: the Node the published command runs on", () => {
  it("is Node 20 or newer: dist/ alone runs, and CI runs it on the machine's Node 20", () => {
    expect(manifest.engines.node).toBe('>=20')
    expect(manifest.devEngines.runtime.name).toBe('node')
  })
})

describe('the floors the docs state, held by what the code uses', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const cliDoc = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')

  it.each(['action.yml', 'reconcile/action.yml', 'report/action.yml'])(
    '%s runs on node24, whose runner floor (v2.327.1) the README states',
    (file) => {
      const using = /^\s+using:\s*(\S+)/m.exec(readFileSync(join(ROOT, file), 'utf8'))?.[1]
      expect(using).toBe('node24')
      expect(readme).toContain('runner v2.327.1 or later')
    },
  )

  it("the command's Node floor is package.json's engines, as the README and docs/cli.md say", () => {
    expect(manifest.engines.node).toBe('>=20')
    expect(readme).toContain('Node.js 20 or later')
    expect(cliDoc).toContain('Node.js 20 or')
  })
})
