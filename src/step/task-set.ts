import { eachAtMost } from '../at-most.ts'
import { campaignFollowUp, campaignTags, type Applied } from '../model/campaign.ts'
import type { RunHome } from '../model/home.ts'
import { pullRequestUrlOf } from '../model/run-item.ts'
import { campaignPlan } from '../summary/campaign.ts'
import type { KnownRun } from '../run/continue-pr.ts'
import { checkRepositoryBudgets, planCampaign, type RepositoryBudget } from '../run/campaign.ts'
import { limitsTag } from '../model/limits.ts'
import { bindingCaps, maxCreditsCap, type SpendCap } from '../model/spend-cap.ts'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { defaultArtifactsDir, taskFolderName } from '../agent/artifacts.ts'
import { agentWorkSources } from '../agent/sources.ts'
import { requestWithInstruction } from '../agent/structured-output.ts'
import type { AgentWorkSources } from '../agent/work.ts'
import { abortableSleep } from '../api/transport.ts'
import { GitHubContext } from '../github/context.ts'
import { setHandoff } from '../github/handoff.ts'
import type { TaskSetSettings } from '../inputs/task-set.ts'
import { namedLog } from '../log.ts'
import { OUTCOME_RECORDS } from '../model/outcome.ts'
import { outcomeOfRun } from '../model/run-outcome.ts'
import { passWhenText, taskLabel, type SetOutcome, type TaskRun } from '../model/set.ts'
import { publishSetOutcome, type TaskWork } from '../summary/set.ts'
import { runTag, SET_KEY, taskTag, type RunTag } from '../run/create.ts'
import { gatherAgentWork } from '../run/gather.ts'
import type { Interruption } from '../run/interruption.ts'
import { documentCheck, prepareOutput, type OutputRequest } from '../run/output.ts'
import { TaskSetRun } from '../run/set.ts'
import { taskWatcher } from '../run/watch.ts'
import { SetSurfaces } from './set-surfaces.ts'
import { savedState } from '../state.ts'
import { safeForLog } from '../text/log.ts'
import { PAST_TIMEOUT_MS } from '../timing.ts'
import type { PreparedStep, StepShape, StepStart } from './shape.ts'

/**
 * The main step's shape with `tasks`: one run per task, at most `max_parallel` at once, judged
 * by `pass_when`, shown as one table. Each task's output schema (its own, else the step's) is
 * compiled here, before any request.
 */
export async function taskSetShape(settings: TaskSetSettings): Promise<StepShape> {
  const outputs = await prepareTaskOutputs(settings)
  return {
    settings,
    // `approval` is refused with `tasks` (inputs.ts): a set is admitted as it is.
    admit: async (world) => {
      const github = new GitHubContext(settings.github.token, world)
      return { github, creates: true, prepare: (start) => prepare(settings, outputs, start) }
    },
  }
}

/** Each task's output: its own output_schema, else the step's (compiled once), else none. */
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

/** What the set's step has at hand once its surfaces are open and its tags known. */
interface PreparedSet extends StepStart {
  readonly settings: TaskSetSettings
  readonly outputs: readonly (OutputRequest | undefined)[]
  readonly surfaces: SetSurfaces
  readonly stepTag: RunTag
  readonly sources: AgentWorkSources
  /** When every wait on the service must have ended: `timeout` from now, plus PAST_TIMEOUT_MS. */
  readonly waitsEndBy: number
  /** A campaign's follow-ups, by task. */
  readonly continueRuns: readonly (KnownRun | undefined)[]
  /** The caps on each task's run alone: its repository's budget's rest, in a campaign. */
  readonly taskCaps: readonly (readonly SpendCap[] | undefined)[]
}

/**
 * Opens the set's surfaces and tags: its ID is its step's invocation, known before any create.
 * A campaign applied again starts only the tasks its runs do not already cover; undefined when
 * that is none of them.
 */
async function prepare(
  given: TaskSetSettings,
  givenOutputs: readonly (OutputRequest | undefined)[],
  start: StepStart,
): Promise<PreparedStep | undefined> {
  const applied = await applyCampaign(given, givenOutputs, start)
  const { settings } = applied
  if (settings.tasks.length === 0) return undefined
  const { world, home, github, io } = start
  const setId = randomUUID()
  const surfaces = await SetSurfaces.open(settings, github, setId, io)
  const handoff = setHandoff(settings.github, home, {
    wait: settings.wait,
    tasks: settings.tasks.length,
    passWhen: passWhenText(settings.passWhen),
  })
  const deadline = settings.wait
    ? new Date(Date.now() + settings.timeoutMs).toISOString()
    : undefined
  const limits = limitsTag(deadline ? { deadline } : {})
  const stepTag = runTag(world, () => setId, surfaces.commit ?? home.head, {
    ...handoff,
    ...limits,
  })
  const sources = agentWorkSources(start.client)
  const waitsEndBy = Date.now() + settings.timeoutMs + PAST_TIMEOUT_MS
  const set = { ...start, ...applied, surfaces, stepTag, sources, waitsEndBy }
  return {
    execute: async (interruption) => {
      const outcome = await setRun(set, interruption).run(interruption)
      const unreachable =
        outcome.tasks.length > 0 && outcome.tasks.every((task) => task.createUnreachable === true)
      return { finish: () => finish(set, outcome, interruption), unreachable }
    },
  }
}

/** The set's runs, each task's checked against its output, under the one scheduler. */
function setRun(set: PreparedSet, interruption: Interruption): TaskSetRun {
  const { settings, outputs, surfaces, stepTag, sources, io } = set
  const { signal } = interruption
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
      caps: bindingCaps(maxCreditsCap(settings.agentWork.maxCredits), ...(set.budgetCaps ?? [])),
      cancelPrevious: settings.cancelPrevious,
      continueRuns: set.continueRuns,
      taskCaps: set.taskCaps,
      wait: settings.wait,
    },
    {
      client: set.client,
      now: Date.now,
      sleep: abortableSleep,
      signal,
      log: io,
      state: savedState(io),
      setMetadata: { [SET_KEY]: stepTag.invocation },
      tagFor: (index) => {
        const tag = taskTag(stepTag, index)
        if (settings.campaign === undefined) return tag
        const repository = settings.repositories[index]
        return { ...tag, metadata: campaignTags(tag.metadata, settings.campaign, repository) }
      },
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
          signal,
          now: Date.now,
          log: namedLog(io, name),
        })
      },
    },
  )
}

/**
 * The tasks whose work is brought back at once. A campaign's thousand runs can end in one poll:
 * gathered all together, their reads and answers were held at once, and the step's peak memory
 * grew past 190 MB; a few at a time, the rest wait their turn in the same deadline.
 */
const WORK_AT_ONCE = 16

/**
 * Brings back each ended run's work (its answer, its files), a few tasks at a time, then
 * reports the set.
 */
async function finish(set: PreparedSet, outcome: SetOutcome, interruption: Interruption) {
  const { surfaces, io } = set
  surfaces.showEnd(outcome)
  const work = new Map<number, TaskWork>()
  // As for one run, the outcome's record says whether the agent's work is brought back.
  if (OUTCOME_RECORDS[outcome.word].carriesAgentWork) {
    await eachAtMost(WORK_AT_ONCE, outcome.tasks, async (task) => {
      const one = await taskWork(task, set, interruption.signal)
      if (one) work.set(task.index, one)
    })
  }
  await surfaces.showWork()
  await publishSetOutcome(io, outcome, work)
}

/**
 * One task's work, as one run's is gathered (when its own outcome's record says it carries
 * any): its answer, and with `download_artifacts` its files, into its own folder below the
 * set's (`artifacts_dir`, else `$RUNNER_TEMP/cloud-agent-artifacts/<the set's ID>`).
 */
async function taskWork(
  task: TaskRun,
  set: PreparedSet,
  signal: AbortSignal,
): Promise<TaskWork | undefined> {
  const { settings, world } = set
  const outcome = outcomeOfRun(task, { elapsedMs: 0, timeoutMs: 0, caps: [] })
  if (outcome.kind === 'not-started') return undefined
  const { downloadPatterns, artifactsDir } = settings.agentWork
  const setDir = artifactsDir || defaultArtifactsDir(world.runnerTemp, set.stepTag.invocation)
  const taskDir = join(setDir, taskFolderName(task.index, task.request.title))
  const work = await gatherAgentWork(outcome, {
    settings: { ...settings.agentWork, artifactsDir: downloadPatterns.length > 0 ? taskDir : '' },
    world,
    sources: set.sources,
    conversation: task.conversation,
    signal,
    endBy: set.waitsEndBy,
    log: taskLog(task, set.io),
    // Twenty tasks without a conversation are not worth twenty lines.
    quietAnswer: true,
  })
  return work.artifacts ? { ...work, answer: work.answer, artifacts: work.artifacts } : undefined
}

/** The step's log, each line naming its task ("Task 3 (Package c): …"), as the watcher's do. */
function taskLog(task: TaskRun, io: StepStart['io']) {
  const label = safeForLog(taskLabel(task), 200)
  return namedLog(io, label.charAt(0).toUpperCase() + label.slice(1))
}

/**
 * A campaign's tasks less those its runs already cover (working, or succeeded on this
 * instruction) or whose repository's daily_credit_budget is reached, and with the run to follow
 * up where the instruction changed since the run that opened the repository's pull request; each
 * said in the log and the job summary. Another step's set is as given.
 */
async function applyCampaign(
  settings: TaskSetSettings,
  outputs: readonly (OutputRequest | undefined)[],
  start: StepStart,
): Promise<AppliedSet> {
  const { client, io } = start
  const { campaign } = settings
  if (campaign === undefined) return { settings, outputs, continueRuns: [], taskCaps: [] }
  const tasks = settings.tasks.map((task, index) => {
    const output = outputs[index]
    const sent = output ? requestWithInstruction(task, output.instruction) : task
    const repository = settings.repositories[index]
    return { key: repository ? task.config?.name : undefined, prompt: sent.prompt ?? '' }
  })
  const deadline = Date.now() + settings.timeoutMs
  const planned = await planCampaign(client, campaign, tasks, deadline)
  const budgets = await repositoryBudgets(settings, planned, start)
  const plan = planned.map((applied, index): Applied => {
    const budget = budgets[index]
    if (budget === undefined || !('reached' in budget)) return applied
    return { kind: 'skip', why: `its daily_credit_budget is reached: ${budget.reached}` }
  })
  const kept = plan.flatMap((applied, index) => (applied.kind === 'skip' ? [] : [index]))
  const said = plan.flatMap((applied, index) =>
    applied.kind === 'start'
      ? []
      : [{ key: tasks[index]?.key ?? '', done: applied.kind, why: applied.why }],
  )
  const taskCaps = budgets.map((budget) => (budget && 'caps' in budget ? budget.caps : undefined))
  if (said.length === 0) return { settings, outputs, continueRuns: [], taskCaps }
  for (const { key, done, why } of said) {
    io.info(`${safeForLog(key, 200)}: ${done === 'skip' ? 'skipped' : 'followed up'}, ${why}.`)
  }
  await io.appendSummary(campaignPlan(campaign, said, settings.tasks.length)).catch(() => {})
  const continueRuns = plan.map((applied, index): KnownRun | undefined => {
    if (applied.kind !== 'follow-up') return undefined
    const change = pullRequestUrlOf(applied.run) ?? 'its pull request'
    const message = campaignFollowUp(campaign, tasks[index]?.prompt ?? '', change)
    return { run: applied.run, message, change }
  })
  const pick = <T>(list: readonly T[]): T[] => kept.flatMap((index) => list.slice(index, index + 1))
  const left = kept.length
  const { passWhen } = settings
  return {
    settings: {
      ...settings,
      tasks: pick(settings.tasks),
      taskSchemas: pick(settings.taskSchemas),
      repositories: pick(settings.repositories),
      // `pass_when: N` counts the runs this step starts: at most as many as it has left.
      passWhen:
        passWhen.kind === 'at-least' && passWhen.count > left
          ? { kind: 'at-least', count: Math.max(1, left) }
          : passWhen,
    },
    outputs: pick(outputs),
    continueRuns: pick(continueRuns),
    taskCaps: pick(taskCaps),
  }
}

/**
 * `daily_credit_budget` in a campaign, for the tasks that would start a run (a follow-up goes to
 * a run that exists, as `continue_from`'s does, and is not counted before it): by task, whether
 * its repository's budget is reached, or what it has left; none without the budget.
 */
async function repositoryBudgets(
  settings: TaskSetSettings,
  plan: readonly Applied[],
  { client, home, io }: StepStart,
): Promise<(RepositoryBudget | undefined)[]> {
  const daily = settings.repositoryBudget
  if (daily === undefined) return plan.map(() => undefined)
  const starting = plan.flatMap((applied, index) => (applied.kind === 'start' ? [index] : []))
  const homes = starting.map((index): RunHome => {
    const repository = settings.repositories[index]
    if (!repository) return { ...home, thread: undefined, change: undefined }
    const { forge, project } = repository
    return { forge, project, thread: undefined, change: undefined }
  })
  const checked = await checkRepositoryBudgets(client, daily, homes, { now: Date.now, log: io })
  const byTask: (RepositoryBudget | undefined)[] = plan.map(() => undefined)
  starting.forEach((task, index) => (byTask[task] = checked[index]))
  return byTask
}

/** A set as a campaign applies it: the tasks to run, and each one's run to follow up, if any. */
interface AppliedSet {
  readonly settings: TaskSetSettings
  readonly outputs: readonly (OutputRequest | undefined)[]
  readonly continueRuns: readonly (KnownRun | undefined)[]
  readonly taskCaps: readonly (readonly SpendCap[] | undefined)[]
}
