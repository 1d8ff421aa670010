import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { FakeAgentApi, type FakeApiOptions, type FaultRule } from '../fake-api/server.ts'
import { FakeGitHub, type FakeGitHubOptions } from '../fake-github/server.ts'
import { DEFAULT_GITHUB_TOKEN } from './harness.ts'

/**
 * A service nothing listens on: every connection is refused. Its port is below every system's
 * ephemeral range, from which each fake's port is drawn (it listens on port 0), and on no
 * list of ports that fetch blocks; a port freed by closing a fake may be handed to the next
 * server that starts, another test's fake, which would then answer in its place.
 */
export const UNREACHABLE_BASE_URL = 'http://127.0.0.1:2/api/v1'

/**
 * The fakes an end-to-end test file starts, with the key its steps use. They
 * close once every test of the file is done: the tests of a file run at once
 * (vitest.config.ts), so one test must not close another's server.
 */
export function e2eServers(key: string, defaultInputs: Record<string, string> = {}) {
  const closers: Array<{ close(): Promise<void> }> = []
  afterAll(async () => {
    await Promise.all(closers.splice(0).map((server) => server.close()))
  })
  return {
    /** The fake API, with `faults` injected. */
    async fakeApi(options: FakeApiOptions = {}, ...faults: FaultRule[]): Promise<FakeAgentApi> {
      const api = await FakeAgentApi.start({ apiKey: key, ...options })
      for (const fault of faults) api.injectFault(fault)
      closers.push(api)
      return api
    },
    /** The fake GitHub, accepting what `${{ github.token }}` gives the step. */
    async fakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
      const github = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN, ...options })
      closers.push(github)
      return github
    },
    /** A step's inputs against `api`: the key, a quick poll, the file's defaults, then `extra`. */
    inputsFor(api: { baseUrl: string }, extra: Record<string, string> = {}) {
      return {
        api_key: key,
        base_url: api.baseUrl,
        poll_interval: '100ms',
        ...defaultInputs,
        ...extra,
      }
    },
  }
}

/** The runner's view of an event: its name, a payload file, and where GitHub's API is. */
export function eventEnv(
  github: { apiUrl: string },
  name: string,
  payload: object,
  extra: Record<string, string> = {},
): Record<string, string> {
  const path = join(mkdtempSync(join(tmpdir(), 'event-')), 'event.json')
  writeFileSync(path, JSON.stringify(payload))
  return {
    GITHUB_EVENT_NAME: name,
    GITHUB_EVENT_PATH: path,
    GITHUB_API_URL: github.apiUrl,
    ...extra,
  }
}
