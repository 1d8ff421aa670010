/**
 * The command speaks its own words (contract v1.4, "A door owns its runs"): outside GitHub
 * Actions no line it prints names a GitHub input, a post step, a workflow or a job summary; it
 * names its flags (`--timeout`, `--on-blocked fail`, `--max-credits`), the key's variable and
 * itself. Each ending and each error of the command is printed here, as a shell would see it
 * (the log on stderr, the summary as text on stdout), and every line is held to that.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { parse } from 'yaml'
import type { RunScript } from '../fake-api/server.ts'
import { against, command, finishing, newDirectory, working } from './command.ts'
import { describeNeedsProcess, ROOT, until } from './harness.ts'
import { e2eServers, UNREACHABLE_BASE_URL } from './servers.ts'

const KEY = 'sk-cli-words-7d21c4'
const { fakeApi } = e2eServers(KEY)
const WITH_KEY = { WARP_API_KEY: KEY }

/** Every input of action.yml whose name only an Action's step is given by (`max_credits`). */
const INPUTS = Object.keys(
  (parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> })
    .inputs,
).filter((name) => name.includes('_'))

/** What no line of the command may say: the Action's words for its inputs and its door. */
const ACTION_WORDS = new RegExp(
  [
    String.raw`\bthe [a-z_]+ input\b`,
    String.raw`\bInput "`,
    String.raw`\bwait: (?:true|false)\b`,
    String.raw`(?<![\w-])(?:${INPUTS.join('|')})(?![\w-])`,
    String.raw`\bworkflow\b`,
    String.raw`\bpost step\b`,
    String.raw`\bjob summary\b`,
    String.raw`\b(?:this|the) step\b`,
    String.raw`\bself-hosted runner\b`,
  ].join('|'),
  'i',
)

const blocked: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
  { state: 'BLOCKED', afterMs: 200, patch: { status_message: { message: 'May I go on?' } } },
]
const costly: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50, patch: { request_usage: { inference_cost: 50 } } },
]
const cancelledElsewhere: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'CANCELLED', afterMs: 100 },
]

/** One way the command ends: the service's runs, the flags, the environment, the exit. */
interface Ending {
  readonly script?: RunScript
  readonly args: readonly string[]
  readonly env?: Record<string, string>
  readonly exit: number
}

const ENDINGS: Record<string, Ending> = {
  succeeded: { script: finishing('SUCCEEDED'), args: ['--prompt', 'Tidy up'], exit: 0 },
  failed: { script: finishing('FAILED'), args: ['--prompt', 'Tidy up'], exit: 1 },
  'timed out': { script: working, args: ['--prompt', 'Tidy up', '--timeout', '1s'], exit: 124 },
  'blocked, handed over (fail)': {
    script: blocked,
    args: ['--prompt', 'Tidy up', '--on-blocked', 'fail'],
    exit: 1,
  },
  'blocked, handed over (pass)': {
    script: blocked,
    args: ['--prompt', 'Tidy up', '--on-blocked', 'pass'],
    exit: 0,
  },
  'blocked until the timeout': {
    script: blocked,
    args: ['--prompt', 'Tidy up', '--timeout', '2s'],
    exit: 124,
  },
  'over --max-credits': {
    script: costly,
    args: ['--prompt', 'Tidy up', '--max-credits', '20'],
    exit: 1,
  },
  'cancelled elsewhere': { script: cancelledElsewhere, args: ['--prompt', 'Tidy up'], exit: 1 },
  'a result that does not validate': {
    script: finishing('SUCCEEDED', 'Not a document.'),
    args: ['--prompt', 'Tidy up', '--output-schema', 'schema.json', '--output-retries', '0'],
    exit: 1,
  },
  'not waiting': { script: working, args: ['--prompt', 'Tidy up', '--no-wait'], exit: 0 },
  'a set that failed': {
    script: finishing('FAILED'),
    args: ['--tasks-file', 'tasks.yml'],
    exit: 1,
  },
  'a set that timed out': {
    script: working,
    args: ['--tasks-file', 'tasks.yml', '--timeout', '1s'],
    exit: 124,
  },
}

const ERRORS: Record<string, Ending> = {
  'a key the service refuses': {
    args: ['--prompt', 'Tidy up'],
    env: { WARP_API_KEY: 'sk-not-the-right-key' },
    exit: 3,
  },
  'a run that does not exist': { args: ['--run-id', 'run_nope', '--followup', 'More'], exit: 1 },
  'no prompt': { args: [], exit: 2 },
  'a bad --timeout': { args: ['--prompt', 'Tidy up', '--timeout', 'soon'], exit: 2 },
  'a bad --skill-spec': { args: ['--skill-spec', 'not a spec'], exit: 2 },
  'a bad --on-blocked': { args: ['--prompt', 'Tidy up', '--on-blocked', 'later'], exit: 2 },
  'a bad --max-credits': { args: ['--prompt', 'Tidy up', '--max-credits', '-1'], exit: 2 },
  'a bad --output-schema': { args: ['--prompt', 'Tidy up', '--output-schema', '{bad'], exit: 2 },
  'a budget with no project': {
    args: ['--prompt', 'Tidy up', '--daily-credit-budget', '10'],
    exit: 2,
  },
  '--previous-run cancel with no project': {
    args: ['--prompt', 'Tidy up', '--name', 'nightly', '--previous-run', 'cancel'],
    exit: 2,
  },
  '--cancel-only with no project': { args: ['--cancel-only', '--name', 'nightly'], exit: 2 },
}

/** Runs the command as a shell would for `ending`; returns every line it printed. */
async function linesOf(ending: Ending, baseUrl?: string): Promise<string[]> {
  const api = await fakeApi(ending.script ? { script: () => ending.script ?? working } : {})
  const cwd = newDirectory()
  writeFileSync(join(cwd, 'tasks.yml'), '- Update package a\n- Update package b\n')
  writeFileSync(
    join(cwd, 'schema.json'),
    JSON.stringify({
      type: 'object',
      required: ['risk'],
      properties: { risk: { type: 'string' } },
    }),
  )
  const flags = baseUrl ? ['--base-url', baseUrl, ...ending.args] : against(api, ...ending.args)
  const result = await command(flags, ending.env ?? WITH_KEY, cwd).done
  expect(result.code, result.stderr).toBe(ending.exit)
  return `${result.stderr}\n${result.stdout}`.split('\n').filter((line) => line.trim() !== '')
}

/** The lines that speak the Action's words. */
const actionWords = (lines: readonly string[]) => lines.filter((line) => ACTION_WORDS.test(line))

describe('the command speaks its own words on every ending and error', () => {
  for (const [name, ending] of Object.entries({ ...ENDINGS, ...ERRORS })) {
    it(name, async () => {
      const lines = await linesOf(ending)
      expect(lines.length).toBeGreaterThan(0)
      expect(actionWords(lines)).toEqual([])
    })
  }

  it('a service it cannot reach', async () => {
    const nowhere = UNREACHABLE_BASE_URL
    const lines = await linesOf({ args: ['--prompt', 'Tidy up'], exit: 3 }, nowhere)
    expect(lines.join('\n')).toContain('--base-url')
    expect(actionWords(lines)).toEqual([])
  })

  it('names the flags in their place: --timeout, --on-blocked, --max-credits, WARP_API_KEY', async () => {
    const said = async (ending: Ending) => (await linesOf(ending)).join('\n')
    expect(await said(ENDINGS['timed out'] as Ending)).toContain('within --timeout (1s)')
    expect(await said(ENDINGS['blocked, handed over (fail)'] as Ending)).toContain(
      'with --on-blocked fail the command hands it over and fails',
    )
    expect(await said(ENDINGS['over --max-credits'] as Ending)).toContain(
      'more than the --max-credits cap of 20 credits',
    )
    expect(await said(ERRORS['a key the service refuses'] as Ending)).toContain(
      'Check WARP_API_KEY:',
    )
  })
})

// A signal is a process's own.
describeNeedsProcess('the command speaks its own words when a signal stops it', () => {
  it.each([
    ['one run', ['--prompt', 'Tidy up'], 1],
    ['a set', ['--tasks-file', 'tasks.yml'], 2],
  ] as const)('%s: SIGTERM, exit 143, every line its own words', async (_, args, runs) => {
    const api = await fakeApi({ script: () => working })
    const cwd = newDirectory()
    writeFileSync(join(cwd, 'tasks.yml'), '- Update package a\n- Update package b\n')
    const running = command(against(api, ...args), WITH_KEY, cwd)
    const going = () => api.allRuns().filter((run) => run.state === 'INPROGRESS')
    await until(() => going().length === runs, 'the runs work')
    running.kill('SIGTERM')
    const result = await running.done
    expect(result.code, result.stderr).toBe(143)
    const lines = `${result.stderr}\n${result.stdout}`.split('\n').filter((line) => line.trim())
    expect(lines.join('\n')).toMatch(/signal/)
    expect(actionWords(lines)).toEqual([])
  })
})
