/**
 * Reads and checks every input of the main step (action.yml, and the command's run) for one run,
 * or for `cancel_only`: the connection, time, `previous_run`, `continue_from`, the budgets; each
 * part of a run's settings in its own room. A step with `tasks` is task-set.ts's.
 */
import type { RunTarget } from '../model/step.ts'
import type { InputSource } from '../step-io.ts'
import { POLL_INTERVAL } from '../timing.ts'
import { readAgentWork, type AgentWorkSettings } from './agent-work.ts'
import { readCreditBudgets, type CreditBudgets } from './budgets.ts'
import { readConnection, type Connection } from './connection.ts'
import {
  conversationKey,
  readApproval,
  readBots,
  readGitHubToken,
  readApproverPermission,
  readRole,
  type GitHubSettings,
} from './github.ts'
import { InputError } from '../input-error.ts'
import { readOutput, type OutputSettings } from './output.ts'
import { CREATE_ONLY_INPUTS, readTarget, SINGLE_RUN_INPUTS } from './run-target.ts'
import { readContinueFrom, type ContinueFrom } from './surface.ts'
import { parseBoolean, parseDuration, parsePositiveDuration, readCampaign } from './values.ts'

/** `previous_run`'s words. */
export type PreviousRun = 'keep' | 'cancel' | 'steer'

const PREVIOUS_RUN_WORDS: readonly PreviousRun[] = ['keep', 'cancel', 'steer']

/**
 * `previous_run`, with `cancel_previous: true` meaning `cancel` as it always has; the two
 * saying different things is an input error.
 */
export function readPreviousRun(source: InputSource): PreviousRun {
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

const DEFAULT_TIMEOUT = '60m'

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
    if (previousRun === 'cancel') needsProject(source, input)
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
export function cancelAskedBy(source: InputSource, previousRun: PreviousRun): string | undefined {
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
export function readStepSettings(
  source: InputSource,
  readTarget: (continueRun: boolean) => void,
  connection: Connection = readConnection(source),
): Omit<Settings, 'target' | 'cancelPrevious' | 'previousRun'> {
  const githubToken = readGitHubToken(source)
  const comment = parseBoolean('comment', source.get('comment') || 'false')
  const continueRun = parseBoolean('continue_run', source.get('continue_run') || 'false')
  const commitStatus = parseBoolean('commit_status', source.get('commit_status') || 'false')
  const commenterPermission = readRole('commenter_permission', source.get('commenter_permission'))
  const allowedBots = readBots(source.get('allowed_bots'))
  const approval = readApproval(source, continueRun)
  const approverPermission = readApproverPermission(source, approval)
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
  const budgets = readCreditBudgets(source)
  if (source.get('campaign')) {
    if (budgets.pullRequest !== undefined) {
      throw new InputError(
        'pr_credit_budget',
        "cannot be combined with campaign: a campaign's runs are each on their own repository, not on this step's pull request. daily_credit_budget counts each task's repository.",
      )
    }
    // Counted per task repository (TaskSetSettings.repositoryBudget), not the step's project.
    return { daily: undefined, pullRequest: undefined }
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

/** What `cancel_only` cancels: the active runs named `name`, and with `continue_from`, the run that made the pull request. */
export interface CancelOnly extends Connection {
  /** '' when only the run that made the pull request, or a campaign's, are to be cancelled. */
  readonly name: string
  /** `campaign`: every working run of the campaign, whichever repository it is of (v1.5). */
  readonly campaign: string
  /** `continue_from: pull_request`: the run that made the step's pull request, if it works. */
  readonly madeThePullRequest: boolean
}

/**
 * `cancel_only`: the step cancels the active runs named `name` and creates
 * nothing (a pull request's runs when it closes); with `continue_from: pull_request`, the run
 * that made the pull request too (v1.5). Undefined when not asked for.
 */
export function readCancelOnly(source: InputSource): CancelOnly | undefined {
  if (!parseBoolean('cancel_only', source.get('cancel_only') || 'false')) return undefined
  const connection = readConnection(source)
  const name = source.get('name')
  const continueFrom = source.get('continue_from')
  if (continueFrom !== '' && continueFrom !== 'pull_request') {
    throw new InputError('continue_from', `must be pull_request or empty; got "${continueFrom}".`)
  }
  const madeThePullRequest = continueFrom === 'pull_request'
  const campaign = readCampaign(source)
  if (!name && !madeThePullRequest && !campaign) {
    throw new InputError(
      'cancel_only',
      "needs name (it cancels the active runs with that name), continue_from: pull_request (the run that made the pull request), or campaign (the campaign's working runs).",
    )
  }
  // A campaign's runs are of many projects: the campaign names them, not the step's project.
  if (name || madeThePullRequest) needsProject(source, 'cancel_only')
  // Every input that says which run to act on, or how to create one: none is sent.
  const others: string[] = [...new Set([...CREATE_ONLY_INPUTS, ...SINGLE_RUN_INPUTS])].filter(
    (input) => input !== 'name' && source.get(input) !== '',
  )
  for (const flag of ['continue_run', 'cancel_previous', 'comment', 'commit_status']) {
    if (parseBoolean(flag, source.get(flag) || 'false')) others.push(flag)
  }
  if (others.length > 0) {
    throw new InputError(
      'cancel_only',
      `cannot be combined with ${others.join(', ')}: it only cancels the runs named by name.`,
    )
  }
  return { ...connection, name, madeThePullRequest, campaign }
}

/**
 * An input that acts on the name's runs of one project (`previous_run: cancel`,
 * `cancel_previous`, `cancel_only`): with no project to scope by it could only act on nothing,
 * so it is refused here, before any request, as a budget with no project is.
 */
export function needsProject(source: Pick<InputSource, 'world'>, input: string): void {
  if (source.world.project) return
  throw new InputError(
    input,
    `${input === 'previous_run' ? 'cancel ' : ''}needs a project: it cancels only the name's runs of one project, and none is named; outside GitHub and GitLab, name it with --project.`,
  )
}

/** An input as the door names it: see InputSource.nameOf. */
export function inputNamed(source: InputSource, input: string, value?: string): string {
  if (source.nameOf) return source.nameOf(input, value)
  return value === undefined ? input : `${input}: ${value}`
}
