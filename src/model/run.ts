import type { RunItem } from '../api/types.ts'
import { meaningOf } from './states.ts'

/** The run's own explanation of a failure, when there is one. */
export function statusMessageOf(run: RunItem): string | undefined {
  if (meaningOf(run.state) === 'succeeded') return undefined
  const message = run.status_message?.message?.trim()
  return message ? message : undefined
}
