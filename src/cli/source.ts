/**
 * The inputs a command's flags give, as the engine reads inputs (InputSource): a flag's value,
 * else its action's default; the key from the environment only; names as the command's flags.
 */
import type { InputSource } from '../step-io.ts'
import type { World } from '../world.ts'
import { flagOf, type CommandLine, type DeclaredInput } from './flags.ts'
import type { Preflight } from './preflight.ts'

export interface CommandAsked {
  readonly command: CommandLine
  /** The action whose inputs the flags are. */
  readonly declared: Readonly<Record<string, DeclaredInput>>
  readonly ready: Preflight
  readonly env: NodeJS.ProcessEnv
}

/** The command's InputSource in `world`; a secret read is added to `secrets`, to be masked. */
export function commandInputs(
  asked: CommandAsked,
  world: World,
  secrets: Set<string>,
): InputSource {
  return {
    get: (name) => inputValue(name, asked),
    mask: (secret) => secrets.add(secret),
    world,
    nameOf: (input, value) => (value === undefined ? flagOf(input) : `${flagOf(input)} ${value}`),
  }
}

/** A flag's value, else the action's default; the key from the environment only. */
function inputValue(name: string, { command, declared, ready, env }: CommandAsked): string {
  if (name === 'api_key') return ready.key
  if (name === 'tasks' && ready.tasks !== undefined) return ready.tasks.trim()
  // `--prompt-file -`: the prompt came from standard input.
  if (name === 'prompt' && ready.prompt !== undefined) return ready.prompt.trim()
  if (name === 'prompt_file' && ready.prompt !== undefined) return ''
  const given = command.inputs.get(name)
  if (given !== undefined) return given.trim()
  if (name === 'github_token') return env.GITHUB_TOKEN ?? ''
  const fallback = declared[name]?.default
  return typeof fallback === 'string' ? fallback : ''
}
