/**
 * The inputs as the runner hands them, for the inputs' unit tests: action.yml's defaults, values
 * trimmed, only declared inputs; and the checks of an InputError that names its input.
 */
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { expect } from 'vitest'
import { InputError } from '../../src/input-error.ts'
import { readSettings, type Settings } from '../../src/inputs/main-step.ts'
import { readRunnerWorld } from '../../src/runner.ts'
import type { InputSource } from '../../src/step-io.ts'

export interface ActionInput {
  required?: boolean
  default?: unknown
}

export const actionYml = parse(
  readFileSync(new URL('../../action.yml', import.meta.url), 'utf8'),
) as {
  inputs: Record<string, ActionInput>
}

/** What the runner makes of `${{ github.token }}` in a default. */
export const GITHUB_TOKEN = 'ghs_workflow_token'

/** The defaults the runner applies from action.yml when a workflow leaves an input out. */
export const DEFAULTS: Record<string, string> = Object.fromEntries(
  Object.entries(actionYml.inputs).flatMap(([name, spec]) =>
    spec.default === undefined
      ? []
      : [[name, String(spec.default).replace('${{ github.token }}', GITHUB_TOKEN)]],
  ),
)

export const KEY = 'sekret-123'
export const BASE_URL = 'https://agents.example.com/api/v1'

interface FakeInputs {
  source: InputSource
  masked: string[]
  /** `get:<name>` and `mask` in call order. */
  calls: string[]
}

/** An InputSource like the runner's: action.yml defaults, values trimmed, only declared inputs. */
export function fakeInputs(given: Record<string, string>, env: NodeJS.ProcessEnv = {}): FakeInputs {
  const masked: string[] = []
  const calls: string[] = []
  const source: InputSource = {
    get(name) {
      if (!(name in actionYml.inputs)) throw new Error(`action.yml declares no input "${name}"`)
      calls.push(`get:${name}`)
      return (given[name] ?? DEFAULTS[name] ?? '').trim()
    },
    mask(secret) {
      calls.push('mask')
      masked.push(secret)
    },
    // A step on the runner always has its repository: its project.
    world: readRunnerWorld({ GITHUB_REPOSITORY: 'octo-org/app', ...env }, process.cwd()),
  }
  return { source, masked, calls }
}

export function settingsFor(given: Record<string, string>, env: NodeJS.ProcessEnv = {}): Settings {
  return readSettings(fakeInputs({ api_key: KEY, base_url: BASE_URL, ...given }, env).source)
}

/** Runs `action`, expecting an InputError that names `input`; returns it. */
export function inputErrorFrom(action: () => unknown, input: string): InputError {
  let thrown: unknown
  try {
    action()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(InputError)
  const error = thrown as InputError
  expect(error.input).toBe(input)
  expect(error.message).toContain(`"${input}"`)
  return error
}

export function rejects(given: Record<string, string>, input: string): InputError {
  return inputErrorFrom(() => settingsFor(given), input)
}
