/**
 * The command as a shell runs it, for the end-to-end tests: spawned (dist/cli.js under
 * ACTION_UNDER_TEST=bundle, its source entry under =sources), or, in `npm test`, its door
 * (runCli) called in-process with the arguments, environment, working directory and standard
 * input a shell would give.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../../src/cli.ts'
import { conversationStep, type RunScript } from '../fake-api/server.ts'
import { COMPILE_CACHE, defaultTarget, ROOT } from './harness.ts'

export interface CommandResult {
  code: number | null
  stdout: string
  stderr: string
}

export interface Command {
  /** Resolves when the command exits. */
  done: Promise<CommandResult>
  kill(signal: NodeJS.Signals): void
}

export interface CommandOptions {
  /** What the command reads on standard input. */
  stdin?: string
  /** A reader that stops at once, as `| head -0` does: stdout and stderr closed before any write. */
  closedOutput?: boolean
}

/** Runs the command in a fresh directory, with only the environment a shell would give. */
export function command(
  args: string[],
  env: Record<string, string> = {},
  cwd = newDirectory(),
  options: CommandOptions = {},
): Command {
  if (defaultTarget() === 'in-process') return commandInProcess(args, env, cwd, options.stdin)
  const bundle = defaultTarget() === 'bundle'
  const entry = bundle ? join(ROOT, 'dist', 'cli.js') : join(ROOT, 'src', 'entries', 'cli.ts')
  const node = (bundle ? process.env.ACTION_NODE : undefined) ?? process.execPath
  const child = spawn(node, [entry, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      ...(bundle ? {} : { NODE_COMPILE_CACHE: COMPILE_CACHE }),
      ...env,
    },
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  })
  if (options.stdin !== undefined) child.stdin?.end(options.stdin)
  let stdout = ''
  let stderr = ''
  if (options.closedOutput) {
    child.stdout?.destroy()
    child.stderr?.destroy()
  } else {
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  }
  const done = new Promise<CommandResult>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  )
  return { done, kill: (signal) => child.kill(signal) }
}

/** The command's door in this process: what its entry (src/entries/cli.ts) does, with a shell's io. */
function commandInProcess(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  stdin = '',
): Command {
  let stdout = ''
  let stderr = ''
  const io = {
    env: { PATH: process.env.PATH ?? '', ...env },
    cwd,
    // As the entry hands in its process: a signal here would be the test process's own.
    process,
    stdout: (text: string) => (stdout += text),
    stderr: (text: string) => (stderr += text),
    readStdin: async () => stdin,
  }
  const done = runCli(args, new URL('../../action.yml', import.meta.url), io).then((code) => ({
    code,
    stdout,
    stderr,
  }))
  return {
    done,
    kill: (signal) => {
      throw new Error(`The command's ${signal} is a process's: the test needs a process.`)
    },
  }
}

export const newDirectory = (): string => mkdtempSync(join(tmpdir(), 'cli-e2e-'))

/** The flags that point the command at a fake API, polling it often. */
export const against = (api: { baseUrl: string }, ...args: string[]): string[] => [
  '--base-url',
  api.baseUrl,
  '--poll-interval',
  '100ms',
  ...args,
]

/** A run that works briefly, then ends in `state`, having used 1.5 credits. */
export function finishing(state: 'SUCCEEDED' | 'FAILED', answer = 'All done.'): RunScript {
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 100 },
    {
      state,
      afterMs: 400,
      patch: {
        request_usage: { inference_cost: 1.5 },
        ...(state === 'FAILED' ? { status_message: { message: 'The tests do not build.' } } : {}),
      },
      conversation: [
        conversationStep('final', [
          { role: 'assistant', content: [{ type: 'text', text: answer }] },
        ]),
      ],
    },
  ]
}

/** A run that works until it is cancelled. */
export const working: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]
