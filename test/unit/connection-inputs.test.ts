/** api_key and base_url: how every step reaches the service (src/inputs/connection.ts). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InputError } from '../../src/input-error.ts'
import { readSettings } from '../../src/inputs/main-step.ts'
import {
  BASE_URL,
  fakeInputs,
  GITHUB_TOKEN,
  inputErrorFrom,
  KEY,
  rejects,
  settingsFor,
} from '../support/action-inputs.ts'

describe('readSettings: api_key', () => {
  it('names api_key when it is missing, and masks nothing empty', () => {
    const inputs = fakeInputs({ base_url: BASE_URL, prompt: 'p' })
    const error = inputErrorFrom(() => readSettings(inputs.source), 'api_key')
    expect(error.message).toContain('required')
    expect(inputs.masked).toEqual([])
  })

  it('masks the key as soon as it is read, before any other input is checked', () => {
    // The prompt is missing, so readSettings fails, but only after masking the key.
    const inputs = fakeInputs({ api_key: KEY, base_url: BASE_URL })
    inputErrorFrom(() => readSettings(inputs.source), 'prompt')
    expect(inputs.masked).toEqual([KEY, GITHUB_TOKEN])
    const firstOtherRead = inputs.calls.findIndex(
      (call) => call.startsWith('get:') && call !== 'get:api_key',
    )
    expect(inputs.calls.indexOf('mask')).toBeGreaterThanOrEqual(0)
    expect(inputs.calls.indexOf('mask')).toBeLessThan(firstOtherRead)
  })

  it.each([
    'not a url',
    'ftp://agents.example.com/api/v1',
    'http://agents.example.com/api/v1',
    'https://agents.example.com/api/v2',
    'https://agents.example.com/api/v1?x=1',
    'https://user:pw@agents.example.com/api/v1',
  ])('keeps the key out of the error for base_url %j', (baseUrl) => {
    const inputs = fakeInputs({ api_key: KEY, base_url: baseUrl, prompt: 'p' })
    const error = inputErrorFrom(() => readSettings(inputs.source), 'base_url')
    expect(error.message).not.toContain(KEY)
    expect(inputs.masked).toEqual([KEY])
  })

  it.each([
    'not a url',
    'ftp://agents.example.com/api/v1',
    'http://agents.example.com/api/v1/',
    'https://agents.example.com/api/v2',
    'https://agents.example.com/api/v1?x=1',
  ])('quotes base_url %j whole, as given, and ends as a sentence', (baseUrl) => {
    const inputs = fakeInputs({ api_key: KEY, base_url: baseUrl, prompt: 'p' })
    const error = inputErrorFrom(() => readSettings(inputs.source), 'base_url')
    expect(error.message).toContain(`"${baseUrl}"`)
    expect(error.message).toMatch(/\.$/)
  })

  it.each([
    ['in the query', `${BASE_URL}?api_key=${KEY}`],
    ['in the path', `https://agents.example.com/${KEY}`],
    ['as the whole value', KEY],
  ])('keeps the key out of the error when base_url holds it %s', (_where, baseUrl) => {
    const inputs = fakeInputs({ api_key: KEY, base_url: baseUrl, prompt: 'p' })
    const error = inputErrorFrom(() => readSettings(inputs.source), 'base_url')
    expect(error.message).not.toContain(KEY)
  })

  it.each([
    ['a line break', 'sekret-123\nX-Injected: 1'],
    ['a space', 'sekret 123'],
    ['a tab', 'sekret\t123'],
    ['a control character', 'sekret\u0000123'],
  ])('rejects a key with %s without showing it', (_what, key) => {
    const inputs = fakeInputs({ api_key: key, base_url: BASE_URL, prompt: 'p' })
    const error = inputErrorFrom(() => readSettings(inputs.source), 'api_key')
    expect(error.message).not.toContain(key)
    expect(error.message).not.toContain('sekret')
    expect(inputs.masked).toEqual([key])
  })

  describe('fork hint', () => {
    let dir: string
    const eventFile = (name: string, head: string, base: string): string => {
      const path = join(dir, name)
      writeFileSync(
        path,
        JSON.stringify({
          pull_request: {
            head: { repo: { full_name: head } },
            base: { repo: { full_name: base } },
          },
        }),
      )
      return path
    }
    const missingKeyError = (env: NodeJS.ProcessEnv): InputError =>
      inputErrorFrom(
        () => readSettings(fakeInputs({ base_url: BASE_URL, prompt: 'p' }, env).source),
        'api_key',
      )

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'inputs-test-'))
    })
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true })
    })

    it('explains that a fork pull request gets no secrets', () => {
      const error = missingKeyError({
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: eventFile('fork.json', 'mallory/widgets', 'acme/widgets'),
      })
      expect(error.message).toContain('fork')
      expect(error.message).toContain('mallory/widgets')
    })

    it('gives no fork hint on pull_request_target, which runs with secrets', () => {
      const error = missingKeyError({
        GITHUB_EVENT_NAME: 'pull_request_target',
        GITHUB_EVENT_PATH: eventFile('target.json', 'mallory/widgets', 'acme/widgets'),
      })
      expect(error.message).not.toContain('fork')
    })

    it('gives no fork hint for a pull request from the same repository', () => {
      const error = missingKeyError({
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: eventFile('same.json', 'acme/widgets', 'acme/widgets'),
      })
      expect(error.message).not.toContain('fork')
    })

    it('gives no fork hint for a push, nor when the event file is unreadable', () => {
      const path = eventFile('push.json', 'mallory/widgets', 'acme/widgets')
      expect(
        missingKeyError({ GITHUB_EVENT_NAME: 'push', GITHUB_EVENT_PATH: path }).message,
      ).not.toContain('fork')
      expect(
        missingKeyError({
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: join(dir, 'does-not-exist.json'),
        }).message,
      ).not.toContain('fork')
    })
  })
})

describe('readSettings: base_url', () => {
  it.each([
    ['https://agents.example.com/api/v1', 'https://agents.example.com/api/v1'],
    ['https://agents.example.com/api/v1/', 'https://agents.example.com/api/v1'],
    ['https://agents.example.com:8443/api/v1', 'https://agents.example.com:8443/api/v1'],
    ['https://gw.example.com/agents/api/v1/', 'https://gw.example.com/agents/api/v1'],
    ['http://127.0.0.1:8080/api/v1', 'http://127.0.0.1:8080/api/v1'],
    ['http://127.45.6.7/api/v1/', 'http://127.45.6.7/api/v1'],
    ['http://localhost:3000/api/v1', 'http://localhost:3000/api/v1'],
    ['http://[::1]:3000/api/v1', 'http://[::1]:3000/api/v1'],
  ])('accepts %s as %s', (given, expected) => {
    expect(settingsFor({ base_url: given, prompt: 'p' }).baseUrl).toBe(expected)
  })

  it.each([
    ['plain http to a private address', 'http://10.0.0.1/api/v1'],
    ['plain http to a public host', 'http://example.com/api/v1'],
    ['plain http to a host that merely starts like loopback', 'http://127.0.0.1.evil.test/api/v1'],
    ['plain http to a localhost look-alike', 'http://localhost.evil.test/api/v1'],
    ['a path that does not end in /api/v1', 'https://agents.example.com/api/v2'],
    ['a path beyond /api/v1', 'https://agents.example.com/api/v1/agent/run'],
    ['no path', 'https://agents.example.com'],
    ['credentials', 'https://user:hunter2@agents.example.com/api/v1'],
    ['a query', 'https://agents.example.com/api/v1?debug=1'],
    ['a fragment', 'https://agents.example.com/api/v1#top'],
    ['another scheme', 'ftp://agents.example.com/api/v1'],
    ['a relative URL', '/api/v1'],
  ])('rejects %s', (_what, baseUrl) => {
    rejects({ base_url: baseUrl, prompt: 'p' }, 'base_url')
  })

  it("is Warp's Oz platform when left out, and when given empty (an unset variable)", () => {
    const smallest = readSettings(fakeInputs({ api_key: KEY, prompt: 'p' }).source)
    expect(smallest.baseUrl).toBe('https://app.warp.dev/api/v1')
    expect(settingsFor({ base_url: '', prompt: 'p' }).baseUrl).toBe('https://app.warp.dev/api/v1')
  })

  it('says why plain http is refused, and never echoes credentials', () => {
    expect(
      rejects({ base_url: 'http://example.com/api/v1', prompt: 'p' }, 'base_url').message,
    ).toMatch(/https:\/\//)
    const error = rejects(
      { base_url: 'https://user:hunter2@agents.example.com/api/v1', prompt: 'p' },
      'base_url',
    )
    expect(error.message).not.toContain('hunter2')
  })
})
