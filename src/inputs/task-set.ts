/**
 * A step with `tasks` (v1.2), or `tasks_file`: the list of tasks, what it refuses,
 * `max_parallel`, `pass_when`; with `campaign` (v1.5), each task's repository.
 */
import type { SchemaSource } from '../agent/structured-output.ts'
import type { CreateRunRequest } from '../api/types.ts'
import {
  campaignKey,
  parseRepository,
  repositoryName,
  type TaskRepository,
} from '../model/campaign.ts'
import type { PassWhen } from '../model/set.ts'
import type { InputSource } from '../step-io.ts'
import { asSentence, cut, errorMessage } from '../text/plain.ts'
import { readConnection } from './connection.ts'
import { readCreditBudgets } from './budgets.ts'
import type { Amount } from '../model/money.ts'
import { InputError } from '../input-error.ts'
import {
  cancelAskedBy,
  inputNamed,
  needsProject,
  readPreviousRun,
  readStepSettings,
  type Settings,
} from './main-step.ts'
import { readSchemaSource } from './output.ts'
import {
  checkPromptSize,
  CREATE_ONLY_INPUTS,
  readCreateRequest,
  readWorkspaceFile,
  SINGLE_RUN_INPUTS,
} from './run-target.ts'
import { isPlainObject, readCampaign } from './values.ts'

/** A step with `tasks` (v1.2): one run per task, at most `maxParallel` in flight. */
export interface TaskSetSettings extends Omit<Settings, 'target'> {
  /** One create request per task, in task order; each a complete request. */
  readonly tasks: readonly CreateRunRequest[]
  /** A task's own output_schema, by task index; a task without one takes the step's. */
  readonly taskSchemas: readonly (SchemaSource | undefined)[]
  readonly maxParallel: number
  readonly passWhen: PassWhen
  /** `campaign`: the name every run carries; undefined for a plain set. */
  readonly campaign?: string
  /** A campaign task's `repository`, by task index: its run's project; undefined for the step's. */
  readonly repositories: readonly (TaskRepository | undefined)[]
  /** `daily_credit_budget` with `campaign`: counted for each task's repository on its own. */
  readonly repositoryBudget?: Amount
}

/** The largest `tasks_file` read: a list of thousands of tasks fits many times over. */
const TASKS_FILE_MAX_BYTES = 16 * 1024 * 1024

/** The create inputs a task does not set: its prompt is the item's own; MCP servers the step's. */
const NOT_A_TASK_KEY = ['prompt_file', 'mcp_servers'] as const
type CreateInput = (typeof CREATE_ONLY_INPUTS)[number]
type TaskKey = Exclude<CreateInput, (typeof NOT_A_TASK_KEY)[number]> | 'output_schema'

/**
 * The keys a task may set: every create input but those, and its own output_schema; any other
 * it omits takes the step's input of the same name.
 */
export const TASK_KEYS: readonly TaskKey[] = [
  ...CREATE_ONLY_INPUTS.filter(
    (input): input is Exclude<CreateInput, (typeof NOT_A_TASK_KEY)[number]> =>
      !(NOT_A_TASK_KEY as readonly string[]).includes(input),
  ),
  'output_schema',
]

/**
 * What `tasks` cannot be combined with, each with the value that is refused: the one list
 * that `action.yml`'s description of `tasks` and docs/tasks.md say (a test holds them to it,
 * and one that each is refused before any request).
 */
export const TASKS_REFUSE: readonly (readonly [input: string, value: string])[] = [
  // The inputs that say what one run is, which `tasks` replaces: refused whatever their value.
  ...SINGLE_RUN_INPUTS.map((input) => [input, 'x'] as const),
  ['continue_run', 'true'],
  ['pull_request_review', 'true'],
  ['previous_run', 'steer'],
  ['continue_from', 'pull_request'],
]

/**
 * Reads a step with `tasks`: undefined when `tasks` is not given. Checks every
 * task before any request, and names the task and the field of a bad one.
 */
export async function readTaskSettings(source: InputSource): Promise<TaskSetSettings | undefined> {
  const value = readTaskList(source)
  const campaign = source.get('campaign')
  if (!value) {
    if (campaign) {
      throw new InputError(
        'campaign',
        'needs tasks (or tasks_file): a campaign is one instruction over many repositories, one task each.',
      )
    }
    return undefined
  }
  readCampaign(source)
  // The key is masked before any other input is checked, as for one run.
  const connection = readConnection(source)
  for (const name of SINGLE_RUN_INPUTS) {
    if (source.get(name)) {
      throw new InputError(
        'tasks',
        `cannot be combined with ${name}: each task is one run, with its own prompt.`,
      )
    }
  }
  if (source.get('continue_from')) {
    throw new InputError(
      'tasks',
      'cannot be combined with continue_from: a set starts one run per task, while continue_from sends one prompt to the run that made the pull request.',
    )
  }
  const items = await parseTaskList(value)
  const read = items.map((item, index) => readTask(source, item, index, campaign || undefined))
  refuseTwoOfOneRepository(read.map((task) => task.repository))
  const tasks = read.map((task) => task.request)
  const taskSchemas = read.map((task) => task.schema)
  const step = readStepSettings(
    source,
    (continueRun) => {
      if (continueRun) {
        throw new InputError(
          'tasks',
          'cannot be combined with continue_run: it applies to one run.',
        )
      }
    },
    connection,
  )
  // Not silently ignored: a pull request gets one review, from one run.
  if (step.output.pullRequestReview) {
    throw new InputError(
      'tasks',
      'cannot be combined with pull_request_review: it applies to one run.',
    )
  }
  const previousRun = readPreviousRun(source)
  if (previousRun === 'steer') {
    throw new InputError(
      'tasks',
      'cannot be combined with previous_run: steer: a set starts one run per task.',
    )
  }
  const cancelPrevious = cancelAskedBy(source, previousRun)
  if (cancelPrevious) {
    const legacy = cancelPrevious === inputNamed(source, 'cancel_previous')
    needsProject(source, legacy ? 'cancel_previous' : 'previous_run')
  }
  const unnamed = tasks.findIndex((task) => !task.config?.name)
  if (cancelPrevious && unnamed >= 0) {
    throw new InputError(
      'cancel_previous',
      `needs name: the runs it cancels are the active ones with each task's name, and task ${unnamed + 1} has none (give the step a name, or the task its own).`,
    )
  }
  const ownSchema = taskSchemas.find((schema) => schema !== undefined)
  if (ownSchema && !step.wait) {
    throw new InputError(
      'tasks',
      `${ownSchema.input} needs wait: true: it acts on the run's result.`,
    )
  }
  const maxParallel = readPositiveInteger('max_parallel', source.get('max_parallel') || '10')
  // A detached set hands every run over at once: no step stays to start the next one later.
  if (!step.wait && maxParallel < tasks.length) {
    throw new InputError(
      'max_parallel',
      `is ${maxParallel}, below the ${tasks.length} tasks: with wait: false the step starts every task at once and does not stay to start the rest; give max_parallel of at least ${tasks.length}, or wait: true.`,
    )
  }
  const repositories = read.map((task) => task.repository)
  const repositoryBudget = campaign ? readRepositoryBudget(source, repositories) : undefined
  return {
    ...step,
    ...(repositoryBudget ? { repositoryBudget } : {}),
    tasks,
    taskSchemas,
    cancelPrevious,
    previousRun,
    maxParallel,
    passWhen: readPassWhen(source.get('pass_when') || 'all', tasks.length),
    ...(campaign ? { campaign } : {}),
    repositories,
  }
}

/**
 * `daily_credit_budget` in a campaign: each task's repository counts its own runs, a task of no
 * repository the step's project; refused when that is none, before any request.
 */
function readRepositoryBudget(
  source: InputSource,
  repositories: readonly (TaskRepository | undefined)[],
): Amount | undefined {
  const budget = readCreditBudgets(source).daily
  const unnamed = repositories.findIndex((repository) => repository === undefined)
  if (budget !== undefined && unnamed >= 0 && !source.world.project) {
    throw new InputError(
      'daily_credit_budget',
      `counts each task's repository, and task ${unnamed + 1} names none, nor does the step have a project to count by: give the task its repository.`,
    )
  }
  return budget
}

/**
 * `tasks`, or the contents of `tasks_file` (in the workspace, as `prompt_file` is read): the
 * runner hands each input over as an environment variable of at most 128 KiB, so a list of
 * hundreds of tasks comes from a file. '' when neither is given.
 */
function readTaskList(source: InputSource): string {
  const tasks = source.get('tasks')
  const file = source.get('tasks_file')
  if (!file) return tasks
  if (tasks) throw new InputError('tasks_file', 'cannot be combined with tasks; give one of them.')
  return readWorkspaceFile(source, 'tasks_file', (bytes) => {
    if (bytes > TASKS_FILE_MAX_BYTES) {
      throw new InputError('tasks_file', `names a file of ${bytes} bytes, over 16 MiB: ${file}.`)
    }
  })
}

/** A campaign runs one task per repository: a second would pay twice for one change. */
function refuseTwoOfOneRepository(repositories: readonly (TaskRepository | undefined)[]): void {
  const seen = new Map<string, number>()
  for (const [index, repository] of repositories.entries()) {
    if (!repository) continue
    const name = repositoryName(repository).toLowerCase()
    const first = seen.get(name)
    if (first !== undefined) {
      throw new InputError(
        'tasks',
        `tasks ${first + 1} and ${index + 1} both name the repository ${repositoryName(repository)}: a campaign runs one task per repository.`,
      )
    }
    seen.set(name, index)
  }
}

/**
 * A JSON parser's message with what it read where it stopped: "… at position 16" says little to
 * a person; "… at position 16, at `prompt: \"x\"}]`" shows the unquoted key. Linear.
 */
function withWhatWasRead(message: string, text: string): string {
  const position = /\bposition (\d+)/.exec(message)?.[1]
  if (position === undefined) return message
  const at = Number(position)
  const near = text.slice(Math.max(0, at - 10), at + 20).replace(/\s+/g, ' ')
  return `${message.replace(/\s*\(line \d+ column \d+\)/, '')}, at ${JSON.stringify(near)}`
}

/** A YAML or JSON list. JSON needs no parser beyond the runtime's; YAML loads only when used. */
async function parseTaskList(value: string): Promise<unknown[]> {
  let list: unknown
  let jsonError: string | undefined
  try {
    list = value.startsWith('[') ? JSON.parse(value) : undefined
  } catch (error) {
    jsonError = withWhatWasRead(errorMessage(error), value)
    list = undefined
  }
  if (list === undefined) {
    const { parse } = await import('yaml')
    try {
      list = parse(value, { maxAliasCount: 0 })
    } catch (error) {
      // Text that opens as JSON was meant as JSON: its parser says what is wrong in its terms.
      const reason =
        jsonError ?? (error instanceof Error ? error.message.split('\n')[0] : String(error))
      throw new InputError(
        'tasks',
        `is neither a JSON nor a YAML list: ${asSentence(cut(reason ?? '', 300))} ` +
          'Give one task a line as a YAML list ("- Update package a"), or a JSON array of strings or objects.',
      )
    }
  }
  if (!Array.isArray(list)) {
    throw new InputError('tasks', 'must be a list (YAML or JSON), one item per run.')
  }
  if (list.length === 0) throw new InputError('tasks', 'is an empty list: give at least one task.')
  return list
}

/**
 * One task's create request, its own keys over the step's inputs of the same name, and its own
 * output_schema (a path or inline, as the input takes) when it names one.
 */
function readTask(
  source: InputSource,
  item: unknown,
  index: number,
  campaign: string | undefined,
): {
  request: CreateRunRequest
  schema: SchemaSource | undefined
  repository: TaskRepository | undefined
} {
  // A person counts tasks from 1 (the `runs` output's `task` is the 0-based index, for code).
  const where = `task ${index + 1}`
  const fields: Partial<Record<TaskKey, string>> = {}
  let repository: TaskRepository | undefined
  if (typeof item === 'string') {
    fields.prompt = item.trim()
  } else if (isPlainObject(item)) {
    for (const [key, field] of Object.entries(item)) {
      if (key !== 'repository' && !(TASK_KEYS as readonly string[]).includes(key)) {
        throw new InputError(
          'tasks',
          `${where} has an unknown key "${cut(key, 100)}"; a task takes ${TASK_KEYS.join(', ')}, and with campaign repository.`,
        )
      }
      if (typeof field !== 'string' && typeof field !== 'number') {
        throw new InputError('tasks', `${where}'s ${key} must be a string.`)
      }
      if (key === 'repository') repository = readRepository(String(field).trim(), where, campaign)
      else fields[key as TaskKey] = String(field).trim()
    }
  } else {
    throw new InputError('tasks', `${where} must be a prompt or a mapping with a prompt.`)
  }
  const prompt = fields.prompt ?? ''
  checkPromptSize(`tasks (${where}'s prompt)`, prompt)
  if (repository && campaign) {
    if (fields.name !== undefined) {
      throw new InputError(
        'tasks',
        `${where} names both a repository and a name: a campaign task's name is <campaign>/<repository>.`,
      )
    }
    fields.name = campaignKey(campaign, repository)
  }
  const merged: InputSource = {
    ...source,
    get: (name) =>
      name in fields ? (fields[name as keyof typeof fields] ?? '') : source.get(name),
  }
  if (!prompt && !merged.get('skill_spec')) {
    throw new InputError('tasks', `${where} has no prompt (and no skill_spec): give it one.`)
  }
  try {
    const own = fields.output_schema === undefined ? undefined : readSchemaSource(merged)
    const schema = own && { ...own, input: `${where}'s output_schema` }
    return { request: readCreateRequest(merged, prompt), schema, repository }
  } catch (error) {
    if (!(error instanceof InputError)) throw error
    throw new InputError('tasks', `${where}: ${error.message}`)
  }
}

/** A task's `repository`, which only a campaign takes. */
function readRepository(text: string, where: string, campaign: string | undefined): TaskRepository {
  if (!campaign) {
    throw new InputError(
      'tasks',
      `${where} names a repository, which only a campaign's tasks do: give the step a campaign.`,
    )
  }
  const repository = parseRepository(text)
  if (!repository) {
    throw new InputError(
      'tasks',
      `${where}'s repository must be owner/repo, or gitlab:group/app for a GitLab project; got "${cut(text, 200)}".`,
    )
  }
  return repository
}

function readPositiveInteger(input: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InputError(input, `must be a whole number of at least 1; got "${value}".`)
  }
  return Number(value)
}

function readPassWhen(value: string, taskCount: number): PassWhen {
  if (value === 'all') return { kind: 'all' }
  if (value === 'any') return { kind: 'any' }
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InputError('pass_when', `must be all, any, or a number of runs; got "${value}".`)
  }
  const count = Number(value)
  if (count > taskCount) {
    throw new InputError(
      'pass_when',
      `asks for ${count} successful runs, but tasks has only ${taskCount}; give all, any, or a number up to ${taskCount}.`,
    )
  }
  return { kind: 'at-least', count }
}
