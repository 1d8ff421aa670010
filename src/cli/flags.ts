/**
 * The command line's flags, taken from action.yml's inputs so that the two never drift: every
 * input is a flag of its name with `-` for `_` (`--environment-id`), a boolean input also reads
 * `--name` and `--no-name`. Pure: the door hands it the inputs and the arguments.
 */

/** An input as action.yml declares it. */
export interface DeclaredInput {
  readonly description?: string
  readonly default?: unknown
  readonly required?: boolean
}

/** What the command was asked: the inputs it was given, and its own options. */
export interface CommandLine {
  /** Input name (`environment_id`) → value, only for the flags given. */
  readonly inputs: ReadonlyMap<string, string>
  /** `--json`: one JSON object of the outputs on stdout, the log on stderr. */
  readonly json: boolean
  /** `--summary FILE`: where the summary's Markdown goes. */
  readonly summaryFile?: string
  /** `--tasks-file FILE`: the `tasks` list, read from a file. */
  readonly tasksFile?: string
  /** `--project NAME`: the project the runs belong to, outside GitHub and GitLab. */
  readonly project?: string
  readonly help: boolean
  readonly version: boolean
}

/** Bad usage: the message says what and how to fix it; exit 2, before any request. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/**
 * Inputs that only mean something in a GitHub Actions workflow: they write to GitHub, or read
 * a pull request's thread. Refused outside one, before any request.
 */
export const GITHUB_ONLY_INPUTS = [
  'github_token',
  'comment',
  'continue_run',
  'commenter_permission',
  'allowed_bots',
  'approval',
  'approver_permission',
  'commit_status',
  'pull_request_review',
  'check_run',
] as const

/** The key is read from the environment only: a flag would land in shell history and `ps`. */
export const KEY_VARIABLE = 'WARP_API_KEY'

/** Or a file holding the key: GitLab's file-type CI/CD variables hand a secret as a file's path. */
export const KEY_FILE_VARIABLE = 'WARP_API_KEY_FILE'

export const flagOf = (input: string): string => `--${input.replace(/_/g, '-')}`

/** Whether an input takes true or false: its default says so. */
export function isBooleanInput(input: DeclaredInput): boolean {
  return input.default === 'true' || input.default === 'false'
}

/** Parses the arguments against the declared inputs. Throws UsageError, naming the flag. */
export function parseCommandLine(
  args: readonly string[],
  declared: Readonly<Record<string, DeclaredInput>>,
): CommandLine {
  const byFlag = new Map(Object.keys(declared).map((name) => [flagOf(name), name]))
  const inputs = new Map<string, string>()
  const own: {
    json: boolean
    help: boolean
    version: boolean
    summary?: string
    tasks?: string
    project?: string
  } = { json: false, help: false, version: false }
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? ''
    if (!arg.startsWith('--')) {
      throw new UsageError(`Unexpected argument "${arg}": every value follows its flag.`)
    }
    const equals = arg.indexOf('=')
    const flag = equals < 0 ? arg : arg.slice(0, equals)
    const inline = equals < 0 ? undefined : arg.slice(equals + 1)
    const valueOf = (): string => {
      if (inline !== undefined) return inline
      const next = args[index + 1]
      if (next === undefined || (next.startsWith('--') && next.length > 2)) {
        throw new UsageError(`${flag} needs a value.`)
      }
      index += 1
      return next
    }
    if (flag === '--api-key') {
      throw new UsageError(
        `The key is never a flag (it would show in the shell's history and the process list): set ${KEY_VARIABLE}.`,
      )
    }
    switch (flag) {
      case '--json':
      case '--help':
      case '--version':
        if (inline !== undefined) throw new UsageError(`${flag} takes no value.`)
        own[flag.slice(2) as 'json' | 'help' | 'version'] = true
        continue
      case '--summary':
        own.summary = valueOf()
        continue
      case '--tasks-file':
        own.tasks = valueOf()
        continue
      case '--project':
        own.project = valueOf().trim()
        if (!/^(?:(?:github|gitlab):)?[\w.-]+(?:\/[\w.-]+)*$/.test(own.project)) {
          throw new UsageError(
            `--project names a project as a path such as group/app, or with its forge, github:owner/repo or gitlab:group/app; got "${own.project}".`,
          )
        }
        continue
    }
    const negated = flag.startsWith('--no-') ? byFlag.get(`--${flag.slice(5)}`) : undefined
    if (negated !== undefined && isBooleanInput(declared[negated] ?? {})) {
      if (inline !== undefined) throw new UsageError(`${flag} takes no value.`)
      inputs.set(negated, 'false')
      continue
    }
    const name = byFlag.get(flag)
    if (name === undefined) {
      throw new UsageError(`Unknown flag ${flag}; \`cloud-agent-run --help\` lists them.`)
    }
    if (isBooleanInput(declared[name] ?? {})) {
      const next = args[index + 1]
      const value = inline ?? (next === 'true' || next === 'false' ? next : 'true')
      if (inline === undefined && value === next) index += 1
      inputs.set(name, value)
      continue
    }
    inputs.set(name, valueOf())
  }
  if (own.tasks !== undefined && inputs.has('tasks')) {
    throw new UsageError('Give --tasks or --tasks-file, not both.')
  }
  return {
    inputs,
    json: own.json,
    help: own.help,
    version: own.version,
    ...(own.summary !== undefined ? { summaryFile: own.summary } : {}),
    ...(own.tasks !== undefined ? { tasksFile: own.tasks } : {}),
    ...(own.project !== undefined ? { project: own.project } : {}),
  }
}

/** The GitHub-only inputs given, for the refusal. */
export function githubOnlyGiven(inputs: ReadonlyMap<string, string>): string[] {
  return GITHUB_ONLY_INPUTS.filter((name) => {
    const value = inputs.get(name)
    return value !== undefined && value !== '' && value !== 'false'
  })
}

/** `--help`: the subcommands, the flags with their defaults, from action.yml's own words. */
export function usage(declared: Readonly<Record<string, DeclaredInput>>): string {
  const lines = [
    'Usage: cloud-agent-run [flags]',
    '       cloud-agent-run report|reconcile|cleanup [flags]',
    '       cloud-agent-run campaign status|cancel|close NAME [flags]',
    '',
    `Starts a cloud agent run on Warp's Oz platform, waits for it and reports it. The key is read`,
    `from ${KEY_VARIABLE}, else from the file ${KEY_FILE_VARIABLE} names.`,
    '',
    'Subcommands (each has its own --help):',
    "  report      what the runs did and cost in a period, from the service's own records",
    "  reconcile   one pass over a GitLab project's runs: finish notes, cancel a lost job's runs",
    '  cleanup     cancel what a killed command left going (reads CLOUD_AGENT_RUN_DIR)',
    "  campaign    a campaign's status, cancel and close, by its name",
    '',
    'Exit codes: 0 passed; 1 did not pass; 2 bad input (nothing created); 3 the service could',
    'not be reached or refused the key (nothing left running); 124 the timeout passed (runs',
    'cancelled); 130/143 interrupted by SIGINT/SIGTERM (every run it made cancelled).',
    '',
    'Own flags:',
    '  --json               one JSON object on stdout on every exit: the outputs, outcome,',
    '                       exit_code and error; the log on stderr',
    '  --summary FILE       write the summary (Markdown) to FILE',
    '  --tasks-file FILE    the tasks list (YAML or JSON), from FILE',
    PROJECT_HELP,
    '  --help, --version',
    '',
    'Inputs (as in action.yml):',
    ...inputLines(declared),
  ]
  return `${lines.join('\n')}\n`
}

/** `--project`'s lines of a --help page. */
export const PROJECT_HELP = [
  '  --project NAME       the project the runs belong to (budgets, --previous-run and the',
  '                       report count by it): a path (owner/repo, group/app), or with its',
  '                       forge, github:owner/repo or gitlab:group/app; a bare path counts',
  "                       every forge's runs of it. On GitHub and GitLab, the CI's own project",
].join('\n')

/** A --help page's inputs: each a flag, its default or where it applies, and its description. */
export function inputLines(declared: Readonly<Record<string, DeclaredInput>>): string[] {
  const lines: string[] = []
  for (const [name, input] of Object.entries(declared)) {
    // The key is never a flag; tasks_file is the command's own --tasks-file, read from the cwd.
    if (name === 'api_key' || name === 'tasks_file') continue
    const flag = isBooleanInput(input)
      ? `${flagOf(name)}, --no-${name.replace(/_/g, '-')}`
      : flagOf(name)
    const fallback = typeof input.default === 'string' && input.default !== '' ? input.default : ''
    const githubOnly = (GITHUB_ONLY_INPUTS as readonly string[]).includes(name)
    const note = githubOnly ? ' (GitHub Actions only)' : fallback ? ` (default: ${fallback})` : ''
    lines.push(`  ${flag}${note}`)
    const description = (input.description ?? '').replace(/\s+/g, ' ').trim()
    // Whole: the values an input takes (--previous-run's keep, cancel, steer) are past its first sentence.
    for (const line of wrap(description, HELP_WIDTH)) lines.push(`      ${line}`)
  }
  return lines
}

/** The width of --help's descriptions, indented six: a terminal's 100 columns. */
const HELP_WIDTH = 94

/** Words into lines of at most `width` characters (a longer word on a line of its own). Linear. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (!word) continue
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line ? `${line} ${word}` : word
    }
  }
  if (line) lines.push(line)
  return lines
}
