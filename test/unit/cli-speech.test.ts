import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import type { DeclaredInput } from '../../src/cli/flags.ts'
import { commandSpeech } from '../../src/cli/speech.ts'

const declared = (
  parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
    inputs: Record<string, DeclaredInput>
  }
).inputs
const say = commandSpeech(declared)

describe("the command's speech", () => {
  it("names the flags where the engine names the action's inputs", () => {
    expect(say('Run r1 did not finish within the timeout input (2s).')).toBe(
      'Run r1 did not finish within --timeout (2s).',
    )
    expect(say('with on_blocked: fail the step hands it over')).toBe(
      'with --on-blocked fail the command hands it over',
    )
    expect(say('Not waiting (wait: false); cancel_previous: true')).toBe(
      'Not waiting (--no-wait); --cancel-previous',
    )
    expect(
      say(
        'Check the api_key input: the key is wrong. Check base_url, and on a self-hosted runner its proxy',
      ),
    ).toBe('Check WARP_API_KEY: the key is wrong. Check --base-url, and the proxy')
    expect(say('The workflow cancelled the step.')).toBe('A signal stopped the command.')
  })

  it('reads Markdown’s escaped underscores, and leaves what is no input alone', () => {
    expect(say('more than the max&#95;credits cap')).toBe('more than the --max-credits cap')
    expect(say('did not validate against output_schema: the final message')).toBe(
      'did not validate against --output-schema: the final message',
    )
    expect(say('Cloud agent tasks: failed')).toBe('Cloud agent tasks: failed')
    expect(say('the run_id output, gh_thread, --max-credits')).toBe(
      'the run_id output, gh_thread, --max-credits',
    )
  })
})
