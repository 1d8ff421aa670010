/**
 * Where the transport may download from: a signed URL the service hands out (an artifact's),
 * never this machine unless the service is on it too.
 */
/**
 * A signed download URL: https, or plain http on this machine when the service
 * itself is on it (`serviceIsLoopback`). A remote service's URL may not name this
 * machine at all, whatever its scheme.
 */
export function parseDownloadUrl(url: string, serviceIsLoopback: boolean): URL {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    throw new Error('The download URL the service gave does not parse')
  }
  const local = isLoopback(target.hostname)
  if (local && !serviceIsLoopback) {
    throw new Error(
      `Refusing to download from ${target.protocol}//${target.host}: it is this machine, and base_url is not`,
    )
  }
  if (target.protocol === 'https:' || (target.protocol === 'http:' && local)) return target
  throw new Error(
    `Refusing to download from ${target.protocol}//${target.host}: only https is allowed`,
  )
}

/**
 * Whether a URL's hostname (as `URL` writes it: IPv4 in dotted decimal, IPv6 in
 * brackets and compressed) is this machine: localhost and its subdomains,
 * 127.0.0.0/8, 0.0.0.0, ::1, ::, and IPv4-mapped loopback.
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (/^127\.\d+\.\d+\.\d+$/.test(host) || host === '0.0.0.0') return true
  if (host === '[::1]' || host === '[::]') return true
  // ::ffff:127.x.y.z, which URL writes as [::ffff:7fxx:xxxx]; and [::ffff:0:0] for 0.0.0.0.
  return /^\[::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|0:0)\]$/.test(host)
}
