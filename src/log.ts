/**
 * Where a module writes its log lines: @actions/core in the action, a recorder
 * in tests. The one logger type every layer takes.
 */
export interface Log {
  debug(message: string): void
  info(message: string): void
  warning(message: string): void
}
