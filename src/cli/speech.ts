/**
 * The command's own words for what the engine says in the Action's. The engine names its inputs
 * as action.yml does (`the timeout input`, `on_blocked: fail`, `max_credits`, `base_url`) and its
 * door a step that a workflow runs; outside Actions each line the command prints names its
 * flags (`--timeout`, `--on-blocked fail`, `--max-credits`, `--base-url`), the key's variable
 * (`WARP_API_KEY`) and the command itself. The command's port (step-io.ts) says every line, the
 * failure and the summary through it; the JSON's members keep the outputs' names. Pure.
 */
import { flagOf, type DeclaredInput } from './flags.ts'

/** Rewrites a line the engine wrote into the command's words. */
export type Speech = (text: string) => string

/** Words that start a sentence's next part, never an input's value: `against output_schema: the …`. */
const FUNCTION_WORDS = 'the|a|an|it|its|this|that|no|not|one|each|every|all|any|none|some'

/** What a door that has its own words says of the Action's step and workflow. */
const DOOR_PHRASES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bthe workflow cancelled the step\b/g, 'a signal stopped the command'],
  [/\bThe workflow cancelled the step\b/g, 'A signal stopped the command'],
  [/\bcancelled with the workflow\b/g, 'cancelled by a signal'],
  [/\b([Tt])his step\b/g, '$1his command'],
  [/\b([Tt])he step\b/g, '$1he command'],
  [/, and on a self-hosted runner its proxy/g, ', and the proxy'],
]

/**
 * The command's speech for the inputs `declared` (action.yml's, whose flags the command takes).
 * Only a declared input's name is rewritten, and only where the engine's sentences put one:
 * `the <input> input`, `<input>: <value>`, and a name with an underscore standing alone.
 */
export function commandSpeech(declared: Readonly<Record<string, DeclaredInput>>): Speech {
  const names = Object.keys(declared).sort((a, b) => b.length - a.length)
  const toggles = names.filter((name) =>
    ['true', 'false'].includes(String(declared[name]?.default)),
  )
  const underscored = names.filter((name) => name.includes('_'))
  if (underscored.length === 0 || toggles.length === 0) return (text) => text
  // The summary is Markdown, whose service text has its underscores escaped (`on&#95;blocked`).
  const alternatives = (list: readonly string[]) =>
    list.map((name) => name.replace(/_/g, '(?:_|&#95;)')).join('|')
  const inputPhrase = new RegExp(
    `\\b[Tt]he (${alternatives(names)}) input\\b|\\bInput "(${alternatives(names)})"`,
    'g',
  )
  // `on_blocked: fail`, `wait: false`; never a sentence's `output_schema: the …`, a heading's `tasks: …`.
  const valued = new RegExp(
    `(?<![\\w-])(${alternatives(underscored)}): (?!(?:${FUNCTION_WORDS})\\b)([\\w.-]+)`,
    'g',
  )
  const toggled = new RegExp(`(?<![\\w-])(${alternatives(toggles)}): (true|false)\\b`, 'g')
  const bare = new RegExp(`(?<![\\w-])(${alternatives(underscored)})(?![\\w-]| output)`, 'g')
  return (text) => {
    let said = text.replace(inputPhrase, (_, one?: string, other?: string) =>
      flagNamed(one ?? other ?? ''),
    )
    said = said.replace(toggled, (_, name: string, value: string) =>
      value === 'true' ? flagNamed(name) : `--no-${flagNamed(name).slice(2)}`,
    )
    said = said.replace(valued, (_, name: string, value: string) =>
      flagNamed(name) === 'WARP_API_KEY' ? 'WARP_API_KEY' : `${flagNamed(name)} ${value}`,
    )
    said = said.replace(bare, (name: string) => flagNamed(name))
    for (const [phrase, words] of DOOR_PHRASES) said = said.replace(phrase, words)
    return said
  }
}

/** An input as the command takes it: its flag, or for the key, the variable it is read from. */
function flagNamed(written: string): string {
  const input = written.replace(/&#95;/g, '_')
  return input === 'api_key' ? 'WARP_API_KEY' : flagOf(input)
}
