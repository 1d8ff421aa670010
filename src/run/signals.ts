/**
 * What the runner sends when a workflow is cancelled: SIGINT then SIGTERM on
 * Linux and macOS; Ctrl-C and Ctrl-Break (SIGINT, SIGBREAK) on Windows.
 */
const TERMINATION_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGBREAK'] as const

/** Listens for termination; the handler must end the process itself. Returns the unsubscribe. */
export function onTerminationSignal(handler: (signal: NodeJS.Signals) => void): () => void {
  for (const signal of TERMINATION_SIGNALS) process.on(signal, handler)
  return () => {
    for (const signal of TERMINATION_SIGNALS) process.off(signal, handler)
  }
}
