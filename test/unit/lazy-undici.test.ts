/**
 * vendor/lazy-undici, installed as `undici`: importing it loads nothing; using
 * ProxyAgent or fetch loads the real undici and behaves as the real one. Each case
 * runs in a fresh Node, as a step would, since the require cache is per process.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../e2e/harness.ts'

/** Runs an ES module in a fresh Node at the repository's root; returns what it printed. */
function inFreshNode(source: string): string {
  const prelude = `
    import { createRequire } from 'node:module'
    const loaded = () => Object.keys(createRequire(import.meta.url).cache)
      .some((file) => file.includes('undici-actual'))
  `
  return execFileSync(process.execPath, ['--input-type=module', '-e', prelude + source], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 15_000,
  }).trim()
}

describe('the undici stand-in', () => {
  it('an ESM import of { ProxyAgent, fetch } loads nothing', () => {
    const printed = inFreshNode(`
      const { ProxyAgent, fetch } = await import('undici')
      console.log(typeof ProxyAgent, typeof fetch, loaded())
    `)
    expect(printed).toBe('function function false')
  })

  it('new ProxyAgent() loads undici and makes a real ProxyAgent', () => {
    const printed = inFreshNode(`
      const { ProxyAgent } = await import('undici')
      const agent = new ProxyAgent('http://127.0.0.1:3128')
      const real = createRequire(import.meta.url)('undici-actual')
      console.log(loaded(), agent instanceof ProxyAgent, agent instanceof real.ProxyAgent,
        Object.getPrototypeOf(agent) === real.ProxyAgent.prototype)
      await agent.close()
    `)
    expect(printed).toBe('true true true true')
  })

  it('fetch() is the real fetch: it reaches a server', () => {
    const printed = inFreshNode(`
      import { createServer } from 'node:http'
      const { fetch } = await import('undici')
      const server = createServer((_, res) => res.end('pong')).listen(0, '127.0.0.1')
      await new Promise((resolve) => server.once('listening', resolve))
      const answer = await fetch('http://127.0.0.1:' + server.address().port)
      console.log(await answer.text(), loaded())
      server.close()
    `)
    expect(printed).toBe('pong true')
  })

  it('a CommonJS require reads any other export from the real undici', () => {
    const printed = inFreshNode(`
      const undici = createRequire(import.meta.url)('undici')
      const before = loaded()
      console.log(before, typeof undici.Agent, loaded(), 'Pool' in undici)
    `)
    expect(printed).toBe('false function true true')
  })
})
