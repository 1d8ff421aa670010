/**
 * What the command checks before any request, and refuses with exit 2: the key, a GitHub-only
 * flag outside GitHub, the files it reads, a `--summary` it could not write once a run is paid
 * for. Shared by every subcommand.
 */
import { accessSync, constants, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { errorMessage } from '../text/plain.ts'
import { EXIT, refusalJson } from './answer.ts'
import { flagOf, githubOnlyGiven, UsageError, type CommandLine } from './flags.ts'
import { readKey, readText } from './key.ts'
import type { CommandIo } from './io.ts'

/** A refusal before any request: one line on stderr, the JSON on stdout when asked; exit 2. */
export function refuse(io: CommandIo, json: boolean, message: string): number {
  io.stderr(`cloud-agent-run: ${message}\n`)
  if (json) io.stdout(`${JSON.stringify(refusalJson(message), null, 2)}\n`)
  return EXIT.badInput
}

/** What the checks before any request read: the key, the tasks and the prompt from files. */
export interface Preflight {
  readonly key: string
  readonly tasks?: string
  readonly prompt?: string
}

/**
 * Everything that can fail before a request fails here, with UsageError: the key (from
 * WARP_API_KEY, else the file WARP_API_KEY_FILE names), a GitHub-only flag outside GitHub,
 * the files to read (`--tasks-file`, `--prompt-file -` from stdin), and a `--summary` that
 * could not be written once the run is paid for.
 */
export async function preflight(
  command: CommandLine,
  io: CommandIo,
  /** The main command's inputs that write to GitHub; a subcommand's own flags are its own. */
  options: { githubOnly: boolean } = { githubOnly: true },
): Promise<Preflight> {
  const key = readKey(io.env, io.cwd)
  const githubOnly = options.githubOnly ? githubOnlyGiven(command.inputs) : []
  if (githubOnly.length > 0 && io.env.GITHUB_ACTIONS !== 'true') {
    const names = githubOnly.map(flagOf).join(', ')
    const one = githubOnly.length === 1
    throw new UsageError(
      `${names} only ${one ? 'means' : 'mean'} something in a GitHub Actions workflow (${one ? 'it works' : 'they work'} on GitHub); outside one, leave ${one ? 'it' : 'them'} out.`,
    )
  }
  if (command.summaryFile !== undefined) checkWritable(resolve(io.cwd, command.summaryFile))
  const tasks =
    command.tasksFile === undefined
      ? undefined
      : readText(io.cwd, command.tasksFile, '--tasks-file')
  const fromStdin = command.inputs.get('prompt_file') === '-'
  // Said first: a command that seems to hang is waiting for its input (a signal still ends it).
  if (fromStdin) io.stderr('Reading the prompt from standard input (--prompt-file -).\n')
  const prompt = fromStdin ? await io.readStdin() : undefined
  if (fromStdin && !prompt?.trim()) {
    throw new UsageError('--prompt-file - read an empty prompt from standard input.')
  }
  return { key, ...(tasks !== undefined ? { tasks } : {}), ...(prompt ? { prompt } : {}) }
}

/** A file the command writes once the run is paid for: its folder must take it now. */
function checkWritable(path: string): void {
  try {
    accessSync(dirname(path), constants.W_OK)
  } catch {
    throw new UsageError(
      `--summary ${path}: its folder does not exist or cannot be written; nothing was started.`,
    )
  }
}

/** Writes `--summary`'s file; says what went wrong (a full disk) instead of throwing. */
export function writeSummary(
  command: CommandLine,
  io: CommandIo,
  summary: string,
): string | undefined {
  if (command.summaryFile === undefined) return undefined
  const path = resolve(io.cwd, command.summaryFile)
  try {
    writeFileSync(path, summary)
    return undefined
  } catch (error) {
    return `--summary ${path} could not be written (${errorMessage(error)}); the run's outcome is in the outputs.`
  }
}
