/**
 * Where a module writes its log lines: @actions/core in the action, a recorder
 * in tests. The one logger type every layer takes.
 */
export interface Log {
  debug(message: string): void
  info(message: string): void
  warning(message: string): void
}

/** `log`, each line after `name` ("Task 3 (x): run r1 is …"), its first word made lower case. */
export function namedLog(log: Log, name: string): Log {
  const named = (line: string) => `${name}: ${line.replace(/^Run /, 'run ')}`
  return {
    info: (message) => log.info(named(message)),
    warning: (message) => log.warning(named(message)),
    debug: (message) => log.debug(named(message)),
  }
}
