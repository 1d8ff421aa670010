/**
 * vendor/no-undici, installed as `undici`: importing it, as @actions/http-client does at its
 * top, costs nothing and loads nothing; anything that reaches for undici gets an error that
 * says why it is not there, not a crash deep in a stand-in. Each case runs in a fresh Node,
 * as a step would.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../e2e/harness.ts'

/** Runs an ES module in a fresh Node at the repository's root; returns what it printed. */
function inFreshNode(source: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 15_000,
  }).trim()
}

describe('the undici stand-in', () => {
  it("an ESM import of { ProxyAgent, fetch }, as @actions/http-client's, resolves", () => {
    const printed = inFreshNode(`
      const { ProxyAgent, fetch } = await import('undici')
      console.log(typeof ProxyAgent, typeof fetch)
    `)
    expect(printed).toBe('function function')
  })

  it('new ProxyAgent() and fetch() fail, naming the stand-in', () => {
    const printed = inFreshNode(`
      const { ProxyAgent, fetch } = await import('undici')
      try { new ProxyAgent('http://127.0.0.1:3128') } catch (error) { console.log(error.message) }
      await fetch('http://127.0.0.1:9').catch((error) => console.log(error.message))
    `)
    expect(printed.split('\n')).toEqual([
      expect.stringMatching(/^undici's ProxyAgent was called, but .*vendor\/no-undici/),
      expect.stringMatching(/^undici's fetch was called, but .*vendor\/no-undici/),
    ])
  })

  it("@actions/http-client's own requests (the service's, over node:http) still work", () => {
    const printed = inFreshNode(`
      import { createServer } from 'node:http'
      import { HttpClient } from '@actions/http-client'
      const server = createServer((_, res) => res.end('pong')).listen(0, '127.0.0.1')
      await new Promise((resolve) => server.once('listening', resolve))
      const answer = await new HttpClient().get('http://127.0.0.1:' + server.address().port)
      console.log(await answer.readBody())
      server.close()
    `)
    expect(printed).toBe('pong')
  })
})
