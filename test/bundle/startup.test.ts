/**
 * A step's start-up path must not load undici (vendor/lazy-undici defers it; see
 * its README). It is what made the cold start 1.35× a bare `node -e fetch`, and it
 * doubled the cost of every step the end-to-end tests spawn from the sources.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { FakeAgentApi } from '../fake-api/server.ts'
import { FakeGitHub } from '../fake-github/server.ts'
import {
  DEFAULT_GITHUB_TOKEN,
  runPostStep,
  runStep,
  type ActionTarget,
  type StepOptions,
} from '../e2e/harness.ts'

const KEY = 'sk-startup'
const PROBE = pathToFileURL(join(import.meta.dirname, 'undici-probe.mjs')).href
const closers: Array<{ close(): Promise<void> }> = []
afterAll(async () => {
  await Promise.all(closers.splice(0).map((server) => server.close()))
})

/** Runs main and post with the probe preloaded; tells whether each loaded undici. */
async function undiciLoaded(
  target: ActionTarget,
  options: StepOptions,
): Promise<{ main: string; post: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'undici-probe-'))
  const probed = (step: string) => ({
    ...options.env,
    NODE_OPTIONS: `--import ${PROBE}`,
    UNDICI_PROBE_FILE: join(dir, step),
  })
  const main = await runStep({ ...options, target, env: probed('main') })
  expect(main.code).toBe(0)
  const post = await runPostStep(main, { ...options, target, env: probed('post') })
  expect(post.code).toBe(0)
  const read = (step: string) => readFileSync(join(dir, step), 'utf8')
  return { main: read('main'), post: read('post') }
}

describe.each(['bundle', 'sources'] as const)(
  'undici stays off the start-up path: %s',
  (target) => {
    it('a whole step that makes no GitHub request never loads it', async () => {
      const api = await FakeAgentApi.start({ apiKey: KEY })
      closers.push(api)

      const loaded = await undiciLoaded(target, {
        inputs: { api_key: KEY, base_url: api.baseUrl, prompt: 'x', poll_interval: '100ms' },
      })

      expect(loaded).toEqual({ main: 'false', post: 'false' })
    })

    it('the probe does see it once a GitHub request needs it (the comment)', async () => {
      const api = await FakeAgentApi.start({ apiKey: KEY })
      const gh = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
      closers.push(api, gh)
      const event = join(mkdtempSync(join(tmpdir(), 'event-')), 'event.json')
      writeFileSync(
        event,
        JSON.stringify({ pull_request: { number: 7 }, repository: { full_name: 'octo-org/app' } }),
      )

      const loaded = await undiciLoaded(target, {
        inputs: {
          api_key: KEY,
          base_url: api.baseUrl,
          prompt: 'x',
          poll_interval: '100ms',
          comment: 'true',
        },
        env: {
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: event,
          GITHUB_API_URL: gh.apiUrl,
        },
      })

      expect(loaded.main).toBe('true')
    })
  },
)
