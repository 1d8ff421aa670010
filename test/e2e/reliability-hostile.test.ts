/**
 * Hostile faults, round three (issue 16), through the action as the runner runs
 * it: every wait after the create inside `timeout`, artifacts only inside the
 * workspace, no request a remote service can aim at the runner, and endings
 * that say what happened.
 */
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { TLSSocket } from 'node:tls'
import { afterAll, describe, expect, it } from 'vitest'
import { conversationStep, type FakeAgentApi, type RunScript } from '../fake-api/server.ts'
import { runStep, type StepResult } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-hostile-3c9e'
const { fakeApi, inputsFor } = e2eServers(KEY, { prompt: 'Review', title: 'Review' })

const proxies: Server[] = []
afterAll(async () => {
  await Promise.all(
    proxies.splice(0).map((proxy) => {
      proxy.closeAllConnections()
      return new Promise((resolve) => proxy.close(resolve))
    }),
  )
})

const FIXTURES = new URL('./fixtures/', import.meta.url)
const REMOTE_HOST = 'agents.example.test'

/**
 * The fake API as a remote https service: base_url names another host, and a
 * CONNECT proxy (the runner's https_proxy) ends TLS for it with a certificate the
 * step trusts (NODE_EXTRA_CA_CERTS) and hands the bytes to the fake.
 */
async function asRemoteService(api: FakeAgentApi) {
  const key = readFileSync(new URL('remote-service-tls.key', FIXTURES))
  const cert = readFileSync(new URL('remote-service-tls.crt', FIXTURES))
  const target = new URL(api.baseUrl)
  const proxy = createServer()
  proxy.on('connect', (_request, client, head) => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
    if (head.length > 0) client.unshift(head)
    const tls = new TLSSocket(client, { isServer: true, key, cert })
    const upstream = connect(Number(target.port), target.hostname)
    tls.pipe(upstream).pipe(tls)
    tls.on('error', () => upstream.destroy())
    upstream.on('error', () => tls.destroy())
  })
  proxies.push(proxy)
  proxy.listen(0, '127.0.0.1')
  await once(proxy, 'listening')
  const { port } = proxy.address() as AddressInfo
  return {
    baseUrl: `https://${REMOTE_HOST}${target.pathname}`,
    env: {
      https_proxy: `http://127.0.0.1:${port}`,
      NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('remote-service-tls.crt', FIXTURES)),
    },
  }
}

const file = (uid: string, filepath: string) => ({
  artifact_type: 'FILE' as const,
  created_at: '2026-01-01T00:00:00Z',
  data: { artifact_uid: uid, filepath, filename: filepath, mime_type: 'text/plain' },
})

function withFiles(...artifacts: ReturnType<typeof file>[]): RunScript {
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 50 },
    {
      state: 'SUCCEEDED',
      afterMs: 300,
      patch: { artifacts },
      conversation: [
        conversationStep('step_1', [
          { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
        ]),
      ],
    },
  ]
}

function warnings(result: StepResult): string[] {
  return result.stdout.split('\n').filter((line) => line.startsWith('::warning'))
}

describe('no request a remote service can aim at the runner', () => {
  it('a remote base_url hands out a download URL on loopback: refused, nothing fetched', async () => {
    const api = await fakeApi({ script: () => withFiles(file('art_1', 'report.txt')) })
    api.setArtifactContent('art_1', 'from the runner itself')
    const remote = await asRemoteService(api)
    const result = await runStep({
      inputs: inputsFor(remote, { download_artifacts: '**' }),
      env: remote.env,
    })

    expect(result.code).toBe(0)
    expect(result.outputs.state).toBe('SUCCEEDED')
    expect(api.requests.length).toBeGreaterThan(0)
    expect(warnings(result).join('\n')).toMatch(
      /Could not download artifact "report.txt": Refusing to download from http:\/\/127\.0\.0\.1:\d+: it is this machine, and base_url is not/,
    )
    expect(api.downloads.requests).toEqual([])
  })
})
