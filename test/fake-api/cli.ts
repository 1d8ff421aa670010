/**
 * Starts the fake Cloud Agent Runs API for demos and end-to-end tests:
 *   node test/fake-api/cli.ts [--port N] [--api-key K] [--host H]
 * Prints `FAKE_API_URL=<baseUrl>` once listening; stops on SIGINT or SIGTERM.
 */
import { parseArgs } from 'node:util'
import { FakeAgentApi } from './server.ts'

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    'api-key': { type: 'string' },
    host: { type: 'string' },
  },
})

const port = values.port === undefined ? 0 : Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`invalid --port: ${values.port}\n`)
  process.exit(2)
}

const api = await FakeAgentApi.start({
  port,
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
