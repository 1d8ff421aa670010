/**
 * Starts the fake Cloud Agent Runs API, for trying the command or the action by hand, demos and
 * end-to-end tests: `npm run fake-api -- [--port N] [--api-key K] [--host H]` (npm runs it on the
 * Node 24 it installed, on a machine whose own Node is 20 too). Prints `FAKE_API_URL=<baseUrl>`
 * once listening; stops on SIGINT or SIGTERM.
 */
import { parseArgs } from 'node:util'
import { PLAYS, playedScript } from './plays.ts'
import { FakeAgentApi } from './server.ts'

const HELP = `Usage: npm run fake-api -- [--port N] [--api-key KEY] [--host HOST]

Starts a fake Cloud Agent Runs API on loopback and prints FAKE_API_URL=<url> once listening.
  --port N        the port (default: a free one)
  --api-key KEY   the key it accepts (default: test-key)
  --host HOST     the address to listen on (default: 127.0.0.1)

A run's prompt picks how it plays, by its first word:
${Object.entries(PLAYS)
  .map(([word, what]) => `  ${`${word}:`.padEnd(9)}${what}`)
  .join('\n')}
  anything else: succeeds in 0.6 s

Then, in another terminal:
  export WARP_API_KEY=test-key
  node dist/cli.js --base-url "$FAKE_API_URL" --poll-interval 500ms --prompt "fail: fix the build"
(--poll-interval: the default first poll is 5 s, longer than a fake run.)
`

let values: { port?: string; 'api-key'?: string; host?: string; help?: boolean }
try {
  values = parseArgs({
    options: {
      port: { type: 'string' },
      'api-key': { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values
} catch (error) {
  process.stderr.write(
    `fake-api: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`,
  )
  process.exit(2)
}
if (values.help) {
  process.stdout.write(HELP)
  process.exit(0)
}

const port = values.port === undefined ? 0 : Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`fake-api: invalid --port: ${values.port}\n`)
  process.exit(2)
}

const api = await FakeAgentApi.start({
  port,
  script: playedScript,
  ...(values['api-key'] !== undefined ? { apiKey: values['api-key'] } : {}),
  ...(values.host !== undefined ? { host: values.host } : {}),
})
process.stdout.write(`FAKE_API_URL=${api.baseUrl}\n`)

const stop = (): void => {
  api.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
