import { finalAnswer } from './agent/conversation.ts'
import { agentWorkSources } from './agent/sources.ts'
import { readConversation } from './agent/work.ts'
import { type AgentRunsClient } from './api/client.ts'
import { abortableSleep, abortAfter } from './api/transport.ts'
import type { TaskSetSettings } from './inputs.ts'
import { GitHubContext } from './github/context.ts'
import { budgetScope, setHandoff } from './github/handoff.ts'
import { OUTCOME_RECORDS } from './model/outcome.ts'
import type { SetOutcome } from './model/set.ts'
import { publishOverBudget } from './report/publish.ts'
import { publishSetOutcome } from './report/set.ts'
import { checkCreditBudgets } from './run/budget.ts'
import { cancelDeadline } from './run/cancel.ts'
import { runTag, SET_KEY, taskTag, type RunTag } from './run/create.ts'
import type { Interruption } from './run/interruption.ts'
import { TaskSetRun } from './run/set.ts'
import { taskWatcher } from './run/watch.ts'
import { requestWithInstruction } from './agent/structured-output.ts'
import { namedLog } from './log.ts'
import { withinWaits } from './run/gather.ts'
import { checkDocument, prepareOutput, type OutputRequest } from './run/output.ts'

import { serviceClient } from './service.ts'
import { SetSurfaces } from './set-surfaces.ts'
import { savedState } from './state.ts'
import type { StepIo } from './step-io.ts'
import { AGENT_WORK_DEADLINE_MS, PAST_TIMEOUT_MS } from './timing.ts'
import type { World } from './world.ts'

/**
 * The main step with `tasks`: prepare (the set and its tags), execute (start,
 * wait and cancel, as one set), finish (the answers, one table, the outputs).
 */
export async function runTaskSet(
  settings: TaskSetSettings,
  world: World,
  io: StepIo,
  interruption: Interruption,
): Promise<void> {
  // A schema that is not one is an input error too: compiled before any request.
  const output = await prepareOutput(settings.output)
  const client = serviceClient(settings, io)
  // The budgets hold for a set as for one run: checked once, before any of its creates.
  const deps = { now: Date.now, log: io }
  const github = new GitHubContext(settings.github.token, world)
  const reached = await checkCreditBudgets(client, settings.budgets, budgetScope(github), deps)
  if (reached) return await publishOverBudget(io, reached.message)
  interruption.listen()
  const stepTag = runTag(world, undefined, undefined, setHandoff(settings.github, github))
  const surfaces = await SetSurfaces.open(settings, github, stepTag.invocation, io)
  const wiring = { signal: interruption.signal, output }
  const set = prepareSet(settings, client, wiring, stepTag, surfaces, io)
  const outcome = await executeSet(set, interruption)
  await finishSet(outcome, client, interruption.signal, surfaces, io)
}

function prepareSet(
  settings: TaskSetSettings,
  client: AgentRunsClient,
  { signal, output }: { signal: AbortSignal; output: OutputRequest | undefined },
  stepTag: RunTag,
  surfaces: SetSurfaces,
  io: StepIo,
): TaskSetRun {
  const sources = agentWorkSources(client)
  const startedAt = Date.now()
  return new TaskSetRun(
    {
      tasks: output
        ? settings.tasks.map((task) => requestWithInstruction(task, output.instruction))
        : settings.tasks,
      maxParallel: settings.maxParallel,
      passWhen: settings.passWhen,
      timeoutMs: settings.timeoutMs,
      pollIntervalMs: settings.pollIntervalMs,
      maxCredits: settings.agentWork.maxCredits,
      cancelPrevious: settings.cancelPrevious,
    },
    {
      client,
      now: Date.now,
      sleep: abortableSleep,
      signal,
      log: io,
      state: savedState(io),
      setMetadata: { [SET_KEY]: stepTag.invocation },
      tagFor: (index) => taskTag(stepTag, index),
      onProgress: (tasks) => surfaces.show({ kind: 'running', tasks }),
      watchFor: (task, name) => taskWatcher(settings.agentWork, task, sources, { log: io, name }),
      checkFor: (task, name) => {
        if (!output) return undefined
        const log = namedLog(io, name)
        const deadline = startedAt + settings.timeoutMs
        const bounded = () => withinWaits(signal, deadline + PAST_TIMEOUT_MS)
        return (run, corrections) =>
          checkDocument(run, corrections, {
            schema: output.schema,
            retries: settings.output.retries,
            deadline,
            now: Date.now,
            log,
            readConversation: (runId) => readConversation(runId, sources, log, bounded()),
            readFile: async (artifact) =>
              Buffer.from(await sources.fetchFile(artifact, bounded())).toString('utf8'),
          })
      },
    },
  )
}

/**
 * Runs the set. On SIGINT or SIGTERM every run in flight gets its cancel at once, in
 * parallel, within the runner's grace (the Interruption's, as for one run); on an error,
 * briefly, as after a timeout (a cancel that fails leaves the run to the post step).
 */
async function executeSet(set: TaskSetRun, interruption: Interruption): Promise<SetOutcome> {
  interruption.guard(set)
  try {
    const outcome = await set.run()
    await interruption.settled()
    return outcome
  } catch (error) {
    if (!interruption.cancelling) {
      await set.cancelInFlight({ kind: 'error' }, cancelDeadline({ kind: 'error' }, Date.now()))
    }
    await interruption.settled()
    throw error
  }
}

/** Reads each ended run's answer (one request per task, together), then reports the set. */
async function finishSet(
  outcome: SetOutcome,
  client: AgentRunsClient,
  signal: AbortSignal,
  surfaces: SetSurfaces,
  io: StepIo,
): Promise<void> {
  surfaces.show({ kind: 'ended', outcome })
  const answers = new Map<number, string>()
  // As for one run, the outcome's record says whether the agent's work is brought back.
  if (OUTCOME_RECORDS[outcome.word].carriesAgentWork) {
    const sources = agentWorkSources(client)
    const bounded = abortAfter(signal, AGENT_WORK_DEADLINE_MS)
    const quiet = {
      info: (message: string) => io.debug(message),
      warning: (message: string) => io.warning(message),
      debug: (message: string) => io.debug(message),
    }
    await Promise.all(
      outcome.tasks.map(async (task) => {
        if (!task.runId || !task.run) return
        const conversation = await readConversation(task.runId, sources, quiet, bounded)
        const answer = conversation ? finalAnswer(conversation) : undefined
        if (answer !== undefined) answers.set(task.index, answer)
      }),
    )
  }
  await surfaces.settled()
  await publishSetOutcome(io, outcome, answers)
}
