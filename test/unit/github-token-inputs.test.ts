/**
 * What loads the GitHub client: the inputs that keep `github_token` (src/inputs/main-step.ts), and
 * the list docs/pull-requests.md and action.yml give of them. Each listed input keeps the token
 * and is refused without one; every other switch of action.yml leaves it unused.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { InputError } from '../../src/input-error.ts'
import {
  actionYml,
  GITHUB_TOKEN,
  rejects,
  settingsFor,
  type ActionInput,
} from '../support/action-inputs.ts'

/** Each input that asks for GitHub, with a value that asks, as the docs name them. */
const ASKS_FOR_GITHUB: ReadonlyArray<readonly [string, string]> = [
  ['comment', 'true'],
  ['continue_run', 'true'],
  ['commit_status', 'true'],
  ['check_run', 'true'],
  ['pull_request_review', 'true'],
  ['approval', 'forks'],
  ['approval', 'always'],
  ['previous_run', 'steer'],
]

/** What a step needs beside the input, for its settings to be read at all. */
function stepWith(input: string, value: string): Record<string, string> {
  const given: Record<string, string> = { name: 'review', [input]: value }
  if (input === 'continue_run') given.followup = 'and the typo'
  else given.prompt = 'Review'
  return given
}

describe('github_token: what loads the GitHub client', () => {
  it.each(ASKS_FOR_GITHUB)('%s: %s keeps the token, and is refused without one', (input, value) => {
    expect(settingsFor(stepWith(input, value)).github.token).toBe(GITHUB_TOKEN)
    expect(
      rejects({ ...stepWith(input, value), github_token: '' }, 'github_token').message,
    ).toContain('is required by')
  })

  it('every other switch of action.yml leaves the token unused: the list is whole', () => {
    const listed = new Set(ASKS_FOR_GITHUB.map(([input]) => input))
    const switches = Object.entries(actionYml.inputs).filter(
      ([name, spec]) => spec.default === 'false' && !listed.has(name),
    )
    expect(switches.map(([name]) => name)).toEqual(
      expect.arrayContaining(['cancel_only', 'cancel_previous', 'show_progress']),
    )
    for (const [name] of switches) {
      let token: string | undefined
      try {
        token = settingsFor(stepWith(name, 'true')).github.token
      } catch (error) {
        // A switch that needs another input to mean anything is refused; never for the token.
        expect(error).toBeInstanceOf(InputError)
        expect((error as InputError).input, name).not.toBe('github_token')
        continue
      }
      expect(token, name).toBe('')
    }
    for (const value of ['keep', 'cancel']) {
      expect(settingsFor(stepWith('previous_run', value)).github.token).toBe('')
    }
    expect(settingsFor(stepWith('approval', 'none')).github.token).toBe('')
  })

  it('docs/pull-requests.md and action.yml name exactly those inputs', () => {
    const page = readFileSync(new URL('../../docs/pull-requests.md', import.meta.url), 'utf8')
      .replace(/`/g, '')
      .replace(/\s+/g, ' ')
    expect(page).toContain(
      'The GitHub client is loaded, and github_token kept, only when an input asks for GitHub: comment, continue_run, commit_status, check_run, pull_request_review, approval (forks or always) or previous_run: steer.',
    )
    const token = actionYml.inputs.github_token as
      (ActionInput & { description?: string }) | undefined
    expect(token?.description).toContain(
      'The token for comment, continue_run, commit_status, check_run, pull_request_review, approval (forks or always) and previous_run steer,',
    )
  })
})
