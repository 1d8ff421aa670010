/**
 * The package as the npm registry would serve it: `npm pack`, installed into a clean
 * directory, then its `cloud-agent-run` run as `npx` runs it, against the fake API. What the
 * tarball holds is checked too: the bundle and action.yml, none of the sources or tests.
 */
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FakeAgentApi } from '../fake-api/server.ts'
import { ROOT } from '../e2e/harness.ts'

const KEY = 'sk-package-test-71b3'
const servers: FakeAgentApi[] = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
})

const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'error' },
  })

describe('the published package', () => {
  it('holds the bundle, action.yml and the docs a user reads; no sources, tests or maps', () => {
    const [packed] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT)) as [
      { files: { path: string }[] },
    ]
    const files = packed.files.map((file) => file.path)
    for (const wanted of ['dist/cli.js', 'dist/index.js', 'action.yml', 'README.md', 'LICENSE']) {
      expect(files).toContain(wanted)
    }
    expect(files.filter((file) => /^(src|test|scripts|vendor)\/|\.map$|\.ts$/.test(file))).toEqual(
      [],
    )
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>
      engines: { node: string }
      private?: boolean
      dependencies?: Record<string, string>
    }
    expect(manifest.bin).toEqual({ 'cloud-agent-run': 'dist/cli.js' })
    expect(manifest.engines.node).toBe('>=20')
    expect(manifest.private).toBeUndefined()
    // dist/ is all it runs: an install fetches nothing else.
    expect(manifest.dependencies ?? {}).toEqual({})
  })

  it('installs into a clean directory and runs as npx runs it, against the fake API', async () => {
    const api = await FakeAgentApi.start({ apiKey: KEY })
    servers.push(api)
    const work = mkdtempSync(join(tmpdir(), 'package-test-'))
    npm(['pack', '--pack-destination', work, '--ignore-scripts', '--silent'], ROOT)
    const [packed] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT)) as [
      { filename: string },
    ]
    const tarball = join(work, packed.filename)
    const app = join(work, 'app')
    npm(['install', '--prefix', app, '--offline', '--no-audit', '--no-fund', tarball], work)
    const bin = join(app, 'node_modules', '.bin', 'cloud-agent-run')
    const node = process.env.ACTION_NODE ?? process.execPath
    // Spawned, not run synchronously: the fake API answers from this process.
    const { stdout } = await promisify(execFile)(
      node,
      [bin, '--base-url', api.baseUrl, '--poll-interval', '100ms', '--prompt', 'Hello', '--json'],
      { cwd: work, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', WARP_API_KEY: KEY } },
    )

    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'succeeded', state: 'SUCCEEDED' })
    const version = await promisify(execFile)(node, [bin, '--version'], { encoding: 'utf8' })
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string
    }
    expect(version.stdout).toBe(`cloud-agent-run ${manifest.version}\n`)
  })
})
