/**
 * CONTRIBUTING.md's "Running the action locally", as `@github/local-action` runs it: .env.example
 * pointed at the fake API, then the main entry's module imported and its `run()` called with no
 * arguments, then the post entry's. A process of its own, as local-action's is: in
 * `npm run test:bundle` alone (PROCESS_FILES in vitest.config.ts).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import { FakeAgentApi } from '../fake-api/server.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const servers: FakeAgentApi[] = []
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** `.env.example`'s variables, with the URL the fake API prints in place of its PORT. */
function envExample(baseUrl: string): Record<string, string> {
  const lines = readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n')
  const pairs = lines
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
  const env = Object.fromEntries(pairs) as Record<string, string>
  return { ...env, INPUT_BASE_URL: baseUrl }
}

/** The recipe's two entries, each imported and run with no arguments, in one process. */
const RECIPE = `
const main = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/entries/local-main.ts')).href)})
await main.run()
const post = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/entries/local-post.ts')).href)})
await post.run()
`

describe("CONTRIBUTING's local recipe", () => {
  it('runs the main and post entries with no arguments, as local-action does', async () => {
    const env = envExample('')
    const api = await FakeAgentApi.start({ apiKey: env.INPUT_API_KEY ?? '' })
    servers.push(api)
    const dir = mkdtempSync(join(tmpdir(), 'local-action-'))
    const output = join(dir, 'output')
    const state = join(dir, 'state')
    const summary = join(dir, 'summary')
    for (const file of [output, state, summary]) writeFileSync(file, '')
    const child = spawn(process.execPath, ['--input-type=module', '-e', RECIPE], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...envExample(api.baseUrl),
        GITHUB_OUTPUT: output,
        GITHUB_STATE: state,
        GITHUB_STEP_SUMMARY: summary,
        RUNNER_TEMP: dir,
      },
    })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))

    expect(code, stdout).toBe(0)
    expect(readFileSync(output, 'utf8')).toMatch(/^outcome<<.*\nsucceeded\n/m)
    expect(api.allRuns()).toHaveLength(1)
    expect(api.allRuns()[0]?.state).toBe('SUCCEEDED')
    // The post step, whose saved state the recipe does not hand on, never says none was created.
    expect(stdout).toContain('nothing to clean up')
    expect(stdout).not.toContain('created no run')
  })
})
