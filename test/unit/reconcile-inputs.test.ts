import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { readReconcileSettings } from '../../src/inputs/reconcile.ts'
import { InputError } from '../../src/input-error.ts'
import type { InputSource } from '../../src/step-io.ts'
import { readRunnerWorld } from '../../src/runner.ts'

const reconcileYml = parse(
  readFileSync(new URL('../../reconcile/action.yml', import.meta.url), 'utf8'),
) as { inputs: Record<string, { default?: unknown }> }

const TOKEN = 'ghs_workflow_token'
const KEY = 'sekret-123'
const ENV = { GITHUB_REPOSITORY: 'octo-org/app' }

/** An InputSource like the runner's for reconcile/action.yml: its defaults, values trimmed. */
function source(given: Record<string, string>, env: NodeJS.ProcessEnv = ENV) {
  const calls: string[] = []
  const inputs: InputSource = {
    get(name) {
      const spec = reconcileYml.inputs[name]
      if (!spec) throw new Error(`reconcile/action.yml declares no input "${name}"`)
      calls.push(`get:${name}`)
      const fallback = String(spec.default ?? '').replace('${{ github.token }}', TOKEN)
      return (given[name] ?? fallback).trim()
    },
    mask: () => calls.push('mask'),
    world: readRunnerWorld(env, process.cwd()),
  }
  return { inputs, calls }
}

function rejects(given: Record<string, string>, input: string): InputError {
  let thrown: unknown
  try {
    readReconcileSettings(source({ api_key: KEY, ...given }).inputs)
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(InputError)
  expect((thrown as InputError).input).toBe(input)
  expect((thrown as InputError).message).toContain(`"${input}"`)
  return thrown as InputError
}

describe('readReconcileSettings', () => {
  it('needs only api_key: the service, the token, a day of runs, the sweep on', () => {
    expect(readReconcileSettings(source({ api_key: KEY }).inputs)).toEqual({
      apiKey: KEY,
      baseUrl: 'https://app.warp.dev/api/v1',
      githubToken: TOKEN,
      repository: 'octo-org/app',
      lookbackMs: 24 * 60 * 60_000,
      sweep: true,
      dryRun: false,
    })
  })

  it('masks the key and the token before anything else is read', () => {
    const { inputs, calls } = source({ api_key: KEY })
    readReconcileSettings(inputs)
    expect(calls.slice(0, 2)).toEqual(['get:api_key', 'mask'])
    expect(calls.indexOf('get:github_token') + 1).toBe(calls.lastIndexOf('mask'))
  })

  it('reads lookback as a duration, sweep and dry_run as booleans', () => {
    const settings = readReconcileSettings(
      source({ api_key: KEY, lookback: '2h', sweep: 'false', dry_run: 'True' }).inputs,
    )
    expect(settings).toMatchObject({ lookbackMs: 2 * 3_600_000, sweep: false, dryRun: true })
  })

  it('refuses a lookback that is not a duration, naming the input', () => {
    for (const bad of ['yesterday', '1d', '-5m', '0']) {
      expect(rejects({ lookback: bad }, 'lookback').message).toContain(bad)
    }
    rejects({ sweep: 'yes' }, 'sweep')
    rejects({ dry_run: 'no' }, 'dry_run')
  })

  it('refuses to run without a token, naming github_token', () => {
    expect(rejects({ github_token: '' }, 'github_token').message).toContain('required by reconcile')
  })

  it('refuses a missing key before anything else', () => {
    rejects({ api_key: '', lookback: 'never' }, 'api_key')
  })
})
