/**
 * The GitHub client's fetch (src/github/fetch.ts, over node:http) against the fake GitHub and a
 * real CONNECT proxy on loopback: the runner's proxy settings route GitHub's requests, a
 * deadline ends a call that hangs (before the answer, and while its body streams), and a
 * redirect is followed without taking the token to another origin.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createOctokit } from '../../src/github/client.ts'
import { nodeFetch } from '../../src/github/fetch.ts'
import { isTransient, withDeadline } from '../../src/github/octokit.ts'
import { FakeGitHub } from '../fake-github/server.ts'
import { ConnectProxy } from '../support/connect-proxy.ts'

const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
/** A name for GitHub that is not loopback, so that http-client may send it through a proxy. */
const HOST = 'api.github.test'
const PROXY_VARIABLES = [
  'http_proxy',
  'HTTP_PROXY',
  'https_proxy',
  'HTTPS_PROXY',
  'no_proxy',
  'NO_PROXY',
]

const closers: Array<{ close(): Promise<unknown> }> = []
afterAll(async () => {
  await Promise.all(closers.splice(0).map((server) => server.close()))
})

// http-client reads the proxy settings from the environment at each request; the machine's own
// must not take part.
beforeEach(() => {
  for (const name of PROXY_VARIABLES) vi.stubEnv(name, undefined)
})
afterEach(() => {
  vi.unstubAllEnvs()
})

async function servers(): Promise<{ gh: FakeGitHub; proxy: ConnectProxy; port: string }> {
  const gh = await FakeGitHub.start()
  const proxy = await ConnectProxy.start()
  closers.push(gh, proxy)
  return { gh, proxy, port: new URL(gh.apiUrl).port }
}

async function comment(apiUrl: string, body: string): Promise<number> {
  const octokit = createOctokit('gh-token', apiUrl)
  const { data } = await octokit.rest.issues.createComment({
    owner: OWNER,
    repo: REPO,
    issue_number: PR,
    body,
    ...withDeadline(5_000),
  })
  return data.id
}

/** A server of a test's own, on loopback; each request is answered by `handle`. */
async function rawServer(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  closers.push({
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    },
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe("GitHub's requests and the runner's proxy settings", () => {
  it('without a proxy setting, they go straight to GitHub', async () => {
    const { gh, proxy } = await servers()

    await comment(gh.apiUrl, 'direct')

    expect(gh.comments(OWNER, REPO, PR).map((c) => c.body)).toEqual(['direct'])
    expect(proxy.targets).toEqual([])
  })

  it('HTTP_PROXY: an http:// GitHub is reached through the proxy, every request', async () => {
    const { gh, proxy, port } = await servers()
    vi.stubEnv('HTTP_PROXY', proxy.url)
    const apiUrl = `http://${HOST}:${port}`

    const id = await comment(apiUrl, 'through the proxy')
    await createOctokit('gh-token', apiUrl).rest.issues.getComment({
      owner: OWNER,
      repo: REPO,
      comment_id: id,
      ...withDeadline(5_000),
    })

    expect(gh.comments(OWNER, REPO, PR).map((c) => c.body)).toEqual(['through the proxy'])
    expect(proxy.targets).toEqual([`${HOST}:${port}`, `${HOST}:${port}`])
    expect(gh.requests).toHaveLength(2)
  })

  it('HTTPS_PROXY: an https:// GitHub is asked of that proxy, not of HTTP_PROXY', async () => {
    const { gh, proxy, port } = await servers()
    const other = await ConnectProxy.start()
    closers.push(other)
    vi.stubEnv('HTTPS_PROXY', proxy.url)
    vi.stubEnv('HTTP_PROXY', other.url)

    // The fake speaks plain HTTP, so TLS through the tunnel fails: what is tested is the route.
    await expect(comment(`https://${HOST}:${port}`, 'x')).rejects.toThrow()

    expect(proxy.targets).toEqual([`${HOST}:${port}`])
    expect(other.targets).toEqual([])
    expect(gh.comments(OWNER, REPO, PR)).toEqual([])
  })

  it('a loopback GitHub is reached directly even with a proxy set (http-client never proxies loopback)', async () => {
    const { gh, proxy } = await servers()
    vi.stubEnv('HTTP_PROXY', proxy.url)

    await comment(gh.apiUrl, 'loopback')

    expect(gh.comments(OWNER, REPO, PR).map((c) => c.body)).toEqual(['loopback'])
    expect(proxy.targets).toEqual([])
  })

  it('NO_PROXY names GitHub: the proxy is not asked', async () => {
    const { proxy, port } = await servers()
    vi.stubEnv('HTTP_PROXY', proxy.url)
    vi.stubEnv('NO_PROXY', `example.org,${HOST}`)

    // Directly, api.github.test does not resolve: the call fails, and the proxy saw nothing.
    await expect(comment(`http://${HOST}:${port}`, 'x')).rejects.toThrow()

    expect(proxy.targets).toEqual([])
  })
})

describe("a GitHub call's deadline", () => {
  it('ends a call GitHub never answers, as no transient failure', async () => {
    const { gh } = await servers()
    gh.stopAnswering()
    const octokit = createOctokit('gh-token', gh.apiUrl)
    const error = await octokit.rest.users.getAuthenticated(withDeadline(300)).then(
      () => undefined,
      (e: unknown) => e,
    )

    // Ended by its 300 ms deadline (a TimeoutError), not by the test's timeout: no wall-clock figure.
    expect((error as { cause?: { name?: string } }).cause?.name).toBe('TimeoutError')
    expect(isTransient(error)).toBe(false)
  })

  it('ends a call whose answer stops halfway through its body, with the same reason', async () => {
    const url = await rawServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"login": "octo')
    })
    const response = await nodeFetch(`${url}/user`, { signal: AbortSignal.timeout(300) })
    const body = await response.text().then(
      () => undefined,
      (e: unknown) => e,
    )

    expect(response.status).toBe(200)
    expect(body).toMatchObject({ name: 'TimeoutError' })
  })

  it('a call made without one still ends: the client gives it the default', async () => {
    const { gh } = await servers()
    const octokit = createOctokit('gh-token', gh.apiUrl)
    let signal: AbortSignal | undefined
    octokit.hook.after('request', (_, options) => {
      signal = options.request?.signal as AbortSignal | undefined
    })

    await octokit.rest.issues.listComments({ owner: OWNER, repo: REPO, issue_number: PR })

    expect(signal).toBeInstanceOf(AbortSignal)
  })
})

describe('redirects', () => {
  it('follows one; the token stays with the origin it was sent to', async () => {
    const seen: IncomingHttpHeaders[] = []
    const target = await rawServer((req, res) => {
      seen.push(req.headers)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"login":"octocat"}')
    })
    // 127.0.0.1 and localhost are two origins.
    const elsewhere = target.replace('127.0.0.1', 'localhost')
    const start = await rawServer((req, res) => {
      seen.push(req.headers)
      res.writeHead(307, { location: `${elsewhere}/user` }).end()
    })

    const { data, url } = await createOctokit('gh-token', start).rest.users.getAuthenticated(
      withDeadline(5_000),
    )

    expect(data.login).toBe('octocat')
    expect(url).toBe(`${elsewhere}/user`)
    expect(seen.map((headers) => headers.authorization)).toEqual(['token gh-token', undefined])
  })
})
