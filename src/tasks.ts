import { outcomeWordOfRun } from './model/run-outcome.ts'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { defaultArtifactsDir, parseArtifacts, taskFolderName } from './agent/artifacts.ts'
import { finalAnswer } from './agent/conversation.ts'
import { agentWorkSources } from './agent/sources.ts'
import { downloadRunFiles, readConversation, type AgentWorkSources } from './agent/work.ts'
import { type AgentRunsClient } from './api/client.ts'
import { abortableSleep } from './api/transport.ts'
import type { TaskSetSettings } from './inputs/task-set.ts'
import { GitHubContext } from './github/context.ts'
import { githubThread, setHandoff } from './github/handoff.ts'
import { OUTCOME_RECORDS } from './model/outcome.ts'
import type { Log } from './log.ts'
import { passWhenText, taskLabel, type SetOutcome, type TaskRun } from './model/set.ts'
import { publishOverBudget } from './report/publish.ts'
import { publishSetOutcome, type TaskWork } from './report/set.ts'
import { checkCreditBudgets } from './run/budget.ts'
import { runTag, SET_KEY, taskTag, type RunTag } from './run/create.ts'
import { homeOf } from './model/home.ts'
import type { Interruption } from './run/interruption.ts'
import { TaskSetRun } from './run/set.ts'
import { taskWatcher } from './run/watch.ts'
import { requestWithInstruction } from './agent/structured-output.ts'
import { namedLog } from './log.ts'
import { withinWaits } from './run/gather.ts'
import { documentCheck, prepareOutput, type OutputRequest } from './run/output.ts'
import { serviceClient } from './service.ts'
import { SetSurfaces } from './set-surfaces.ts'
import { savedState } from './state.ts'
import type { StepIo } from './step-io.ts'
import { safeForLog } from './text/log.ts'
import { PAST_TIMEOUT_MS } from './timing.ts'
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
  const outputs = await prepareTaskOutputs(settings)
  const client = serviceClient(settings, io)
  // The budgets hold for a set as for one run: checked once, before any of its creates.
  const deps = { now: Date.now, log: io }
  const github = new GitHubContext(settings.github.token, world)
  const home = homeOf(world, githubThread(github))
  const reached = await checkCreditBudgets(client, settings.budgets, home, deps)
  if (reached) return await publishOverBudget(io, reached.message)
  interruption.listen()
  // The set's ID is its step's invocation: its comment and status know it before any create.
  const setId = randomUUID()
  const surfaces = await SetSurfaces.open(settings, github, setId, io)
  const handoff = setHandoff(settings.github, home, {
    wait: settings.wait,
    tasks: settings.tasks.length,
    passWhen: passWhenText(settings.passWhen),
  })
  const stepTag = runTag(world, () => setId, surfaces.commit ?? home.head, handoff)
  const wiring = { signal: interruption.signal, outputs }
  const set = prepareSet(settings, client, wiring, stepTag, surfaces, io)
  // As for one run: every wait after the creates ends within the timeout and PAST_TIMEOUT_MS.
  const waitsEndBy = Date.now() + settings.timeoutMs + PAST_TIMEOUT_MS
  const outcome = await set.run(interruption)
  const downloads = downloadsOf(settings, world, stepTag.invocation)
  const finish = { client, signal: interruption.signal, waitsEndBy, downloads, surfaces, io }
  await finishSet(outcome, finish)
}

/**
 * Each task's output: its own output_schema, else the step's (compiled once), else none. A schema
 * that is not one is an input error, before any request.
 */
async function prepareTaskOutputs(
  settings: TaskSetSettings,
): Promise<readonly (OutputRequest | undefined)[]> {
  const step = await prepareOutput(settings.output)
  const outputs: (OutputRequest | undefined)[] = []
  for (const own of settings.taskSchemas) {
    outputs.push(own ? await prepareOutput({ ...settings.output, schema: own }) : step)
  }
  return outputs
}

function prepareSet(
  settings: TaskSetSettings,
  client: AgentRunsClient,
  { signal, outputs }: { signal: AbortSignal; outputs: readonly (OutputRequest | undefined)[] },
  stepTag: RunTag,
  surfaces: SetSurfaces,
  io: StepIo,
): TaskSetRun {
  const sources = agentWorkSources(client)
  const startedAt = Date.now()
  return new TaskSetRun(
    {
      tasks: settings.tasks.map((task, index) => {
        const output = outputs[index]
        return output ? requestWithInstruction(task, output.instruction) : task
      }),
      maxParallel: settings.maxParallel,
      passWhen: settings.passWhen,
      timeoutMs: settings.timeoutMs,
      pollIntervalMs: settings.pollIntervalMs,
      maxCredits: settings.agentWork.maxCredits,
      cancelPrevious: settings.cancelPrevious,
      wait: settings.wait,
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
      onProgress: (tasks) => surfaces.showRunning(tasks),
      watchFor: (task, name) => taskWatcher(settings.agentWork, task, sources, { log: io, name }),
      checkFor: (task, name) => {
        const output = outputs[task.index]
        if (!output) return undefined
        const deadline = startedAt + settings.timeoutMs
        return documentCheck(output, {
          sources,
          retries: settings.output.retries,
          deadline,
          signal: () => withinWaits(signal, deadline + PAST_TIMEOUT_MS),
          now: Date.now,
          log: namedLog(io, name),
        })
      },
    },
  )
}

/** Where a set's downloads go, when `download_artifacts` asks for any: a folder per task below. */
interface SetDownloads {
  readonly patterns: readonly string[]
  /** `artifacts_dir`, else `$RUNNER_TEMP/cloud-agent-artifacts/<the set's ID>`. */
  readonly dir: string
  readonly workspace: string
  readonly runnerTemp: string
}

function downloadsOf(
  settings: TaskSetSettings,
  world: World,
  setId: string,
): SetDownloads | undefined {
  const { downloadPatterns, artifactsDir } = settings.agentWork
  if (downloadPatterns.length === 0) return undefined
  return {
    patterns: downloadPatterns,
    dir: artifactsDir || defaultArtifactsDir(world.runnerTemp, setId),
    workspace: world.workspace,
    runnerTemp: world.runnerTemp,
  }
}

interface FinishDeps {
  readonly client: AgentRunsClient
  readonly signal: AbortSignal
  /** When every wait on the service must have ended (PAST_TIMEOUT_MS past the timeout). */
  readonly waitsEndBy: number
  readonly downloads: SetDownloads | undefined
  readonly surfaces: SetSurfaces
  readonly io: StepIo
}

/**
 * Brings back each ended run's work (its answer, its files), every task's together, then
 * reports the set.
 */
async function finishSet(outcome: SetOutcome, deps: FinishDeps): Promise<void> {
  const { surfaces, io } = deps
  surfaces.showEnd(outcome)
  const work = new Map<number, TaskWork>()
  // As for one run, the outcome's record says whether the agent's work is brought back.
  if (OUTCOME_RECORDS[outcome.word].carriesAgentWork) {
    const sources = agentWorkSources(deps.client)
    const bounded = withinWaits(deps.signal, deps.waitsEndBy)
    await Promise.all(
      outcome.tasks.map(async (task) => {
        const one = await taskWork(task, sources, deps.downloads, io, bounded)
        if (one) work.set(task.index, one)
      }),
    )
  }
  await surfaces.showWork()
  await publishSetOutcome(io, outcome, work)
}

/**
 * One task's work, when its own outcome's record says it carries it: its answer (one
 * request), and with `download_artifacts` its files, into its own folder.
 */
async function taskWork(
  task: TaskRun,
  sources: AgentWorkSources,
  downloads: SetDownloads | undefined,
  io: StepIo,
  signal: AbortSignal,
): Promise<TaskWork | undefined> {
  const { run, runId } = task
  if (!runId || !run) return undefined
  const word = outcomeWordOfRun(task)
  if (word === 'not_started' || !OUTCOME_RECORDS[word].carriesAgentWork) return undefined
  // Twenty tasks without a conversation are not worth twenty lines.
  const quiet = {
    info: (message: string) => io.debug(message),
    warning: (message: string) => io.warning(message),
    debug: (message: string) => io.debug(message),
  }
  const conversation = await readConversation(runId, sources, quiet, signal)
  const answer = conversation ? finalAnswer(conversation) : undefined
  const artifacts = parseArtifacts(run.artifacts)
  if (!downloads) return { answer, artifacts }
  const dir = join(downloads.dir, taskFolderName(task.index, task.request.title))
  const options = { ...downloads, downloadPatterns: downloads.patterns }
  const files = await downloadRunFiles(artifacts, dir, options, sources, taskLog(task, io), signal)
  return { answer, artifacts, ...files }
}

/** The step's log, each line naming its task ("Task 3 (Package c): …"), as the watcher's do. */
function taskLog(task: TaskRun, io: StepIo): Log & { safeForLog: (value: unknown) => string } {
  const label = safeForLog(taskLabel(task), 200)
  return { ...namedLog(io, label.charAt(0).toUpperCase() + label.slice(1)), safeForLog }
}
