/**
 * `cloud-agent-run reconcile`: the `reconcile` action outside Actions, for a GitLab scheduled
 * pipeline. One pass over the project's runs: it finishes the merge request notes of runs a
 * `--no-wait` job left going, and cancels runs whose job GitLab reports finished while they
 * still went (a lost runner). Its world is GitLab CI's variables; it answers as the command does.
 */
import type { CommandIo } from './io.ts'
import { GitLabApi } from '../gitlab/api.ts'
import { readGitLabReconcileSettings } from '../inputs/reconcile.ts'
import { InputError } from '../input-error.ts'
import type { InputSource } from '../step-io.ts'
import { gitlabReconcilePass } from '../reconcile/gitlab-pass.ts'
import { publishPass, renderPassSummary } from '../summary/reconcile.ts'
import { serviceClient } from '../service.ts'
import { errorMessage } from '../text/plain.ts'
import { EXIT, refusalJson } from './answer.ts'
import { flagOf, UsageError, type DeclaredInput } from './flags.ts'
import { readKey } from './key.ts'
import { plainSummary } from './outputs.ts'
import { endOnSignal } from './signals.ts'
import { CommandStepIo } from './step-io.ts'
import { commandWorld } from './world.ts'

/** The subcommand's flags that take a value, by input name. */
const VALUE_FLAGS = ['lookback', 'base_url', 'project'] as const
/** Its boolean flags (`--dry-run`, `--no-sweep`), by input name. */
const BOOLEAN_FLAGS = ['dry_run', 'sweep'] as const

const HELP = `Usage: cloud-agent-run reconcile [flags]

One reconcile pass over a GitLab project's runs, for a scheduled pipeline: it finishes the
merge request notes of runs that a --no-wait job left going, once they end, and cancels a run
still going whose job GitLab reports finished (its runner was lost). It reads WARP_API_KEY (or
WARP_API_KEY_FILE), and GitLab CI's CI_API_V4_URL and CI_PROJECT_PATH, with GITLAB_TOKEN (api
scope) to read jobs and write notes. A second pass over the same runs changes nothing.

  --lookback DURATION   consider runs updated within this duration (default 24h)
  --no-sweep            finish notes only; cancel nothing
  --dry-run             say what would be done; change nothing
  --project PATH        the project whose runs to look at (default CI_PROJECT_PATH)
  --base-url URL        the API's address (default the real service)
  --json                one JSON object on stdout: finalized, swept, outcome, exit_code, error
  --help                this text

Exit 0 when the pass did what it had to (or had nothing to do), 1 when every finish or sweep
it had to do failed, 2 for bad input, before any request, 3 when the service could not be
reached.
`

interface ReconcileLine {
  readonly inputs: Map<string, string>
  readonly json: boolean
  readonly help: boolean
}

/** Reads the subcommand's flags; UsageError for an unknown or incomplete one. */
function parseReconcileLine(args: readonly string[]): ReconcileLine {
  const inputs = new Map<string, string>()
  let json = false
  let help = false
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? ''
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined]
    if (flag === '--json') json = true
    else if (flag === '--help' || flag === '-h') help = true
    else if (BOOLEAN_FLAGS.some((name) => flagOf(name) === flag)) {
      inputs.set(flag.slice(2).replace(/-/g, '_'), inline ?? 'true')
    } else if (BOOLEAN_FLAGS.some((name) => `--no-${flagOf(name).slice(2)}` === flag)) {
      inputs.set(flag.slice(5).replace(/-/g, '_'), 'false')
    } else if (VALUE_FLAGS.some((name) => flagOf(name) === flag)) {
      const value = inline ?? args[++index]
      if (value === undefined || (inline === undefined && value.startsWith('--'))) {
        throw new UsageError(`${flag} needs a value.`)
      }
      inputs.set(flag.slice(2).replace(/-/g, '_'), value)
    } else {
      throw new UsageError(
        `reconcile does not take ${JSON.stringify(arg.slice(0, 60))}; see cloud-agent-run reconcile --help.`,
      )
    }
  }
  return { inputs, json, help }
}

/** Runs `cloud-agent-run reconcile`; resolves with its exit code. */
export async function runReconcile(
  args: readonly string[],
  declared: Readonly<Record<string, DeclaredInput>>,
  io: CommandIo,
): Promise<number> {
  const asksJson = args.includes('--json')
  const refuse = (message: string) => {
    io.stderr(`cloud-agent-run reconcile: ${message}\n`)
    if (asksJson) io.stdout(`${JSON.stringify(refusalJson(message), null, 2)}\n`)
    return EXIT.badInput
  }
  let line: ReconcileLine
  let key: string
  try {
    line = parseReconcileLine(args)
    if (line.help) {
      io.stdout(HELP)
      return EXIT.passed
    }
    key = readKey(io.env, io.cwd)
  } catch (error) {
    if (error instanceof UsageError) return refuse(error.message)
    throw error
  }
  const world = commandWorld(io.env, io.cwd, line.inputs.get('project'))
  const secrets = new Set<string>([key])
  const baseDefault = declared.base_url?.default
  const source: InputSource = {
    get: (name) => {
      if (name === 'api_key') return key
      const given = line.inputs.get(name)?.trim()
      if (given !== undefined) return given
      return name === 'base_url' && typeof baseDefault === 'string' ? baseDefault : ''
    },
    mask: (secret) => secrets.add(secret),
    world,
    nameOf: (input, value) => (value === undefined ? flagOf(input) : `${flagOf(input)} ${value}`),
  }
  let settings
  let access: { apiUrl: string; token: string }
  try {
    outsideGitLab(io.env)
    settings = readGitLabReconcileSettings(source)
    access = gitlabAccess(io.env)
  } catch (error) {
    if (error instanceof InputError) return refuse(`${flagOf(error.input)} ${error.detail}`)
    if (error instanceof UsageError) return refuse(error.message)
    throw error
  }
  secrets.add(access.token)
  const port = new CommandStepIo(io.stderr, secrets, io.process, () => undefined)
  const gitlab = new GitLabApi(access)
  const ids = (name: string): unknown => JSON.parse(port.outputs[name] ?? '[]')
  const signals = endOnSignal(io, {
    name: 'cloud-agent-run reconcile',
    json: line.json,
    answer: (_, exitCode) => ({
      finalized: ids('finalized'),
      swept: ids('swept'),
      outcome: 'interrupted',
      exit_code: exitCode,
    }),
  })
  let code: number = EXIT.passed
  let failure: string | undefined
  try {
    const report = await gitlabReconcilePass(settings, {
      client: serviceClient(settings, port),
      gitlab,
      noteOn: (mergeRequest) => ({
        ...access,
        projectId: settings.project,
        projectPath: settings.project,
        mergeRequestIid: mergeRequest,
      }),
      now: Date.now,
      log: port,
    })
    await publishPass(port, report)
    if (port.failure) {
      code = EXIT.notPassed
      failure = port.failure
    }
    if (!line.json) io.stdout(plainSummary(renderPassSummary(report)))
  } catch (error) {
    failure = errorMessage(error)
    port.error(failure)
    code = EXIT.unreachable
  } finally {
    signals.stop()
  }
  if (line.json) {
    const answer = {
      finalized: ids('finalized'),
      swept: ids('swept'),
      outcome: failure ? 'error' : 'succeeded',
      exit_code: code,
      ...(failure ? { error: failure } : {}),
    }
    io.stdout(`${JSON.stringify(answer, null, 2)}\n`)
  }
  return code
}

/** GitLab's API and the token, from GitLab CI's variables; UsageError when they are not. */
function gitlabAccess(env: NodeJS.ProcessEnv): { apiUrl: string; token: string } {
  const apiUrl = (env.CI_API_V4_URL ?? '').trim().replace(/\/+$/, '')
  const token = (env.GITLAB_TOKEN ?? '').trim()
  if (!/^https?:\/\/[^\s]+$/.test(apiUrl)) {
    throw new UsageError(
      "CI_API_V4_URL does not name GitLab's API: reconcile runs in a GitLab CI job.",
    )
  }
  if (!token || /\s/.test(token)) {
    throw new UsageError(
      'GITLAB_TOKEN is not set (or holds whitespace): reconcile reads jobs and writes merge request notes with a token of the api scope.',
    )
  }
  return { apiUrl, token }
}

/**
 * The pass asks GitLab about jobs and writes its notes: outside a GitLab CI job, what is
 * missing is GitLab's, whatever `--project` names.
 */
function outsideGitLab(env: NodeJS.ProcessEnv): void {
  if (env.GITLAB_CI === 'true') return
  throw new UsageError(
    "GITLAB_CI is not set: reconcile runs in a GitLab CI job (a scheduled pipeline), where it reads the jobs of the runs and writes merge request notes through GitLab's API (CI_API_V4_URL, GITLAB_TOKEN). Elsewhere there is nothing for it to reconcile: the command cancels its own runs, and cloud-agent-run cleanup recovers a killed one.",
  )
}
