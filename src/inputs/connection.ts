/** How every step reaches the service: the key (masked first) and the base URL. */
import type { InputSource } from '../step-io.ts'
import { clip } from '../text/plain.ts'
import type { World } from '../world.ts'
import { InputError } from '../input-error.ts'

export interface Connection {
  readonly apiKey: string
  /** Without a trailing slash, ending in `/api/v1`. */
  readonly baseUrl: string
}

/**
 * Warp's Oz platform, whose Agent Runs API this action speaks. action.yml gives the same
 * default; this one serves a workflow that passes an empty value, such as an unset variable.
 */
const DEFAULT_BASE_URL = 'https://app.warp.dev/api/v1'

/** The inputs the post step needs to reach the API: the key and the base URL. */
export function readConnection(source: InputSource): Connection {
  const apiKey = source.get('api_key')
  if (apiKey) source.mask(apiKey)
  if (!apiKey)
    throw new InputError('api_key', `is required but empty.${missingKeyHint(source.world)}`)
  // A line break or space would split the Authorization header; say so without showing the key.
  if (/[\s\p{Cc}]/u.test(apiKey)) {
    throw new InputError('api_key', 'contains whitespace or control characters; check the secret.')
  }
  return { apiKey, baseUrl: parseBaseUrl(source.get('base_url'), apiKey) }
}

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

function parseBaseUrl(value: string, apiKey: string): string {
  // A key pasted into the wrong input must not be echoed back in the error.
  if (!value) return DEFAULT_BASE_URL
  // Quoted whole as given (bar the key), so the user finds the value they wrote.
  const shown = clip(value.split(apiKey).join('***'), 300)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InputError('base_url', `must be an absolute https:// URL; got "${shown}".`)
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOST.test(url.hostname)) {
    throw new InputError(
      'base_url',
      `must use https://; plain http:// is allowed only for loopback hosts (127.0.0.0/8, localhost, [::1]), because the key would travel unencrypted. Got "${shown}".`,
    )
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InputError('base_url', `must be an https:// URL; got "${shown}".`)
  }
  if (url.username || url.password) {
    throw new InputError('base_url', 'must not contain credentials; pass the key as api_key.')
  }
  if (url.search || url.hash) {
    throw new InputError('base_url', `must not have a query or fragment; got "${shown}".`)
  }
  const path = url.pathname.replace(/\/$/, '')
  if (!path.endsWith('/api/v1')) {
    throw new InputError('base_url', `must end in /api/v1; got "${shown}".`)
  }
  return `${url.origin}${path}`
}

/** What to do about a missing key: a fork gets no secrets; otherwise, where keys come from. */
function missingKeyHint(world: World): string {
  return (
    forkHint(world) ||
    ' Make a key in the Warp app (Settings > Cloud platform > API keys), add it as a' +
      ' repository secret (Settings > Secrets and variables > Actions), and pass it:' +
      ' api_key: ${{ secrets.WARP_API_KEY }}.'
  )
}

/**
 * Fork pull requests get no secrets, which is the usual reason for an empty key.
 * Not `pull_request_target`: it runs in the base repository and does get them.
 */
function forkHint(world: World): string {
  const event = world.eventName ?? ''
  if (!event.startsWith('pull_request') || event === 'pull_request_target') return ''
  const head = world.event?.pull_request?.head?.repo?.full_name
  const base = world.event?.pull_request?.base?.repo?.full_name
  if (head && base && head !== base) {
    return ` This pull request comes from the fork ${head}, and GitHub gives no secrets to workflows triggered from forks.`
  }
  return ''
}
