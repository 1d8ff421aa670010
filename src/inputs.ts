import { readFileSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { parseArtifactPatterns } from './agent/artifacts.ts'
import { isRunId, MAX_PROMPT_BYTES } from './api/answers.ts'
import type { AgentConfig, CreateRunRequest, McpServerConfig } from './api/types.ts'
import { APPROVAL_POLICIES, type ApprovalPolicy } from './model/approval.ts'
import { ON_BLOCKED, type OnBlocked } from './model/blocked.ts'
import type { ForgeSteering } from './model/head.ts'
import { POLL_INTERVAL } from './timing.ts'
import { asSentence, clip, cut, errorMessage } from './text/plain.ts'
import { isProblem, readContinueFrom, surfaceConfig, type ContinueFrom } from './surface-inputs.ts'
import type { World } from './world.ts'

/** What the step is asked to do with a run. */
export type RunTarget =
  | { readonly kind: 'create'; readonly request: CreateRunRequest }
  | { readonly kind: 'existing'; readonly runId: string; readonly followup: string | undefined }
  /** Follow up the run named by this step's comment thread; create one from `request` if none. */
  | { readonly kind: 'continue'; readonly message: string; readonly request: CreateRunRequest }

export interface Connection {
  readonly apiKey: string
  /** Without a trailing slash, ending in `/api/v1`. */
  readonly baseUrl: string
}

/** Repository roles, least first: what `commenter_permission` names. */
export const REPOSITORY_ROLES = ['read', 'triage', 'write', 'maintain', 'admin'] as const
export type RepositoryRole = (typeof REPOSITORY_ROLES)[number]

export interface GitHubSettings {
  /** '' when no GitHub call is asked for. */
  readonly token: string
  /** Keep one comment on the triggering pull request or issue up to date. */
  readonly comment: boolean
  /** Set a commit status on the commit the run works on. */
  readonly commitStatus: boolean
  /** One comment per thread and key, and the status context: `name`, else workflow and job. */
  readonly key: string
  /** With continue_run: the least role a comment's author needs to reach the agent. */
  readonly commenterPermission: RepositoryRole
  /** With continue_run: bot logins whose comments may reach the agent, lower case. */
  readonly allowedBots: readonly string[]
  /** `approval`: when a run waits for a maintainer's approval of the head (v1.4). */
  readonly approval: ApprovalPolicy
  /** The least role whose approval counts. */
  readonly approverPermission: RepositoryRole
}

/** What the step brings back of the agent's work, and how it watches the run (v1.1). */
export interface AgentWorkSettings {
  readonly onBlocked: OnBlocked
  /** The soft cap on credits; undefined for none. */
  readonly maxCredits: number | undefined
  /** `download_artifacts`; empty when nothing is to be downloaded. */
  readonly downloadPatterns: readonly string[]
  /** An absolute path; '' for the default, `$RUNNER_TEMP/cloud-agent-artifacts/<run_id>`. */
  readonly artifactsDir: string
  readonly showProgress: boolean
}

/** The agent's work as data (v1.2): a validated document, a pull-request review, a check run. */
export interface OutputSettings {
  /** `output_schema`'s text, compiled (and so checked) before any request; undefined for none. */
  readonly schema: SchemaSource | undefined
  /** How many corrections to ask for when the document does not validate. */
  readonly retries: number
  readonly pullRequestReview: boolean
  readonly checkRun: boolean
}

/** A schema's text, inline (JSON or YAML) or read from the file `output_schema` names. */
export interface SchemaSource {
  readonly input: string
  readonly text: string
  /** The file it was read from; undefined for an inline schema. */
  readonly file?: string
}

/** `previous_run`'s words. */
export type PreviousRun = 'keep' | 'cancel' | 'steer'

const PREVIOUS_RUN_WORDS: readonly PreviousRun[] = ['keep', 'cancel', 'steer']

/**
 * `previous_run`, with `cancel_previous: true` meaning `cancel` as it always has; the two
 * saying different things is an input error.
 */
function readPreviousRun(source: InputSource): PreviousRun {
  const legacy = parseBoolean('cancel_previous', source.get('cancel_previous') || 'false')
  const given = source.get('previous_run') || 'keep'
  const word = PREVIOUS_RUN_WORDS.find((one) => one === given)
  if (!word) {
    throw new InputError('previous_run', `must be keep, cancel or steer, not "${given}".`)
  }
  if (legacy && word === 'steer') {
    throw new InputError(
      'previous_run',
      "cannot be steer with cancel_previous: true: steer sends this step's work to the active run instead of cancelling it. Drop cancel_previous.",
    )
  }
  return legacy ? 'cancel' : word
}

export interface Settings extends Connection {
  readonly target: RunTarget
  readonly wait: boolean
  readonly timeoutMs: number
  readonly pollIntervalMs: number
  /**
   * Cancel the active runs with the same `config.name` (of this project and thread) before
   * creating this one: the input that asked, as the door names it (`previous_run: cancel`,
   * `cancel_previous`, `--previous-run cancel`), for the log; undefined when none did.
   */
  readonly cancelPrevious: string | undefined
  /**
   * `previous_run`: what to do with an active run of the same key on this thread: keep it,
   * cancel it (`cancel_previous`), or steer it (send it this step's work instead of creating).
   */
  readonly previousRun: PreviousRun
  /** `continue_from: pull_request`: the step's prompt goes to the run that made the pull request. */
  readonly continueFrom?: ContinueFrom
  readonly github: GitHubSettings
  readonly agentWork: AgentWorkSettings
  readonly output: OutputSettings
  readonly budgets: CreditBudgets
}

/** Spending limits checked before a run is created (v1.2); undefined for none. */
export interface CreditBudgets {
  /** `daily_credit_budget`: this repository's runs of the last 24 hours. */
  readonly daily: number | undefined
  /** `pr_credit_budget`: this pull request's runs. */
  readonly pullRequest: number | undefined
}

/** A bad input value. The message names the input and the rule, never the key. */
export class InputError extends Error {
  override name = 'InputError'
  readonly input: string
  /** What is wrong, after the input's name: each door names the input its own way. */
  readonly detail: string

  constructor(input: string, message: string) {
    super(`Input "${input}" ${message}`)
    this.input = input
    this.detail = message
  }
}

export interface InputSource {
  /** The input's value, trimmed; '' when not given. */
  get(name: string): string
  /** Hides a value in all later log output. */
  mask(secret: string): void
  /** Where the step runs, as its door read it: the workspace, the workflow, the event. */
  world: World
  /**
   * How a person names an input (with a value) at this door: `previous_run: cancel` in a
   * workflow, `--previous-run cancel` on the command line. A workflow's naming when not given.
   */
  nameOf?: (input: string, value?: string) => string
  /**
   * `previous_run: steer` on the door's forge, when it is not GitHub's: the command in a GitLab
   * merge request pipeline with a token hands GitLab's. Without it, steer works on GitHub only.
   */
  steering?: ForgeSteering
}

/** An input as the door names it: see InputSource.nameOf. */
export function inputNamed(source: InputSource, input: string, value?: string): string {
  if (source.nameOf) return source.nameOf(input, value)
  return value === undefined ? input : `${input}: ${value}`
}

const DEFAULT_TIMEOUT = '60m'
/**
 * Warp's Oz platform, whose Agent Runs API this action speaks. action.yml gives the same
 * default; this one serves a workflow that passes an empty value, such as an unset variable.
 */
const DEFAULT_BASE_URL = 'https://app.warp.dev/api/v1'

/** Reads and checks every input of the main step. Throws InputError before any request. */
export function readSettings(source: InputSource): Settings {
  let target: RunTarget | undefined
  let previousRun = 'keep' as PreviousRun
  let continueFrom: ContinueFrom | undefined
  const step = readStepSettings(source, (continueRun) => {
    previousRun = readPreviousRun(source)
    target = readTarget(source, continueRun)
    const asked = readContinueFrom(source.get('continue_from'), {
      tasks: false,
      runId: target.kind === 'existing',
      continueRun,
      steer: previousRun === 'steer',
    })
    if (typeof asked === 'object') throw new InputError(asked.input, asked.message)
    continueFrom = asked
    const legacy = parseBoolean('cancel_previous', source.get('cancel_previous') || 'false')
    const input = legacy ? 'cancel_previous' : 'previous_run'
    if (previousRun === 'cancel' && !(target.kind !== 'existing' && target.request.config?.name)) {
      throw new InputError(
        input,
        target.kind === 'existing'
          ? 'cannot be combined with run_id: it applies only to creating a run.'
          : 'needs name: the runs it cancels are the active ones with the same name.',
      )
    }
    if (previousRun === 'steer' && source.world.forge !== 'github' && !source.steering) {
      throw new InputError(
        'previous_run',
        `cannot be steer here: steering compares a pull or merge request's heads, so it works in GitHub Actions and in a GitLab merge request pipeline with GITLAB_TOKEN; elsewhere, ${inputNamed(source, 'previous_run', 'cancel')} replaces the run instead.`,
      )
    }
    if (previousRun === 'steer' && target.kind !== 'create') {
      throw new InputError(
        'previous_run',
        target.kind === 'existing'
          ? "cannot be steer with run_id: steer starts from this step's prompt, sent to the active run of its key."
          : 'cannot be steer with continue_run: continue_run already sends the comment to the run it answers.',
      )
    }
  })
  if (!target) throw new Error('unreachable: readStepSettings reads the target')
  const cancelPrevious = cancelAskedBy(source, previousRun)
  return { ...step, target, cancelPrevious, previousRun, ...(continueFrom ? { continueFrom } : {}) }
}

/** The input that asked to cancel the previous runs, as the door names it; undefined when none. */
function cancelAskedBy(source: InputSource, previousRun: PreviousRun): string | undefined {
  if (previousRun !== 'cancel') return undefined
  return parseBoolean('cancel_previous', source.get('cancel_previous') || 'false')
    ? inputNamed(source, 'cancel_previous')
    : inputNamed(source, 'previous_run', 'cancel')
}

/**
 * Everything but what the step acts on: the connection (the key masked
 * first), time, GitHub, the agent's work and its output. `readTarget` reads
 * what the step acts on where its errors come in the order a person fixes them.
 */
function readStepSettings(
  source: InputSource,
  readTarget: (continueRun: boolean) => void,
  connection: Connection = readConnection(source),
): Omit<Settings, 'target' | 'cancelPrevious' | 'previousRun'> {
  const githubToken = source.get('github_token')
  if (githubToken) source.mask(githubToken)
  const comment = parseBoolean('comment', source.get('comment') || 'false')
  const continueRun = parseBoolean('continue_run', source.get('continue_run') || 'false')
  const commitStatus = parseBoolean('commit_status', source.get('commit_status') || 'false')
  const commenterPermission = readRole('commenter_permission', source.get('commenter_permission'))
  const allowedBots = readBots(source.get('allowed_bots'))
  const approval = readApproval(source, continueRun)
  const approverPermission = readRole('approver_permission', source.get('approver_permission'))
  readTarget(continueRun)
  const timeoutMs = parsePositiveDuration('timeout', source.get('timeout') || DEFAULT_TIMEOUT)
  const wait = parseBoolean('wait', source.get('wait') || 'true')
  const output = readOutput(source, wait)
  const needsToken = comment
    ? 'comment'
    : approval !== 'none'
      ? 'approval'
      : continueRun
        ? 'continue_run'
        : commitStatus
          ? 'commit_status'
          : output.pullRequestReview
            ? 'pull_request_review'
            : output.checkRun
              ? 'check_run'
              : // GitHub's compare says what changed since the head the steered run worked on
                // (another forge's door hands its own reading: InputSource.steering).
                source.get('previous_run') === 'steer' && !source.steering
                ? 'previous_run: steer'
                : ''
  if (needsToken && !githubToken) {
    throw new InputError(
      'github_token',
      `is required by ${needsToken}; give it \${{ github.token }} (the default) with the permissions the README lists for ${needsToken}.`,
    )
  }
  return {
    ...connection,
    wait,
    timeoutMs,
    pollIntervalMs: readPollInterval(source.get('poll_interval'), timeoutMs),
    github: {
      token: needsToken ? githubToken : '',
      comment,
      commitStatus,
      key: conversationKey(source),
      commenterPermission,
      allowedBots,
      approval,
      approverPermission,
    },
    agentWork: readAgentWork(source, wait),
    output,
    budgets: readBudgets(source),
  }
}

/**
 * The credit budgets: each counts the runs of the step's project (and pull or merge request),
 * whatever the door that made them, so a budget with no project to count by is refused here,
 * before any request, rather than silently count nothing.
 */
function readBudgets(source: InputSource): CreditBudgets {
  const budgets = {
    daily: readCredits('daily_credit_budget', source.get('daily_credit_budget')),
    pullRequest: readCredits('pr_credit_budget', source.get('pr_credit_budget')),
  }
  const given = budgets.daily !== undefined ? 'daily_credit_budget' : 'pr_credit_budget'
  if ((budgets.daily ?? budgets.pullRequest) !== undefined && !source.world.project) {
    throw new InputError(
      given,
      'counts the runs of one project, and none is named: outside GitHub and GitLab, name it with --project.',
    )
  }
  return budgets
}

/** At most this many corrections: each is a whole new pass of the agent. */
const MAX_OUTPUT_RETRIES = 10

function readOutput(source: InputSource, wait: boolean): OutputSettings {
  const pullRequestReview = parseBoolean(
    'pull_request_review',
    source.get('pull_request_review') || 'false',
  )
  const checkRun = parseBoolean('check_run', source.get('check_run') || 'false')
  const retriesText = source.get('output_retries') || '2'
  const retries = /^\d+$/.test(retriesText) ? Number(retriesText) : NaN
  if (!(retries <= MAX_OUTPUT_RETRIES)) {
    throw new InputError(
      'output_retries',
      `must be a whole number from 0 to ${MAX_OUTPUT_RETRIES}; got "${retriesText}".`,
    )
  }
  const schema = readSchemaSource(source)
  if (schema && pullRequestReview) {
    throw new InputError(
      'output_schema',
      'cannot be combined with pull_request_review, which asks for its own review document.',
    )
  }
  // Each acts once the run has ended: without waiting they would silently do nothing.
  for (const [input, asked] of [
    ['output_schema', schema !== undefined],
    ['pull_request_review', pullRequestReview],
    ['check_run', checkRun],
  ] as const) {
    if (asked && !wait) {
      throw new InputError(input, "needs wait: true: it acts on the run's result.")
    }
  }
  return { schema, retries, pullRequestReview, checkRun }
}

/** Inline when it looks like JSON or YAML (a brace, a line break, `key: value`), else a file. */
function readSchemaSource(source: InputSource, input = 'output_schema'): SchemaSource | undefined {
  const value = source.get('output_schema')
  if (!value) return undefined
  if (/^[{[]|\n|:\s/.test(value)) return { input, text: value }
  const workspace = source.world.workspace
  const path = resolve(workspace, value)
  try {
    // The schema's text goes to the service in the prompt: only a file of the workspace may,
    // never one elsewhere on the runner reached by an absolute path, `..` or a link.
    if (!isWithin(realpathSync(workspace), realpathSync(path))) {
      throw new InputError(
        input,
        `must name a file in the workspace (${workspace}); "${value}" is outside it. ` +
          'Copy the schema into the workspace, or give it inline.',
      )
    }
    if (statSync(path).size > MAX_SCHEMA_BYTES) {
      throw new InputError(input, `names a file over 1 MiB: ${path}.`)
    }
    return { input, text: readFileSync(path, 'utf8'), file: path }
  } catch (error) {
    if (error instanceof InputError) throw error
    const reason = (error as { code?: string }).code ?? String(error)
    throw new InputError(
      input,
      `is neither an inline schema nor a file that can be read: ${path} (${reason}).`,
    )
  }
}

const MAX_SCHEMA_BYTES = 1024 * 1024

/** Whether `path` is `dir` or lies below it (both already resolved, links followed). */
function isWithin(dir: string, path: string): boolean {
  const rest = relative(dir, path)
  return rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest)
}

/** `pass_when`: how many of a set's runs must succeed for the step to pass. */
export type PassWhen = { kind: 'all' } | { kind: 'any' } | { kind: 'at-least'; count: number }

/** A step with `tasks` (v1.2): one run per task, at most `maxParallel` in flight. */
export interface TaskSetSettings extends Omit<Settings, 'target'> {
  /** One create request per task, in task order; each a complete request. */
  readonly tasks: readonly CreateRunRequest[]
  /** A task's own output_schema, by task index; a task without one takes the step's. */
  readonly taskSchemas: readonly (SchemaSource | undefined)[]
  readonly maxParallel: number
  readonly passWhen: PassWhen
}

/** The keys a task may set; any other it omits takes the step's input of the same name. */
const TASK_KEYS = [
  'prompt',
  'title',
  'environment_id',
  'skill_spec',
  'model_id',
  'base_prompt',
  'name',
  'harness',
  'worker_host',
  'output_schema',
] as const

/** The inputs that say what one run is, which `tasks` replaces. */
const SINGLE_RUN_INPUTS = ['prompt', 'prompt_file', 'run_id', 'followup'] as const

/**
 * What `tasks` cannot be combined with, each with the value that is refused: the one list
 * that `action.yml`'s description of `tasks` and docs/tasks.md say (a test holds them to it,
 * and one that each is refused before any request).
 */
export const TASKS_REFUSE = [
  ['prompt', 'x'],
  ['prompt_file', 'x'],
  ['run_id', 'x'],
  ['followup', 'x'],
  ['continue_run', 'true'],
  ['pull_request_review', 'true'],
  ['previous_run', 'steer'],
  ['continue_from', 'pull_request'],
] as const

/**
 * Reads a step with `tasks`: undefined when `tasks` is not given. Checks every
 * task before any request, and names the task and the field of a bad one.
 */
export async function readTaskSettings(source: InputSource): Promise<TaskSetSettings | undefined> {
  const value = source.get('tasks')
  if (!value) return undefined
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
  const read = items.map((item, index) => readTask(source, item, index))
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
  return {
    ...step,
    tasks,
    taskSchemas,
    cancelPrevious,
    previousRun,
    maxParallel,
    passWhen: readPassWhen(source.get('pass_when') || 'all', tasks.length),
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
): { request: CreateRunRequest; schema: SchemaSource | undefined } {
  // A person counts tasks from 1 (the `runs` output's `task` is the 0-based index, for code).
  const where = `task ${index + 1}`
  const fields: Partial<Record<(typeof TASK_KEYS)[number], string>> = {}
  if (typeof item === 'string') {
    fields.prompt = item.trim()
  } else if (isPlainObject(item)) {
    for (const [key, field] of Object.entries(item)) {
      if (!(TASK_KEYS as readonly string[]).includes(key)) {
        throw new InputError(
          'tasks',
          `${where} has an unknown key "${cut(key, 100)}"; a task takes ${TASK_KEYS.join(', ')}.`,
        )
      }
      if (typeof field !== 'string' && typeof field !== 'number') {
        throw new InputError('tasks', `${where}'s ${key} must be a string.`)
      }
      fields[key as (typeof TASK_KEYS)[number]] = String(field).trim()
    }
  } else {
    throw new InputError('tasks', `${where} must be a prompt or a mapping with a prompt.`)
  }
  const prompt = fields.prompt ?? ''
  checkPromptSize(`tasks (${where}'s prompt)`, prompt)
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
    return { request: readCreateRequest(merged, prompt), schema }
  } catch (error) {
    if (!(error instanceof InputError)) throw error
    throw new InputError('tasks', `${where}: ${error.message}`)
  }
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

/** The `name` input, else the workflow and the job: what makes a step's comment its own. */
function conversationKey(source: InputSource): string {
  const name = source.get('name')
  if (name) return name
  return `${source.world.workflow ?? 'workflow'}/${source.world.job ?? 'job'}`
}

function readRole(input: string, value: string): RepositoryRole {
  const role = value || 'write'
  if ((REPOSITORY_ROLES as readonly string[]).includes(role)) return role as RepositoryRole
  throw new InputError(input, `must be one of ${REPOSITORY_ROLES.join(', ')}; got "${value}".`)
}

/**
 * `approval`: a run that waits for an approval starts later from the step's own prompt, so it
 * applies to a step that creates one run from its prompt; never to a comment's message.
 */
function readApproval(source: InputSource, continueRun: boolean): ApprovalPolicy {
  const value = source.get('approval') || 'none'
  const policy = APPROVAL_POLICIES.find((word) => word === value)
  if (!policy) {
    throw new InputError('approval', `must be none, forks or always; got "${value}".`)
  }
  if (policy === 'none') return policy
  const other = continueRun
    ? 'continue_run'
    : (['run_id', 'tasks'] as const).find((name) => source.get(name) !== '')
  if (other) {
    throw new InputError(
      'approval',
      `cannot be combined with ${other}: an approved commit starts one new run from the step's prompt, and a comment's text never reaches it.`,
    )
  }
  return policy
}

const LOGIN = /^[a-z\d](?:[a-z\d-]{0,38})(?:\[bot\])?$/i

/** Comma-separated bot logins; `name` and `name[bot]` mean the same bot. */
function readBots(value: string): string[] {
  const logins = value
    .split(/[,\n]/)
    .map((login) => login.trim())
    .filter((login) => login !== '')
  for (const login of logins) {
    if (!LOGIN.test(login)) {
      throw new InputError(
        'allowed_bots',
        `must be GitHub logins separated by commas, such as renovate[bot]; "${login}" is not one.`,
      )
    }
  }
  return logins.map((login) => login.toLowerCase().replace(/\[bot\]$/, ''))
}

function readAgentWork(source: InputSource, wait: boolean): AgentWorkSettings {
  const onBlocked = source.get('on_blocked') || 'wait'
  if (!(ON_BLOCKED as readonly string[]).includes(onBlocked)) {
    throw new InputError('on_blocked', `must be wait, fail or pass; got "${onBlocked}".`)
  }
  const maxCredits = readCredits('max_credits', source.get('max_credits'))
  let downloadPatterns: string[]
  try {
    downloadPatterns = parseArtifactPatterns(source.get('download_artifacts'))
  } catch (error) {
    throw new InputError('download_artifacts', errorMessage(error))
  }
  // Both act while or after the step waits; without waiting they would silently do nothing.
  if (!wait && maxCredits !== undefined) {
    throw new InputError(
      'max_credits',
      'needs wait: true: the cap is checked while the step waits.',
    )
  }
  if (!wait && downloadPatterns.length > 0) {
    throw new InputError(
      'download_artifacts',
      'needs wait: true: files are downloaded once the run has ended.',
    )
  }
  return {
    onBlocked: onBlocked as OnBlocked,
    maxCredits,
    downloadPatterns,
    artifactsDir: readArtifactsDir(source),
    showProgress: parseBoolean('show_progress', source.get('show_progress') || 'false'),
  }
}

export function readCredits(input: string, value: string): number | undefined {
  if (!value) return undefined
  const credits = /^\d+(?:\.\d+)?$/.test(value) ? Number(value) : NaN
  if (!Number.isFinite(credits) || credits <= 0) {
    throw new InputError(
      input,
      `must be a number of credits greater than zero, such as 500 or 12.5 (no separators); got "${value}".`,
    )
  }
  return credits
}

function readArtifactsDir(source: InputSource): string {
  const dir = source.get('artifacts_dir')
  if (!dir) return ''
  if (dir.includes('\0')) throw new InputError('artifacts_dir', 'must not hold a NUL character.')
  return resolve(source.world.workspace, dir)
}

function readTarget(source: InputSource, continueRun: boolean): RunTarget {
  const runId = source.get('run_id')
  const followup = source.get('followup')
  if (runId && continueRun) {
    throw new InputError(
      'continue_run',
      'cannot be combined with run_id: continue_run finds the run on the comment thread.',
    )
  }
  if (runId) {
    checkNoCreateInputs(source)
    return { kind: 'existing', runId: checkRunId(runId), followup: followup || undefined }
  }
  if (continueRun) {
    const prompt = readPrompt(source)
    if (!prompt && !followup) {
      throw new InputError('continue_run', 'needs followup or prompt: the message to send.')
    }
    const request = readCreateRequest(source, prompt || followup)
    return { kind: 'continue', message: followup || prompt, request }
  }
  if (followup) {
    throw new InputError(
      'followup',
      'needs run_id (or continue_run: true): it is a message to an existing run.',
    )
  }
  return { kind: 'create', request: readCreateRequest(source, readPrompt(source)) }
}

/** `prompt`, or the contents of `prompt_file`; never both. */
function readPrompt(source: InputSource): string {
  const prompt = source.get('prompt')
  const file = source.get('prompt_file')
  if (!file) return checkPromptSize('prompt', prompt)
  if (prompt)
    throw new InputError('prompt_file', 'cannot be combined with prompt; give one of them.')
  const path = resolve(source.world.workspace, file)
  let text: string
  try {
    // Checked before reading, so that a huge file is refused without being loaded.
    checkPromptSize('prompt_file', '', statSync(path).size)
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if (error instanceof InputError) throw error
    const reason = (error as { code?: string }).code ?? String(error)
    throw new InputError('prompt_file', `cannot be read: ${path} (${reason}).`)
  }
  if (text.trim() === '') throw new InputError('prompt_file', `names an empty file: ${path}.`)
  return checkPromptSize('prompt_file', text.trim())
}

/**
 * Every poll answers with the prompt, so a prompt larger than the action can
 * read back would make the run impossible to follow: refuse it up front.
 */
function checkPromptSize(input: string, prompt: string, bytes = Buffer.byteLength(prompt)): string {
  if (bytes > MAX_PROMPT_BYTES) {
    throw new InputError(
      input,
      `is ${bytes} bytes; the longest prompt the action sends is ${MAX_PROMPT_BYTES} bytes (1 MiB).`,
    )
  }
  return prompt
}

/** What the post step needs: the API's key and address, and the GitHub surfaces to finish. */
export type PostSettings = Connection & { github: GitHubSettings }

export function readPostSettings(source: InputSource): PostSettings {
  const connection = readConnection(source)
  const token = source.get('github_token')
  if (token) source.mask(token)
  const comment = parseBoolean('comment', source.get('comment') || 'false')
  const commitStatus = parseBoolean('commit_status', source.get('commit_status') || 'false')
  const checkRun = parseBoolean('check_run', source.get('check_run') || 'false')
  return {
    ...connection,
    github: {
      token: comment || commitStatus || checkRun ? token : '',
      comment,
      commitStatus,
      key: conversationKey(source),
      commenterPermission: 'write',
      allowedBots: [],
      approval: 'none',
      approverPermission: 'write',
    },
  }
}

/** What the `reconcile` action reads (reconcile/action.yml). */
export interface ReconcileSettings extends Connection {
  readonly githubToken: string
  /** `owner/repo`, from the runner: a pass touches only runs tagged with it. */
  readonly repository: string
  readonly lookbackMs: number
  readonly sweep: boolean
  readonly dryRun: boolean
}

const DEFAULT_LOOKBACK = '24h'

/** Reads and checks every input of the `reconcile` action. Throws InputError before any request. */
export function readReconcileSettings(source: InputSource): ReconcileSettings {
  const connection = readConnection(source)
  const githubToken = source.get('github_token')
  if (githubToken) source.mask(githubToken)
  const lookbackMs = parsePositiveDuration('lookback', source.get('lookback') || DEFAULT_LOOKBACK)
  const sweep = parseBoolean('sweep', source.get('sweep') || 'true')
  const dryRun = parseBoolean('dry_run', source.get('dry_run') || 'false')
  if (!githubToken) {
    throw new InputError(
      'github_token',
      'is required by reconcile: it reads workflow runs and writes comments and commit statuses. Give it ${{ github.token }} (the default), with the permissions docs/reconcile.md lists.',
    )
  }
  const repository = source.world.repository ?? ''
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository)) {
    throw new Error(
      `reconcile runs in a workflow: GITHUB_REPOSITORY must name the repository (owner/repo); got "${repository}".`,
    )
  }
  return { ...connection, githubToken, repository, lookbackMs, sweep, dryRun }
}

/** What `cloud-agent-run reconcile` reads: the connection, the project, the pass's settings. */
export interface GitLabReconcileSettings extends Connection {
  /** The GitLab project's path: the pass touches only runs tagged with it. */
  readonly project: string
  readonly lookbackMs: number
  readonly sweep: boolean
  readonly dryRun: boolean
}

/**
 * Reads and checks the inputs of `cloud-agent-run reconcile`, a pass over a GitLab project's
 * runs. Throws InputError before any request.
 */
export function readGitLabReconcileSettings(source: InputSource): GitLabReconcileSettings {
  const connection = readConnection(source)
  const lookbackMs = parsePositiveDuration('lookback', source.get('lookback') || DEFAULT_LOOKBACK)
  const sweep = parseBoolean('sweep', source.get('sweep') || 'true')
  const dryRun = parseBoolean('dry_run', source.get('dry_run') || 'false')
  const project = source.world.project ?? ''
  if (source.world.forge !== 'gitlab' || !project) {
    throw new InputError(
      'project',
      'is needed: reconcile runs in a GitLab CI job (a scheduled pipeline), where GitLab CI names the project (GITLAB_CI, CI_PROJECT_PATH).',
    )
  }
  return { ...connection, project, lookbackMs, sweep, dryRun }
}

/**
 * `cancel_only`: the step cancels the active runs named `name` and creates
 * nothing (a pull request's runs when it closes). Undefined when not asked for.
 */
export function readCancelOnly(source: InputSource): (Connection & { name: string }) | undefined {
  if (!parseBoolean('cancel_only', source.get('cancel_only') || 'false')) return undefined
  const connection = readConnection(source)
  const name = source.get('name')
  if (!name) {
    throw new InputError('cancel_only', 'needs name: it cancels the active runs with that name.')
  }
  const others = [
    ...CREATE_ONLY_INPUTS.filter((input) => input !== 'name'),
    'run_id',
    'followup',
  ].filter((input) => source.get(input) !== '')
  for (const flag of ['continue_run', 'cancel_previous', 'comment', 'commit_status']) {
    if (parseBoolean(flag, source.get(flag) || 'false')) others.push(flag)
  }
  if (others.length > 0) {
    throw new InputError(
      'cancel_only',
      `cannot be combined with ${others.join(', ')}: it only cancels the runs named by name.`,
    )
  }
  return { ...connection, name }
}

/** The inputs the post step needs to reach the API: the key and the base URL. */
export function readConnection(source: InputSource): Connection {
  const apiKey = source.get('api_key')
  if (apiKey) source.mask(apiKey)
  if (!apiKey)
    throw new InputError('api_key', `is required but empty.${missingKeyHint(source.world)}`)
  // A line break or space would split the Authorization header; say so without showing the key.
  if (/[\s\p{Cc}]/u.test(apiKey)) {
    throw new InputError('api_key', 'contains whitespace or control characters; check the secret.')
  }
  return { apiKey, baseUrl: parseBaseUrl(source.get('base_url'), apiKey) }
}

const CREATE_ONLY_INPUTS = [
  'prompt',
  'prompt_file',
  'title',
  'environment_id',
  'skill_spec',
  'model_id',
  'base_prompt',
  'name',
  'mcp_servers',
  'harness',
  'worker_host',
] as const

function readCreateRequest(source: InputSource, prompt: string): CreateRunRequest {
  const skillSpec = source.get('skill_spec')
  if (!prompt && !skillSpec) {
    throw new InputError(
      'prompt',
      'is required unless skill_spec is given, or run_id names an existing run.',
    )
  }
  if (skillSpec && !/^[\w.-]+\/[\w.-]+:\S+$/.test(skillSpec)) {
    throw new InputError(
      'skill_spec',
      `must look like owner/repo:skill-name or owner/repo:path/to/SKILL.md; got "${skillSpec}".`,
    )
  }
  const surface = surfaceConfig({
    harness: source.get('harness'),
    workerHost: source.get('worker_host'),
  })
  if (isProblem(surface)) throw new InputError(surface.input, surface.message)
  const config: AgentConfig = dropEmpty({
    ...surface,
    name: source.get('name'),
    model_id: source.get('model_id'),
    base_prompt: source.get('base_prompt'),
    environment_id: source.get('environment_id'),
    skill_spec: skillSpec,
    mcp_servers: parseMcpServers(source.get('mcp_servers')),
  })
  return dropEmpty({
    prompt,
    title: source.get('title'),
    config: Object.keys(config).length > 0 ? config : undefined,
  })
}

function checkRunId(runId: string): string {
  const shown: string = runId
  if (!isRunId(runId)) {
    throw new InputError(
      'run_id',
      `must be a run ID: up to 200 letters, digits, ".", "_" or "-", and not "." or ".." (no "/", spaces or control characters); got ${JSON.stringify(cut(shown, 200))}.`,
    )
  }
  return runId
}

/** Rejects create-only inputs beside run_id, so that nobody expects them to be sent. */
function checkNoCreateInputs(source: InputSource): void {
  const given = CREATE_ONLY_INPUTS.filter((name) => source.get(name) !== '')
  if (given.length > 0) {
    throw new InputError(
      given[0] ?? 'prompt',
      `cannot be combined with run_id, which acts on an existing run (also given: ${given.join(', ')}). ` +
        'To send a message to that run, use followup.',
    )
  }
}

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

function parseBaseUrl(value: string, apiKey: string): string {
  // A key pasted into the wrong input must not be echoed back in the error.
  if (!value) return DEFAULT_BASE_URL
  // Quoted whole as given (bar the key), so the user finds the value they wrote.
  const shown = clip(value.split(apiKey).join('***'), 300)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InputError('base_url', `must be an absolute https:// URL; got "${shown}".`)
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOST.test(url.hostname)) {
    throw new InputError(
      'base_url',
      `must use https://; plain http:// is allowed only for loopback hosts (127.0.0.0/8, localhost, [::1]), because the key would travel unencrypted. Got "${shown}".`,
    )
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InputError('base_url', `must be an https:// URL; got "${shown}".`)
  }
  if (url.username || url.password) {
    throw new InputError('base_url', 'must not contain credentials; pass the key as api_key.')
  }
  if (url.search || url.hash) {
    throw new InputError('base_url', `must not have a query or fragment; got "${shown}".`)
  }
  const path = url.pathname.replace(/\/$/, '')
  if (!path.endsWith('/api/v1')) {
    throw new InputError('base_url', `must end in /api/v1; got "${shown}".`)
  }
  return `${url.origin}${path}`
}

/** YAML 1.2 core schema booleans, as the contract promises. */
export function parseBoolean(input: string, value: string): boolean {
  if (['true', 'True', 'TRUE'].includes(value)) return true
  if (['false', 'False', 'FALSE'].includes(value)) return false
  throw new InputError(input, `must be true or false; got "${value}".`)
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const

/** `500ms`, `30s`, `10m`, `2h`; a bare number is seconds. */
export function parseDuration(input: string, value: string): number {
  const match = DURATION.exec(value)
  if (!match) {
    throw new InputError(
      input,
      `must be a duration such as 500ms, 30s, 10m or 2h (a bare number means seconds); got "${value}".`,
    )
  }
  const unit = (match[2] ?? 's') as keyof typeof UNIT_MS
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit])
  if (!Number.isSafeInteger(ms)) throw new InputError(input, `is too long; got "${value}".`)
  return ms
}

function parsePositiveDuration(input: string, value: string): number {
  const ms = parseDuration(input, value)
  if (ms <= 0) throw new InputError(input, `must be longer than zero; got "${value}".`)
  return ms
}

function readPollInterval(value: string, timeoutMs: number): number {
  if (!value) return POLL_INTERVAL.defaultMs
  const ms = parseDuration('poll_interval', value)
  if (ms < POLL_INTERVAL.minMs) {
    throw new InputError(
      'poll_interval',
      `must be at least ${POLL_INTERVAL.minMs}ms; got "${value}".`,
    )
  }
  if (ms > timeoutMs) {
    throw new InputError(
      'poll_interval',
      `("${value}") is longer than timeout (${timeoutMs / 1000}s): the run would never be polled.`,
    )
  }
  return ms
}

/** Deep enough for any real configuration; deeper would only risk the stack when sent. */
const MAX_MCP_DEPTH = 16

function parseMcpServers(value: string): Record<string, McpServerConfig> | undefined {
  if (!value) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch (error) {
    const reason = errorMessage(error)
    throw new InputError('mcp_servers', `must be JSON; it does not parse (${reason}).`)
  }
  if (!isPlainObject(parsed)) {
    throw new InputError(
      'mcp_servers',
      'must be a JSON object mapping server names to their configuration.',
    )
  }
  if (depthOf(parsed, MAX_MCP_DEPTH) > MAX_MCP_DEPTH) {
    throw new InputError('mcp_servers', `nests deeper than ${MAX_MCP_DEPTH} levels.`)
  }
  const servers: Record<string, McpServerConfig> = {}
  for (const [name, server] of Object.entries(parsed)) {
    servers[name] = parseMcpServer(name, server)
  }
  return servers
}

/** The kinds of MCP server the service takes: an entry names exactly one. */
const MCP_SERVER_KINDS = ['warp_id', 'command', 'url'] as const

function parseMcpServer(name: string, server: unknown): McpServerConfig {
  const fail = (problem: string): never => {
    throw new InputError('mcp_servers', `entry "${name}" ${problem}`)
  }
  const kindsHelp =
    '"warp_id" (a server saved in the service), "command" (a local server) or "url" (a remote one)'
  if (!isPlainObject(server)) return fail(`must be an object with exactly one of ${kindsHelp}.`)
  const kinds = MCP_SERVER_KINDS.filter((kind) => server[kind] !== undefined)
  if (kinds.length !== 1) {
    return fail(
      kinds.length === 0
        ? `must have exactly one of ${kindsHelp}.`
        : `has ${kinds.map((kind) => `"${kind}"`).join(' and ')}; give exactly one of ${kindsHelp}.`,
    )
  }
  for (const kind of kinds) {
    const value = server[kind]
    if (typeof value !== 'string' || value.trim() === '') {
      fail(`has a "${kind}" that is not a non-empty string.`)
    }
  }
  if (typeof server.url === 'string' && !URL.canParse(server.url)) {
    fail(`has a "url" that is not a URL.`)
  }
  const args = server.args
  if (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === 'string'))) {
    fail(`has "args" that is not a list of strings.`)
  }
  for (const map of ['env', 'headers'] as const) {
    const value = server[map]
    if (value !== undefined && !isStringMap(value)) {
      fail(`has "${map}" that is not an object of strings.`)
    }
  }
  return server as McpServerConfig
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string')
}

/** How deeply objects and arrays nest in `value`, counted without recursion, up to `limit + 1`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0
  const pending: Array<[unknown, number]> = [[value, 1]]
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number]
    if (typeof item !== 'object' || item === null) continue
    deepest = Math.max(deepest, depth)
    if (deepest > limit) return deepest
    for (const child of Object.values(item)) pending.push([child, depth + 1])
  }
  return deepest
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function dropEmpty<T extends object>(record: T): T {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== '' && value !== undefined),
  ) as T
}

/** What to do about a missing key: a fork gets no secrets; otherwise, where keys come from. */
function missingKeyHint(world: World): string {
  return (
    forkHint(world) ||
    ' Make a key in the Warp app (Settings > Cloud platform > API keys), add it as a' +
      ' repository secret (Settings > Secrets and variables > Actions), and pass it:' +
      ' api_key: ${{ secrets.WARP_API_KEY }}.'
  )
}

/**
 * Fork pull requests get no secrets, which is the usual reason for an empty key.
 * Not `pull_request_target`: it runs in the base repository and does get them.
 */
function forkHint(world: World): string {
  const event = world.eventName ?? ''
  if (!event.startsWith('pull_request') || event === 'pull_request_target') return ''
  const head = world.event?.pull_request?.head?.repo?.full_name
  const base = world.event?.pull_request?.base?.repo?.full_name
  if (head && base && head !== base) {
    return ` This pull request comes from the fork ${head}, and GitHub gives no secrets to workflows triggered from forks.`
  }
  return ''
}
