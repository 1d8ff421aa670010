import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'

/**
 * An HTTP CONNECT proxy on loopback, as a runner's HTTPS_PROXY or HTTP_PROXY would be. It
 * records each target it is asked for (`host:port`) and tunnels it to that port on 127.0.0.1,
 * whatever the host: a test names GitHub by a host that does not resolve (`api.github.test`),
 * since `@actions/http-client` never sends a loopback address through a proxy.
 */
export class ConnectProxy {
  readonly url: string
  /** Every CONNECT target, in arrival order. */
  readonly targets: string[] = []
  readonly #server: Server
  readonly #sockets = new Set<Socket>()

  private constructor(server: Server) {
    this.#server = server
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  static async start(): Promise<ConnectProxy> {
    const server = createServer((_, res) => {
      // Only tunnels: a request sent to the proxy as is would bypass what is tested.
      res.writeHead(405).end()
    })
    const proxy = new ConnectProxy(await listening(server))
    server.on('connect', (req, client: Socket) => {
      const target = req.url ?? ''
      proxy.targets.push(target)
      proxy.#track(client)
      const port = Number(target.slice(target.lastIndexOf(':') + 1))
      const upstream = proxy.#track(connect(port, '127.0.0.1'))
      upstream.on('connect', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
        upstream.pipe(client).pipe(upstream)
      })
      upstream.on('error', () => client.destroy())
      client.on('error', () => upstream.destroy())
    })
    return proxy
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  #track(socket: Socket): Socket {
    this.#sockets.add(socket)
    socket.on('close', () => this.#sockets.delete(socket))
    return socket
  }
}

async function listening(server: Server): Promise<Server> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  return server
}
