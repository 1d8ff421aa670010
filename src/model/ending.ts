import { capLabel, capWords } from './spend-cap.ts'
import { costIn, formatAmount, otherUnit, unitName, type Unit } from './money.ts'
import type { RunCost } from '../agent/cost.ts'
import type { ReviewVerdict } from '../agent/review-document.ts'
import type { RunItem } from '../api/types.ts'
import { WORKFLOW_WORDS, type Interrupted } from '../door-words.ts'
import { formatDuration } from '../text/format.ts'
import { escapeMarkdown } from '../text/markdown.ts'
import { clip } from '../text/plain.ts'
import { approveLine, pinWords, short, type ApprovalPin } from './approval.ts'
import { describeCancel, type CancelReport } from './cancel.ts'
import { statusMessageOf } from './run-item.ts'
import {
  OUTCOME_RECORDS,
  outcomeOfState,
  outcomeOfStop,
  REVIEW_VERDICT_RECORDS,
  type Outcome,
  type OutcomeRecord,
  type StoppedCause,
} from './outcome.ts'
import type { StepOutcome } from './step.ts'

/** The run an ending is about, as every surface names it. */
interface RunFacts {
  readonly runId: string
  /** The run's title, else `Run <id>`; the summary's headline opens with it. */
  readonly name: string
  /** The service's status message: the reason of a failure, when it gave one. */
  readonly statusMessage?: string
}

/** How the step came to stop, with the facts each way needs to be explained. */
export type Ending =
  | { readonly kind: 'started'; readonly run: RunFacts; readonly state: string }
  | {
      readonly kind: 'finished'
      readonly run: RunFacts
      readonly state: string
      readonly verdict?: ReviewVerdict
    }
  | {
      readonly kind: 'timed-out'
      readonly run: RunFacts
      readonly timeoutMs: number
      readonly stateAtTimeout: string
      /** How the cancel that followed went: only a cancel that landed may be claimed. */
      readonly cancel: CancelReport
    }
  | {
      readonly kind: 'interrupted'
      readonly run: RunFacts | undefined
      readonly signal: string | undefined
      readonly cancel: CancelReport | undefined
      /** What the signal meant, in the door's words; the workflow's when not given. */
      readonly by?: Interrupted
    }
  | {
      /** Stopped by the step for a cause not the run's: an error, or its set's pass_when. */
      readonly kind: 'stopped'
      readonly run: RunFacts
      readonly cause: StoppedCause
      readonly cancel: CancelReport
    }
  | { readonly kind: 'blocked'; readonly run: RunFacts; readonly onBlocked: 'fail' | 'pass' }
  | {
      readonly kind: 'over-budget'
      readonly run: RunFacts
      /** What it used, in the cap's unit: `$0.42`, `42 credits`, `42 credits and no dollar figure`. */
      readonly used: string
      /** The cap the run went past, in words (`capWords`), and short (`capLabel`). */
      readonly cap: string
      readonly capLabel: string
      readonly cancel: CancelReport
    }
  | { readonly kind: 'superseded'; readonly run: RunFacts; readonly newerRunId: string }
  | { readonly kind: 'handed-over'; readonly run: RunFacts; readonly reason: string }
  | {
      readonly kind: 'invalid-output'
      readonly run: RunFacts
      readonly errors: readonly string[]
      readonly corrections: number
      readonly input: 'output_schema' | 'pull_request_review'
    }
  | {
      /** approval: no run was created; it waits for a maintainer's approval of `head`. */
      readonly kind: 'awaiting-approval'
      readonly run?: undefined
      /** What it waits on; undefined when GitHub could not say (nothing starts then either). */
      readonly pin: ApprovalPin | undefined
      /** Why the step needs one, in the comment's words (Markdown, our own text). */
      readonly why: string
      readonly approverPermission: string
      /** Why an approval that came did not count, when one did not. */
      readonly refused?: string
    }

/** A step that created nothing: it waits for an approval of the head (approval). */
export type AwaitingApproval = Extract<Ending, { kind: 'awaiting-approval' }>

/** The step's outcome as the pure outcome rules see it. */
export function endingOf(outcome: StepOutcome): Ending {
  switch (outcome.kind) {
    case 'started':
      return { kind: 'started', run: factsOf(outcome.run), state: outcome.run.state }
    case 'finished': {
      const run = factsOf(outcome.run)
      if (outcome.supersededBy) return { kind: 'superseded', run, newerRunId: outcome.supersededBy }
      if (outcome.invalidOutput) return { kind: 'invalid-output', run, ...outcome.invalidOutput }
      return { kind: 'finished', run, state: outcome.run.state, verdict: outcome.reviewVerdict }
    }
    case 'timed-out':
      return {
        kind: 'timed-out',
        run: factsOf(outcome.run),
        timeoutMs: outcome.timeoutMs,
        // A run seen BLOCKED only by the cancel's refusal was BLOCKED when time ran out.
        stateAtTimeout: outcome.cancel.kind === 'blocked' ? 'BLOCKED' : outcome.stateAtTimeout,
        cancel: outcome.cancel,
      }
    case 'interrupted':
      return {
        kind: 'interrupted',
        run: outcome.run && factsOf(outcome.run),
        signal: outcome.signal,
        cancel: outcome.cancel,
        ...(outcome.by ? { by: outcome.by } : {}),
      }
    case 'over-budget':
      return {
        kind: 'over-budget',
        run: factsOf(outcome.run),
        used: spentWords(outcome.cost, outcome.cap.amount.unit),
        cap: capWords(outcome.cap),
        capLabel: capLabel(outcome.cap),
        cancel: outcome.cancel,
      }
    case 'stopped':
      return {
        kind: 'stopped',
        run: factsOf(outcome.run),
        cause: outcome.cause,
        cancel: outcome.cancel,
      }
    case 'blocked':
      return {
        kind: 'blocked',
        run: factsOf(outcome.run),
        onBlocked: outcome.passes ? 'pass' : 'fail',
      }
    case 'handed-over':
      return { kind: 'handed-over', run: factsOf(outcome.run), reason: outcome.reason }
  }
}

function factsOf(run: RunItem): RunFacts {
  const title = run.title?.trim()
  return {
    runId: run.run_id,
    name: title ? clip(title.replace(/\s+/g, ' '), 200) : `Run ${run.run_id}`,
    statusMessage: statusMessageOf(run),
  }
}

/** An outcome's words with its facts: the record, and what this ending adds to it. */
export interface EndingWords extends OutcomeRecord {
  /** The `outcome` output's word. */
  readonly outcome: Outcome
  /** A few words for the comment's headline and the commit status, e.g. "Timed out after 30m". */
  readonly label: string
  /** A sentence more for the comment (Markdown, our own text). */
  readonly detail?: string
  /** Whether the service's status message is the reason, and worth showing beside the label. */
  readonly showsReason: boolean
  /** Why the run ended, in plain words: the summary, the log, the check run. */
  readonly why: string
  /** The summary's headline: the run's name and what became of it. */
  readonly headline: string
  /** For a step that fails: the error line. Service text in it is unescaped. */
  readonly failure?: string
}

/** The `outcome` output's word for a step's outcome. */
export function outcomeWordOf(outcome: StepOutcome): Outcome {
  return describeEnding(endingOf(outcome)).outcome
}

/** The words for one ending: one switch, for every surface. */
export function describeEnding(ending: Ending): EndingWords {
  const { name, runId } = ending.run ?? {}
  const word = (outcome: Outcome) => ({ outcome, ...OUTCOME_RECORDS[outcome] })
  switch (ending.kind) {
    case 'started':
      return {
        ...word('started'),
        label: 'Started',
        detail:
          "This step did not wait for the run (`wait: false`); a `reconcile` pass brings what it shows on GitHub to the run's end.",
        showsReason: false,
        why: 'The step did not wait for the run (wait: false); it goes on without this step.',
        headline: `${name} started (${ending.state}); not waiting for it`,
      }
    case 'finished':
      return ending.verdict && ending.state === 'SUCCEEDED'
        ? reviewedWords(ending.run, ending.verdict)
        : finishedWords(ending.run, ending.state)
    case 'timed-out': {
      const timeout = formatDuration(ending.timeoutMs)
      const state = STATE.test(ending.stateAtTimeout) ? ` ${ending.stateAtTimeout}` : ''
      const cancel = describeCancel(ending.run.runId, ending.cancel)
      // The cancel's refusal says BLOCKED and why; any other state is said here.
      const stateWas = ending.cancel.kind === 'blocked' ? '' : ` it was ${ending.stateAtTimeout}.`
      return {
        ...word('timed_out'),
        label: `Timed out after ${timeout}`,
        detail: `The run was still${state} when the \`timeout\` input (${timeout}) ran out.${afterCancel(ending.cancel)}`,
        showsReason: false,
        why: `The run was still ${ending.stateAtTimeout} when the timeout input (${timeout}) ran out. ${cancel}`,
        headline: `${ending.run.name} timed out`,
        failure: `Run ${ending.run.runId} did not finish within the timeout input (${timeout});${stateWas} ${cancel}`,
      }
    }
    case 'interrupted': {
      const cancel = runId && ending.cancel ? ` ${describeCancel(runId, ending.cancel)}` : ''
      const { reason, effect } = ending.by ?? WORKFLOW_WORDS.interrupted
      const Reason = `${reason.charAt(0).toUpperCase()}${reason.slice(1)}`
      return {
        ...word('interrupted'),
        label: `Interrupted: ${reason}`,
        detail: `${Reason}, ${effect}; the action cancels the run with it.`,
        showsReason: false,
        why: `${Reason}, ${effect}.${cancel}`,
        headline: name ? `${name} was interrupted: ${reason}` : `Interrupted: ${reason}`,
        failure: `${Reason}${ending.signal ? ` (${ending.signal})` : ''}, ${effect}.${cancel}`,
      }
    }
    case 'blocked': {
      const passes = ending.onBlocked === 'pass'
      return {
        ...word('blocked'),
        passes,
        commitState: passes ? 'success' : 'failure',
        // What it waits for and how to answer follow; on_blocked is the job summary's to explain.
        label: BLOCKED_LABEL,
        showsReason: false,
        why: `The run waits for a person (BLOCKED); with on_blocked: ${ending.onBlocked} the step hands it over and ${passes ? 'passes' : 'fails'}.`,
        headline: `${ending.run.name} is blocked, waiting for a person`,
        failure: passes
          ? undefined
          : `Run ${ending.run.runId} is BLOCKED: it waits for a person (on_blocked: fail). It stays BLOCKED until someone answers in the session.`,
      }
    }
    case 'over-budget': {
      const used = `The run used ${ending.used}, more than ${ending.cap}`
      const cancel = describeCancel(ending.run.runId, ending.cancel)
      return {
        ...word('over_budget'),
        label: `Over budget: ${ending.used}, over ${ending.capLabel}`,
        detail: `The run used ${ending.used}, more than ${escapeMarkdown(ending.cap)}.${afterCancel(ending.cancel)}`,
        showsReason: false,
        why: `${used}. ${cancel}`,
        headline: `${ending.run.name} went over budget`,
        failure: `${used} (run ${ending.run.runId}). ${cancel}`,
      }
    }
    case 'stopped': {
      const cancel = describeCancel(ending.run.runId, ending.cancel)
      const { label, why } = STOPPED_WORDS[ending.cause]
      return {
        ...word(outcomeOfStop(ending.cause)),
        label,
        showsReason: false,
        why: `${upperFirst(why)}. ${cancel}`,
        headline: `${ending.run.name} was stopped: ${why}`,
        failure: `Run ${ending.run.runId}: ${why}. ${cancel}`,
      }
    }
    case 'superseded':
      return {
        ...word('superseded'),
        label: 'Superseded by a newer run',
        detail: 'A newer run with the same `name` replaced this one (`cancel_previous`).',
        showsReason: false,
        why: `A newer run with the same name replaced this one (cancel_previous): ${ending.newerRunId}.`,
        headline: `${ending.run.name} was superseded by run ${ending.newerRunId}`,
      }
    case 'handed-over':
      return {
        ...word('superseded'),
        label: 'Handed to a newer step',
        detail: 'A newer step for this thread steers the run now (`previous_run: steer`).',
        showsReason: false,
        why: `A newer step for this thread steers run ${ending.run.runId} now (previous_run: steer): ${ending.reason}. This step handed it over and cancelled nothing.`,
        headline: `${ending.run.name} was handed to a newer step`,
      }
    case 'invalid-output':
      return {
        ...word('invalid_output'),
        label: 'Invalid result',
        detail: `The agent's result did not validate against ${schemaNamed(ending.input, '`')}, even after the corrections asked for; the job summary names the errors.`,
        showsReason: false,
        why: `The agent's result ${describeInvalidOutput(ending)}`,
        headline: `${ending.run.name} gave a result that does not validate`,
        failure: `Run ${ending.run.runId}: the agent's result ${describeInvalidOutput(ending)}`,
      }
    case 'awaiting-approval': {
      const { pin } = ending
      const what = pin ? pinWords(pin) : 'the head commit'
      const of = pin ? ` of ${pin.kind === 'commit' ? short(pin.sha) : pin.item}` : ''
      const refused = ending.refused ? ` The approval given does not count: ${ending.refused}.` : ''
      const line = !pin
        ? ''
        : pin.kind === 'commit'
          ? ` (a review, or a comment "${approveLine(pin.sha)}")`
          : ` (a comment "${approveLine(pin.digest)}")`
      const anew = pin?.kind === 'item' ? 'an edit of it' : 'a newer push'
      return {
        ...word('awaiting_approval'),
        label: `Waiting for approval${of}`,
        detail: `${upperFirst(ending.why)}: the run starts only once someone with at least ${ending.approverPermission} permission on the repository approves ${pin?.kind === 'commit' ? 'this commit' : pin ? escapeMarkdown(pin.item) : 'the head commit'}.${refused ? escapeMarkdown(refused) : ''}`,
        showsReason: false,
        why: `No run was created: ${plainWords(ending.why)}. It starts once someone with at least ${ending.approverPermission} permission approves ${what}${line}; ${anew} needs a new approval.${refused}`,
        headline: `Waiting for approval${of}: no run was created`,
      }
    }
  }
}

/** What a run stopped for a cause told by the cause alone is said to have met. */
const STOPPED_WORDS: { readonly [C in StoppedCause]: { label: string; why: string } } = {
  'pass-when': {
    label: 'Cancelled: its set could no longer pass',
    why: 'its set could no longer pass (pass_when), so the step stopped it',
  },
  error: { label: 'Stopped by an error', why: 'an error ended the step, which stopped it' },
}

/** A sentence's first letter, in capitals. */
function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** Our own Markdown, for the log: its code spans as plain words. */
function plainWords(markdown: string): string {
  return markdown.replaceAll('`', '')
}

/** A run that succeeded with a review: the verdict leads, and the run's success is said beside it. */
function reviewedWords(run: RunFacts, verdict: ReviewVerdict): EndingWords {
  const record = REVIEW_VERDICT_RECORDS[verdict]
  return {
    ...OUTCOME_RECORDS.succeeded,
    outcome: 'succeeded',
    icon: record.icon,
    commitState: record.commitState,
    check: record.check,
    label: record.title,
    showsReason: false,
    why: `The run succeeded; the agent's review ${record.says}.`,
    headline: `${record.title}: ${run.name}`,
  }
}

/**
 * A run that ended on its own: by its state. Its status message is not in `why`: every
 * surface shows it beside (the summary's row, the status's description, the error line).
 */
function finishedWords(run: RunFacts, state: string): EndingWords {
  const outcome = outcomeOfState(state) ?? 'failed'
  const record = { outcome, ...OUTCOME_RECORDS[outcome] }
  const failure = `Run ${run.runId} ended ${state}${run.statusMessage ? `: ${run.statusMessage}` : ' (the service gave no status message)'}`
  // Without a status message the reason is said to be missing, not left blank.
  const reasonless = (why: string) =>
    run.statusMessage ? why : `${why.replace(/\.$/, '')}; the service gave no status message.`
  switch (state) {
    case 'SUCCEEDED':
      return {
        ...record,
        label: 'Succeeded',
        showsReason: false,
        why: 'The agent finished its task.',
        headline: `${run.name} succeeded`,
      }
    case 'FAILED':
      return {
        ...record,
        label: 'Failed',
        showsReason: true,
        why: reasonless('The agent could not finish its task.'),
        headline: `${run.name} failed`,
        failure,
      }
    case 'ERROR':
      return {
        ...record,
        label: "Error on the service's side",
        showsReason: true,
        why: reasonless("A failure on the service's side stopped the run."),
        headline: `${run.name} ended in an error on the service's side`,
        failure,
      }
    case 'CANCELLED':
      return {
        ...record,
        label: 'Cancelled elsewhere',
        detail: 'Someone cancelled the run outside this step (in the app, or through the API).',
        showsReason: true,
        why: reasonless(
          'The run was cancelled outside this step (in the app, or through the API).',
        ),
        headline: `${run.name} was cancelled elsewhere`,
        failure,
      }
    default:
      return {
        ...record,
        commitState: 'error',
        label: 'Did not succeed',
        showsReason: true,
        why: reasonless(`The run ended ${state}.`),
        headline: `${run.name} ended ${state}`,
        failure,
      }
  }
}

/** What became of the run after the step gave up on it: said only as it happened. */
function afterCancel(cancel: CancelReport): string {
  switch (cancel.kind) {
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

export const BLOCKED_LABEL = 'Blocked: waiting for a person'

const STATE = /^[A-Z_]{1,40}$/

/**
 * A failed run's extra facts: how long its session stays open to look
 * inside, and whether the service calls the failure a platform one.
 */
export function failureNotes(statusMessage: unknown, now: number): string[] {
  if (typeof statusMessage !== 'object' || statusMessage === null) return []
  const { session_debug_until: until, retryable } = statusMessage as Record<string, unknown>
  const notes: string[] = []
  const untilMs = typeof until === 'string' ? Date.parse(until) : NaN
  if (Number.isFinite(untilMs) && untilMs > now) {
    notes.push(
      `The session stays open for debugging until ${new Date(untilMs).toISOString().replace('.000Z', 'Z')}.`,
    )
  }
  if (retryable === true) notes.push('A platform failure; a re-run may succeed.')
  return notes
}

/** What was wrong with a result that never validated, after how many corrections. */
export function describeInvalidOutput(ending: {
  errors: readonly string[]
  corrections: number
  input: 'output_schema' | 'pull_request_review'
}): string {
  const after =
    ending.corrections === 0
      ? ''
      : ` after ${ending.corrections} correction${ending.corrections === 1 ? '' : 's'}`
  return `did not validate against ${schemaNamed(ending.input)}${after}: ${ending.errors.slice(0, 3).join('; ')}.`
}

/** The schema a result is checked against, named by the input the user set. */
function schemaNamed(input: 'output_schema' | 'pull_request_review', quote = ''): string {
  return input === 'output_schema'
    ? `${quote}output_schema${quote}`
    : `the review's schema (${quote}pull_request_review${quote})`
}

/** What a run used, in `unit`; where it reports no figure in it, what it reports and that. */
function spentWords(cost: RunCost, unit: Unit): string {
  const spent = costIn(cost, unit)
  if (spent !== undefined) return formatAmount({ value: spent, unit })
  const other = otherUnit(unit)
  const reported = formatAmount({ value: costIn(cost, other) ?? 0, unit: other })
  return `${reported} and no figure in ${unitName(unit)}`
}
