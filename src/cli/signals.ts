/**
 * SIGINT and SIGTERM for a subcommand that leaves nothing going whatever stops it (`reconcile`,
 * whose sweep is a cancel; `report`, which only reads): until stopped, a signal ends it at once
 * with the exit table's code (130, 143) and, with `--json`, its one JSON object, as the command
 * answers a signal that comes before it has made any run.
 */
import { EXIT } from './answer.ts'
import type { CommandIo } from './io.ts'

type TerminationSignal = 'SIGINT' | 'SIGTERM'

export function endOnSignal(
  io: CommandIo,
  options: {
    /** The subcommand, for its line on stderr (`cloud-agent-run reconcile`). */
    readonly name: string
    readonly json: boolean
    /** The JSON object the signal's exit prints: what is known so far. */
    readonly answer: (signal: TerminationSignal, exitCode: number) => Record<string, unknown>
  },
): { stop(): void } {
  const host = io.process
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
    const handler = () => {
      io.stderr(`${options.name}: received ${signal}; stopping.\n`)
      if (options.json) {
        io.stdout(`${JSON.stringify(options.answer(signal, EXIT[signal]), null, 2)}\n`)
      }
      host.exit(EXIT[signal])
    }
    host.on(signal, handler)
    return [signal, handler] as const
  })
  return {
    stop: () => {
      for (const [signal, handler] of handlers) host.off(signal, handler)
    },
  }
}
