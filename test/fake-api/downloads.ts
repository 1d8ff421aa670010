/**
 * The fake's object storage: a second loopback origin that serves artifact and transcript
 * downloads at signed, time-limited URLs, as the service's storage host does. It refuses a
 * missing, wrong or expired signature and records every request, with any Authorization header,
 * so tests can prove the API key never travels to it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingHttpHeaders, Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface DownloadRequest {
  method: string
  /** Path without the query. */
  path: string
  headers: IncomingHttpHeaders
  /** The Authorization header it was sent, which a well-behaved client never sends here. */
  authorization: string | undefined
  status: number
}

interface StoredObject {
  content: Buffer
  contentType: string
}

/** How long a signed URL stays valid unless told otherwise. */
const DEFAULT_TTL_MS = 15 * 60_000

export class DownloadOrigin {
  readonly origin: string
  readonly requests: DownloadRequest[] = []
  readonly #server: Server
  readonly #secret = randomBytes(16)
  readonly #objects = new Map<string, StoredObject>()
  #closing: Promise<void> | undefined

  private constructor(server: Server, origin: string) {
    this.#server = server
    this.origin = origin
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', this.origin)
      const status = this.#statusFor(url)
      this.requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        headers: req.headers,
        authorization: req.headers.authorization,
        status,
      })
      const object = this.#objects.get(url.pathname)
      if (status !== 200 || !object) {
        res.writeHead(status, { 'content-type': 'application/xml' })
        res.end(`<Error><Code>${status === 404 ? 'NoSuchKey' : 'AccessDenied'}</Code></Error>`)
        return
      }
      res.writeHead(200, {
        'content-type': object.contentType,
        'content-length': String(object.content.length),
      })
      res.end(req.method === 'HEAD' ? undefined : object.content)
    })
  }

  static async start(host = '127.0.0.1'): Promise<DownloadOrigin> {
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
    const { port } = server.address() as AddressInfo
    const urlHost = host.includes(':') ? `[${host}]` : host
    return new DownloadOrigin(server, `http://${urlHost}:${port}`)
  }

  /** Stores `content` at `path` and returns a signed URL for it, valid for `ttlMs`. */
  put(
    path: string,
    content: string | Buffer,
    contentType: string,
    ttlMs = DEFAULT_TTL_MS,
  ): { url: string; expiresAt: string } {
    this.#objects.set(path, {
      content: typeof content === 'string' ? Buffer.from(content) : content,
      contentType,
    })
    const expires = Date.now() + ttlMs
    const url = new URL(path, this.origin)
    url.searchParams.set('expires', String(expires))
    url.searchParams.set('signature', this.#sign(path, expires))
    return { url: url.toString(), expiresAt: new Date(expires).toISOString() }
  }

  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeAllConnections()
    })
    return this.#closing
  }

  #statusFor(url: URL): number {
    const expires = Number(url.searchParams.get('expires'))
    const signature = url.searchParams.get('signature') ?? ''
    const expected = Buffer.from(this.#sign(url.pathname, expires))
    const given = Buffer.from(signature)
    const valid = given.length === expected.length && timingSafeEqual(given, expected)
    if (!valid || !(expires > Date.now())) return 403
    return this.#objects.has(url.pathname) ? 200 : 404
  }

  #sign(path: string, expires: number): string {
    return createHmac('sha256', this.#secret).update(`${path}\n${expires}`).digest('hex')
  }
}
