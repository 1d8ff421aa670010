/** `mcp_servers`: the MCP servers a created run's agent may reach, checked entry by entry. */
import type { McpServerConfig } from '../api/types.ts'
import { errorMessage } from '../text/plain.ts'
import { InputError } from '../input-error.ts'
import { isPlainObject } from './values.ts'

/** Deep enough for any real configuration; deeper would only risk the stack when sent. */
const MAX_MCP_DEPTH = 16

export function parseMcpServers(value: string): Record<string, McpServerConfig> | undefined {
  if (!value) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch (error) {
    const reason = errorMessage(error)
    throw new InputError('mcp_servers', `must be JSON; it does not parse (${reason}).`)
  }
  if (!isPlainObject(parsed)) {
    throw new InputError(
      'mcp_servers',
      'must be a JSON object mapping server names to their configuration.',
    )
  }
  if (depthOf(parsed, MAX_MCP_DEPTH) > MAX_MCP_DEPTH) {
    throw new InputError('mcp_servers', `nests deeper than ${MAX_MCP_DEPTH} levels.`)
  }
  const servers: Record<string, McpServerConfig> = {}
  for (const [name, server] of Object.entries(parsed)) {
    servers[name] = parseMcpServer(name, server)
  }
  return servers
}

/** The kinds of MCP server the service takes: an entry names exactly one. */
const MCP_SERVER_KINDS = ['warp_id', 'command', 'url'] as const

function parseMcpServer(name: string, server: unknown): McpServerConfig {
  const fail = (problem: string): never => {
    throw new InputError('mcp_servers', `entry "${name}" ${problem}`)
  }
  const kindsHelp =
    '"warp_id" (a server saved in the service), "command" (a local server) or "url" (a remote one)'
  if (!isPlainObject(server)) return fail(`must be an object with exactly one of ${kindsHelp}.`)
  const kinds = MCP_SERVER_KINDS.filter((kind) => server[kind] !== undefined)
  if (kinds.length !== 1) {
    return fail(
      kinds.length === 0
        ? `must have exactly one of ${kindsHelp}.`
        : `has ${kinds.map((kind) => `"${kind}"`).join(' and ')}; give exactly one of ${kindsHelp}.`,
    )
  }
  for (const kind of kinds) {
    const value = server[kind]
    if (typeof value !== 'string' || value.trim() === '') {
      fail(`has a "${kind}" that is not a non-empty string.`)
    }
  }
  if (typeof server.url === 'string' && !URL.canParse(server.url)) {
    fail(`has a "url" that is not a URL.`)
  }
  const args = server.args
  if (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === 'string'))) {
    fail(`has "args" that is not a list of strings.`)
  }
  for (const map of ['env', 'headers'] as const) {
    const value = server[map]
    if (value !== undefined && !isStringMap(value)) {
      fail(`has "${map}" that is not an object of strings.`)
    }
  }
  return server as McpServerConfig
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string')
}

/** How deeply objects and arrays nest in `value`, counted without recursion, up to `limit + 1`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0
  const pending: Array<[unknown, number]> = [[value, 1]]
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number]
    if (typeof item !== 'object' || item === null) continue
    deepest = Math.max(deepest, depth)
    if (deepest > limit) return deepest
    for (const child of Object.values(item)) pending.push([child, depth + 1])
  }
  return deepest
}
