/**
 * Spawns `node dist/main.js` as the runner does (INPUT_* for every input of action.yml with its
 * default, the file-command files, the runner's context variables), with the environment
 * of test/e2e/harness.ts, but with everything prepared before the spawn, so that `spawnedAt` is taken right before
 * `spawn()` and a cold-start figure holds nothing but the child's own start.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import {
  BUNDLE,
  parseFileCommands,
  prepareStepEnvironment,
  type StepEnvironment,
} from '../../test/e2e/harness.ts'

export type PreparedStep = StepEnvironment

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
  return prepareStepEnvironment({ inputs, env: extraEnv })
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
