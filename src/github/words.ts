import type { RunItem } from '../api/types.ts'
import type { CancelReport } from '../model/cancel.ts'
import type { Ending } from '../model/outcome.ts'
import { meaningOf } from '../model/states.ts'
import { formatDuration } from '../text/format.ts'

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

const STATE = /^[A-Z_]{1,40}$/

const BLOCKED_LABEL = 'Blocked: waiting for a person'

/**
 * The words for the run as last seen: from its state alone while the step
 * waits (and in the post step), from the step's ending once it has one.
 */
export function wordsFor(run: RunItem, ending?: Ending): PlainWords {
  if (!ending) return wordsForState(run.state, false)
  switch (ending.kind) {
    case 'started':
      return {
        icon: '🚀',
        label: 'Started',
        detail: 'This step did not wait for the run (`wait: false`).',
        showsReason: false,
      }
    case 'finished':
      return wordsForState(ending.state, true)
    case 'timed-out': {
      const state = STATE.test(ending.stateAtTimeout) ? ` ${ending.stateAtTimeout}` : ''
      return {
        icon: '⏱️',
        label: `Timed out after ${formatDuration(ending.timeoutMs)}`,
        detail: `The run was still${state} when the \`timeout\` input (${formatDuration(ending.timeoutMs)}) ran out.${afterCancel(ending.cancel)}`,
        showsReason: false,
      }
    }
    case 'interrupted':
      return {
        icon: '⛔',
        label: 'Interrupted: the workflow was cancelled',
        detail:
          'The workflow was cancelled, which interrupted this step; the action cancels the run with it.',
        showsReason: false,
      }
    case 'superseded':
      return {
        icon: '⏭️',
        label: 'Superseded by a newer run',
        detail: 'A newer run with the same `name` replaced this one (`cancel_previous`).',
        newerRunId: ending.newerRunId,
        showsReason: false,
      }
    case 'over-budget':
      return {
        icon: '💸',
        label: `Over budget: ${ending.credits}, over the cap of ${ending.maxCredits}`,
        detail: `The run used ${ending.credits}, more than the \`max_credits\` cap of ${ending.maxCredits}.${afterCancel(ending.cancel)}`,
        showsReason: false,
      }
    case 'invalid-output':
      return {
        icon: '🧩',
        label: 'Invalid result',
        detail:
          "The agent's result did not validate against `output_schema`, even after the corrections asked for; the job summary names the errors.",
        showsReason: false,
      }
    case 'blocked':
      // What it waits for and how to answer follow; on_blocked is the job summary's to explain.
      return { icon: '✋', label: BLOCKED_LABEL, showsReason: false }
  }
}

/** What became of the run after the step gave up on it: said only as it happened. */
function afterCancel(cancel: CancelReport['kind']): string {
  switch (cancel) {
    case 'cancelled':
      return ' The action cancelled it.'
    case 'already-finished':
      return ' It had finished meanwhile.'
    case 'blocked':
      return ' It waits for a person (BLOCKED), and a run cannot be cancelled while it waits: it stays BLOCKED until someone answers.'
    case 'refused':
    case 'not-cancellable':
    case 'failed':
      return ' The action could not cancel it: check it in the session.'
  }
}

function wordsForState(state: string, ended: boolean): PlainWords {
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
      return ended
        ? {
            icon: '⛔',
            label: 'Cancelled elsewhere',
            detail: 'Someone cancelled the run outside this step (in the app, or through the API).',
            showsReason: true,
          }
        : { icon: '⛔', label: 'Cancelled', showsReason: true }
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
