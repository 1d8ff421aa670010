/**
 * The command's flags and version: in the bundle, `dist/inputs.json`, which the build writes
 * from action.yml, report/action.yml and package.json; in a checkout, those files themselves.
 */
import { readFileSync } from 'node:fs'
import type { DeclaredInput } from './flags.ts'

/** The command's flags and version: each action's inputs, package.json's version. */
export interface CommandManifest {
  /** action.yml's: the main command's flags. */
  readonly inputs: Readonly<Record<string, DeclaredInput>>
  /** report/action.yml's: `cloud-agent-run report`'s flags. */
  readonly report: Readonly<Record<string, DeclaredInput>>
  readonly version: string
}

/** The flags. The YAML parser loads only in a checkout: a step of the Action never pays for it. */
export async function readDeclaredInputs(action: URL): Promise<CommandManifest> {
  // The bundle's manifest, written by the build: JSON, so that a start of the command does not
  // pay for a YAML parser (about 40 ms of its cold start).
  if (action.pathname.endsWith('.json')) {
    return JSON.parse(readFileSync(action, 'utf8')) as CommandManifest
  }
  const { parse } = await import('yaml')
  const inputsOf = (url: URL) =>
    (parse(readFileSync(url, 'utf8')) as { inputs?: Record<string, DeclaredInput> }).inputs ?? {}
  return {
    inputs: inputsOf(action),
    report: inputsOf(new URL('report/action.yml', action)),
    version: packageVersion(action),
  }
}

/** The package's version, from the package.json beside action.yml (in a checkout). */
function packageVersion(actionYml: URL): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('package.json', actionYml), 'utf8')) as {
      version?: unknown
    }
    return typeof manifest.version === 'string' ? manifest.version : 'unknown'
  } catch {
    return 'unknown'
  }
}
