import type { RunItem } from '../api/types.ts'
import { BLOCKED_LABEL, describeEnding, type Ending } from '../model/ending.ts'
import { meaningOf } from '../model/states.ts'

/**
 * Where a run stands, in plain words, for the places a person glances at: the
 * comment's headline and the commit status. The summary and the log say more.
 */
export interface PlainWords {
  icon: string
  /** A few words, e.g. "Timed out after 30m". Our own text: no API text in it. */
  label: string
  /** A sentence more, our own text. */
  detail?: string
  /** Superseded: the newer run (an ID from the API: escape it where it is shown). */
  newerRunId?: string
  /** Whether the service's status message is the reason, and worth showing. */
  showsReason: boolean
}

/**
 * The words for the run as last seen: from its state alone while the step
 * waits (and in the post step), from the step's ending once it has one.
 */
export function wordsFor(run: RunItem, ending?: Ending): PlainWords {
  if (!ending) return wordsForState(run.state)
  const words = describeEnding(ending)
  return {
    icon: words.icon,
    label: words.label,
    detail: words.detail,
    newerRunId: ending.kind === 'superseded' ? ending.newerRunId : undefined,
    showsReason: words.showsReason,
  }
}

function wordsForState(state: string): PlainWords {
  switch (state) {
    case 'QUEUED':
    case 'PENDING':
      return {
        icon: '⏳',
        label: 'Queued',
        detail: 'Waiting for an agent to pick the run up.',
        showsReason: false,
      }
    case 'SUCCEEDED':
      return { icon: '✅', label: 'Succeeded', showsReason: false }
    case 'FAILED':
      return { icon: '❌', label: 'Failed', showsReason: true }
    case 'ERROR':
      return { icon: '❌', label: "Error on the service's side", showsReason: true }
    case 'CANCELLED':
      // Only the step's ending knows who cancelled it; the post step's cancel is its own.
      return { icon: '⛔', label: 'Cancelled', showsReason: true }
  }
  switch (meaningOf(state)) {
    case 'blocked':
      return { icon: '✋', label: BLOCKED_LABEL, showsReason: false }
    case 'failed':
      return { icon: '❌', label: 'Did not succeed', showsReason: true }
    case 'succeeded':
      return { icon: '✅', label: 'Succeeded', showsReason: false }
    default:
      return {
        icon: '⏳',
        label: 'In progress',
        detail: 'The agent is working; follow it in the session.',
        showsReason: false,
      }
  }
}
