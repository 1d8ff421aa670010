/**
 * Spawns `node dist/index.js` as the runner does (INPUT_* for every input of action.yml with its
 * default, the file-command files, the runner's context variables), like test/e2e/harness.ts,
 * but with everything prepared before the spawn, so that `spawnedAt` is taken right before
 * `spawn()` and a cold-start figure holds nothing but the child's own start.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUNDLE, inputEnv, parseFileCommands, RUNNER_CONTEXT } from '../../test/e2e/harness.ts'

export interface PreparedStep {
  /** Environment for the child; INPUT_* included. */
  env: Record<string, string>
  dir: string
  files: { GITHUB_OUTPUT: string; GITHUB_STATE: string; GITHUB_STEP_SUMMARY: string }
}

export interface Finished {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
}

export interface Spawned {
  child: ChildProcess
  /** `performance.now()` just before `spawn()`. */
  spawnedAt: number
  done: Promise<Finished>
}

/** The runner's environment for one step, in a fresh temporary directory. */
export function prepareStep(
  inputs: Record<string, string>,
  extraEnv: Record<string, string> = {},
): PreparedStep {
  const dir = mkdtempSync(join(tmpdir(), 'agent-run-bench-'))
  const files = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STATE: join(dir, 'state'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
  }
  for (const file of Object.values(files)) writeFileSync(file, '')
  const env = {
    PATH: process.env.PATH ?? '',
    RUNNER_TEMP: dir,
    ...RUNNER_CONTEXT,
    ...files,
    ...inputEnv(inputs),
    ...extraEnv,
  }
  return { env, dir, files }
}

/** Spawns `process.execPath [...nodeArgs] script` (default: the bundle) in a prepared step. */
export function spawnPrepared(
  step: PreparedStep,
  options: { nodeArgs?: string[]; script?: string | undefined } = {},
): Spawned {
  const args = [...(options.nodeArgs ?? [])]
  if (options.script !== '') args.push(options.script ?? BUNDLE)
  const spawnedAt = performance.now()
  const child = spawn(process.execPath, args, {
    cwd: step.dir,
    env: step.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const done = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      let outputs: Record<string, string> = {}
      try {
        outputs = parseFileCommands(readFileSync(step.files.GITHUB_OUTPUT, 'utf8'))
      } catch {
        // The directory may already be gone; outputs are then empty.
      }
      rmSync(step.dir, { recursive: true, force: true })
      resolve({ code, signal, stdout, stderr, outputs })
    })
  })
  return { child, spawnedAt, done }
}
