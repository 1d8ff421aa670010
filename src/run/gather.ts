import type { Conversation } from '../agent/conversation.ts'
import { collectAgentWork, type AgentWork, type AgentWorkSources } from '../agent/work.ts'
import { abortAfter } from '../api/transport.ts'
import type { AgentWorkSettings } from '../inputs/agent-work.ts'
import type { Log } from '../log.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { outcomeWordOf } from '../model/ending.ts'
import type { StepOutcome } from '../model/step.ts'
import { safeForLog } from '../text/log.ts'
import { AGENT_WORK_DEADLINE_MS } from '../timing.ts'
import type { World } from '../world.ts'

/** What gathering the agent's work needs besides the outcome. */
export interface GatherDeps {
  readonly settings: AgentWorkSettings
  /** Where files may be written: the workspace and the runner's temp. */
  readonly world: Pick<World, 'workspace' | 'runnerTemp'>
  readonly sources: AgentWorkSources
  /** A conversation already read (at BLOCKED, or to check the result), to save a request. */
  readonly conversation: Conversation | undefined
  readonly signal: AbortSignal
  /** When every wait on the service must have ended (PAST_TIMEOUT_MS past the timeout). */
  readonly endBy: number
  readonly log: Log
  /** Its lines on reading the answer are debug lines (each task's of a set: not one per task). */
  readonly quietAnswer?: boolean
}

/**
 * The agent's answer and files, on an outcome whose record says it carries them (a run that
 * ended, was stopped by the step, or was handed to a person at BLOCKED); nothing otherwise.
 * Nothing here changes the outcome.
 */
export async function gatherAgentWork(
  outcome: StepOutcome,
  deps: GatherDeps,
): Promise<Partial<AgentWork>> {
  if (!outcome.run || !OUTCOME_RECORDS[outcomeWordOf(outcome)].carriesAgentWork) return {}
  // A run handed to a newer step works on for that step, which gathers its work; and this step's
  // reads would only be cut off by the signal that handed it over.
  if (outcome.kind === 'handed-over') return {}
  const { settings, world, log } = deps
  return collectAgentWork(
    outcome.run,
    {
      downloadPatterns: settings.downloadPatterns,
      artifactsDir: settings.artifactsDir,
      runnerTemp: world.runnerTemp,
      workspace: world.workspace,
      conversation: deps.conversation,
      quietAnswer: deps.quietAnswer,
    },
    deps.sources,
    {
      info: (message) => log.info(message),
      warning: (message) => log.warning(message),
      debug: (message) => log.debug(message),
      safeForLog,
    },
    withinWaits(deps.signal, deps.endBy),
  )
}

/** `signal`, also aborted at `endBy` (PAST_TIMEOUT_MS past the timeout), and never after AGENT_WORK_DEADLINE_MS. */
export function withinWaits(signal: AbortSignal, endBy: number): AbortSignal {
  const leftMs = Math.max(0, Math.min(AGENT_WORK_DEADLINE_MS, endBy - Date.now()))
  return abortAfter(signal, leftMs)
}
