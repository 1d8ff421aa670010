/**
 * The command as a shell runs it, for the end-to-end tests: spawned (dist/cli.js under
 * ACTION_UNDER_TEST=bundle, its source entry under =sources), or, in `npm test`, its door
 * (runCli) called in-process with the arguments, environment, working directory and standard
 * input a shell would give.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { runCli } from '../../src/cli/door.ts'
import { readDeclaredInputs } from '../../src/cli/manifest.ts'
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
  /** Resolves once stderr has printed a line matching `pattern` (a process's only). */
  said(pattern: RegExp): Promise<void>
}

export interface CommandOptions {
  /** What the command reads on standard input. */
  stdin?: string
  /** A reader that stops at once, as `| head -0` does: stdout and stderr closed before any write. */
  closedOutput?: boolean
  /** Standard input stays open, never written: a pipe whose writer has not finished. */
  openStdin?: boolean
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
    stdio: [options.stdin === undefined && !options.openStdin ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  })
  if (options.stdin !== undefined) child.stdin?.end(options.stdin)
  let stdout = ''
  let stderr = ''
  const waits: Array<{ pattern: RegExp; resolve: () => void }> = []
  if (options.closedOutput) {
    child.stdout?.destroy()
    child.stderr?.destroy()
  } else {
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      for (const wait of waits.filter((one) => one.pattern.test(stderr))) {
        waits.splice(waits.indexOf(wait), 1)
        wait.resolve()
      }
    })
  }
  const done = new Promise<CommandResult>((resolve) =>
    child.on('close', (code) => {
      child.stdin?.destroy()
      resolve({ code, stdout, stderr })
    }),
  )
  const said = (pattern: RegExp) =>
    pattern.test(stderr)
      ? Promise.resolve()
      : Promise.race([
          new Promise<void>((resolve) => waits.push({ pattern, resolve })),
          done.then(() => {
            throw new Error(`The command exited without printing ${String(pattern)}:\n${stderr}`)
          }),
        ])
  return { done, kill: (signal) => child.kill(signal), said }
}

/**
 * The command's flags, read from action.yml once (the checkout's YAML) and written as the bundle's
 * inputs.json: an in-process command reads that, as dist/cli.js does, and does not parse the
 * YAML again (2 of the end-to-end files' 45 CPU-seconds, profiled).
 */
const MANIFEST = await (async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'cli-manifest-')), 'inputs.json')
  const manifest = await readDeclaredInputs(new URL('../../action.yml', import.meta.url))
  writeFileSync(file, `${JSON.stringify(manifest)}\n`)
  return pathToFileURL(file)
})()

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
  const done = runCli(args, MANIFEST, io).then((code) => ({
    code,
    stdout,
    stderr,
  }))
  const needsProcess = (what: string) => {
    throw new Error(`The command's ${what} is a process's: the test needs a process.`)
  }
  return {
    done,
    kill: (signal) => needsProcess(signal),
    said: () => Promise.reject(new Error("A line's moment is a process's: the test needs one.")),
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
