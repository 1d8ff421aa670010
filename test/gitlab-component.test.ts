/**
 * templates/cloud-agent-run.yml, the GitLab CI/CD component: its shape (a `spec:` with inputs,
 * then the job), that every input it uses is declared and every flag it passes is one the
 * command takes; then its script run by bash as GitLab runs it (the inputs interpolated, the
 * job's variables in the environment), with a stand-in for npx that records what it was given.
 */
import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  COMPONENT_BODY,
  COMPONENT_DOCUMENTS,
  COMPONENT_HEADER,
  COMPONENT_INPUTS as INPUTS,
  COMPONENT_TEXT as TEXT,
  componentJob as interpolate,
  referencedInputs,
  type ComponentJob as Job,
} from './support/gitlab-component.ts'

const ROOT = join(import.meta.dirname, '..')
const ACTION = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>
}
const documents = COMPONENT_DOCUMENTS
const header = COMPONENT_HEADER as object
const body = COMPONENT_BODY

/** The flags the command takes besides the action's inputs. */
const OWN_FLAGS = ['--json', '--summary', '--tasks-file']

describe('the GitLab CI/CD component', () => {
  it('is a spec with its inputs, then one job, as GitLab lays a component out', () => {
    expect(documents).toHaveLength(2)
    for (const doc of documents) expect(doc.errors).toEqual([])
    expect(Object.keys(header)).toEqual(['spec'])
    expect(Object.keys(body)).toHaveLength(1)
    for (const [name, input] of Object.entries(INPUTS)) {
      expect(name).toMatch(/^[a-z][a-z0-9_]*$/)
      expect(input.description, name).toBeTruthy()
      // Every input is optional: the job is configured by what is given.
      expect(input, name).toHaveProperty('default')
    }
    for (const name of [
      'prompt',
      'environment_id',
      'name',
      'timeout',
      'stage',
      'image',
      'version',
      'args',
    ]) {
      expect(INPUTS).toHaveProperty(name)
    }
    expect(INPUTS.image?.default).toMatch(/^node:\d+/)
    // Pinned: the component's release runs the command it was tested with, never `1` that day.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string
    }
    expect(INPUTS.version?.default).toBe(manifest.version)
    const exact = new RegExp(String((INPUTS.version as { regex?: string }).regex))
    for (const loose of ['1', '1.2', 'latest', '^1.1.0'])
      expect(exact.test(loose), loose).toBe(false)
    expect(exact.test(manifest.version)).toBe(true)
    // Catalog-grade: a description, a value of a few as options, a runner tags input.
    expect((header as { spec: { description?: string } }).spec.description).toBeTruthy()
    expect((INPUTS.previous_run as { options?: string[] }).options).toEqual([
      'keep',
      'cancel',
      'steer',
    ])
    expect(INPUTS.tags).toMatchObject({ type: 'array', default: [] })
    const timeout = new RegExp(String((INPUTS.timeout as { regex?: string }).regex))
    expect(['60m', '500ms', '2h'].every((value) => timeout.test(value))).toBe(true)
    expect(timeout.test('soon')).toBe(false)
  })

  it('uses only inputs it declares, and every input it declares', () => {
    const used = new Set(referencedInputs(TEXT.slice(TEXT.indexOf('\n---\n'))))
    expect([...used].filter((name) => !(name in INPUTS))).toEqual([])
    expect(Object.keys(INPUTS).filter((name) => !used.has(name))).toEqual([])
  })

  it("passes only flags the command takes: the action's inputs with - for _, and its own", () => {
    const [, job] = interpolate()
    const script = job.script.join('\n')
    const passed = script
      .split('\n')
      .filter((line) => /\bset -- /.test(line))
      .flatMap((line) => [...line.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]))
    expect(passed.length).toBeGreaterThan(5)
    const actionFlags = Object.keys(ACTION.inputs).map((name) => `--${name.replace(/_/g, '-')}`)
    expect(
      passed.filter((flag) => !actionFlags.includes(flag) && !OWN_FLAGS.includes(flag)),
    ).toEqual([])
    // Never the key: it comes from WARP_API_KEY only.
    expect(script).not.toMatch(/--api-key/)
  })

  it("keeps the action's defaults, and the JSON and summary as artifacts even when the job fails", () => {
    expect(INPUTS.timeout?.default).toBe(ACTION.inputs.timeout?.default)
    const [name, job] = interpolate()
    expect(name).toBe('cloud-agent-run')
    expect(job).toMatchObject({ stage: 'test', image: 'node:22', interruptible: true })
    // An array input stays an array: a job with no rules never runs in a merge request pipeline.
    expect(job.rules).toEqual([{ when: 'on_success' }])
    const mr = [{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]
    expect(interpolate({ rules: mr })[1].rules).toEqual(mr)
    expect(job.artifacts.when).toBe('always')
    const script = job.script.join('\n')
    const json = /> ([\w.-]+\.json)/.exec(script)?.[1]
    const summary = /--summary ([\w.-]+)/.exec(script)?.[1]
    expect(job.artifacts.paths).toEqual([json, summary, '.cloud-agent-run/'])
    expect(job.variables.CLOUD_AGENT_RUN_DIR).toBe('.cloud-agent-run')
    expect((job.artifacts as { reports?: unknown }).reports).toEqual({
      dotenv: '.cloud-agent-run/outputs.env',
      annotations: '.cloud-agent-run/annotations.json',
    })
    expect(script).toMatch(/npx --yes "cloud-agent-run@\$CLOUD_AGENT_VERSION"/)
  })

  it("is described input by input in docs/gitlab.md's table, with its default", () => {
    const page = readFileSync(join(ROOT, 'docs', 'gitlab.md'), 'utf8')
    const rows = new Map(
      [...page.matchAll(/^\| `([a-z_]+)` +\| ([^|]*)\|/gm)].map((m) => [m[1], (m[2] ?? '').trim()]),
    )
    expect([...rows.keys()].sort()).toEqual(Object.keys(INPUTS).sort())
    for (const [name, input] of Object.entries(INPUTS)) {
      const shown = rows.get(name) ?? ''
      if (typeof input.default === 'string' && input.default !== '') {
        expect(shown, name).toBe(`\`${input.default}\``)
      }
      if (input.default === '') expect(shown, name).toBe('')
    }
  })

  it("names in docs/gitlab.md every dotenv variable the job writes, and a later job's snippet reading them", () => {
    const page = readFileSync(join(ROOT, 'docs', 'gitlab.md'), 'utf8')
    const outputs = Object.keys(
      (parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { outputs: object }).outputs,
    )
    const named = new Set(page.match(/\bCLOUD_AGENT_[A-Z_]+\b/g))
    const written = outputs.map((name) => `CLOUD_AGENT_${name.toUpperCase()}`)
    expect(written.filter((variable) => !named.has(variable))).toEqual([])
    expect(page).toMatch(
      /needs:\n\s+- job: [\s\S]*?artifacts: true\n\s+script:\n.*\$CLOUD_AGENT_OUTCOME/,
    )
    // Steering is an input of the component, not a flag in args.
    expect(page).not.toMatch(/args: --previous-run/)
  })

  it('puts no input into the text of the script: each reaches it as a variable', () => {
    const [, job] = interpolate({ prompt: 'say "hi" $(touch pwned) `id`' })
    expect(job.script.join('\n')).not.toContain('pwned')
    expect(job.variables.CLOUD_AGENT_PROMPT).toBe('say "hi" $(touch pwned) `id`')
  })
})

// Bash, as GitLab's Linux runners run a job's script, with a stand-in for npx. Signals cannot
// be sent to a child on Windows: CI runs these on Linux and macOS (see ci.yml's filter).
describe("the component's script in bash, as a Linux runner runs it (its flags, and SIGTERM on a cancel)", () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const dir of dirs) {
      // A stand-in the script failed to hand the signal to would hold on: it is ended here.
      const pid = Number(readIfThere(join(dir, 'npx-pid')))
      if (pid > 0) killIfAlive(pid)
      rmSync(dir, { recursive: true, force: true })
    }
  })

  /** A directory with a stand-in `npx`: it records its arguments and, with HOLD, waits for SIGTERM. */
  function workspace(): string {
    const dir = mkdtempSync(join(tmpdir(), 'gitlab-component-'))
    dirs.push(dir)
    const npx = join(dir, 'bin', 'npx')
    const fake = [
      `#!${process.execPath}`,
      "const { writeFileSync } = require('node:fs')",
      "writeFileSync('npx-args.json', JSON.stringify(process.argv.slice(2)))",
      "writeFileSync('npx-pid', String(process.pid))",
      "process.stdout.write(JSON.stringify({ outcome: 'succeeded' }) + '\\n')",
      'if (process.env.HOLD) {',
      "  process.on('SIGTERM', () => { writeFileSync('npx-signal', 'SIGTERM'); process.exit(143) })",
      '  setInterval(() => undefined, 1000)',
      "  process.stderr.write('holding\\n')",
      '} else process.exit(Number(process.env.EXIT_CODE ?? 0))',
    ].join('\n')
    mkdirSync(join(dir, 'bin'))
    writeFileSync(npx, `${fake}\n`)
    chmodSync(npx, 0o755)
    return dir
  }

  function runJob(
    dir: string,
    job: Job,
    env: Record<string, string> = {},
    onStderr?: (text: string, child: ReturnType<typeof spawn>) => void,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', job.script.join('\n')], {
      cwd: dir,
      env: {
        PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
        WARP_API_KEY: 'wk-test',
        ...job.variables,
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
      onStderr?.(stderr, child)
    })
    return new Promise((resolve, reject) => {
      child.on('error', reject)
      // The shell's end, not its pipes': a stand-in left behind would hold them open.
      child.on('exit', (code, signal) => resolve({ code, signal }))
    })
  }

  it('gives npx the package at its version and a flag for each input given, none for an empty one', async () => {
    const dir = workspace()
    const [, job] = interpolate({
      prompt: 'Review "this" $(touch pwned)',
      environment_id: 'env-1',
      args: '--max-credits 50  --no-show-progress',
      // Values with spaces, quotes and JSON: each its own input, never split on spaces.
      base_prompt: 'Be brief; say "why".',
      mcp_servers: '{"github": {"url": "https://mcp.example.test/a b", "headers": {}}}',
      output_schema: '{"type": "object", "required": ["verdict"]}',
      version: '1.3.0',
    })
    const { code } = await runJob(dir, job)
    expect(code).toBe(0)
    expect(JSON.parse(readFileSync(join(dir, 'npx-args.json'), 'utf8'))).toEqual([
      '--yes',
      'cloud-agent-run@1.3.0',
      '--json',
      '--summary',
      'cloud-agent-summary.md',
      '--prompt',
      'Review "this" $(touch pwned)',
      '--environment-id',
      'env-1',
      '--timeout',
      '60m',
      '--base-prompt',
      'Be brief; say "why".',
      '--mcp-servers',
      '{"github": {"url": "https://mcp.example.test/a b", "headers": {}}}',
      '--output-schema',
      '{"type": "object", "required": ["verdict"]}',
      '--max-credits',
      '50',
      '--no-show-progress',
    ])
    expect(JSON.parse(readFileSync(join(dir, 'cloud-agent-run.json'), 'utf8'))).toEqual({
      outcome: 'succeeded',
    })
    expect(() => readFileSync(join(dir, 'pwned'))).toThrow()
  })

  it("fails the job with the command's exit code", async () => {
    const dir = workspace()
    const [, job] = interpolate({ prompt: 'x' })
    expect((await runJob(dir, job, { EXIT_CODE: '1' })).code).toBe(1)
  })

  it('hands a SIGTERM sent to the job shell on to the command, and ends with its 143', async () => {
    const dir = workspace()
    const [, job] = interpolate({ prompt: 'x' })
    let sent = false
    const ended = await runJob(dir, job, { HOLD: '1' }, (stderr, child) => {
      if (sent || !stderr.includes('holding')) return
      sent = true
      // Only the shell: the job's script must hand it on itself.
      child.kill('SIGTERM')
    })
    expect(sent).toBe(true)
    expect(readIfThere(join(dir, 'npx-signal'))).toBe('SIGTERM')
    expect(ended).toEqual({ code: 143, signal: null })
  })
})

function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

describe('docs/gitlab.md includes the component pinned', () => {
  it('by a release or SHA, never a moving major, and `include: remote` by the integrity of this template', async () => {
    const page = readFileSync(join(ROOT, 'docs', 'gitlab.md'), 'utf8')
    const refs = [...page.matchAll(/component: \S+@(\S+)/g)].map((m) => m[1])
    expect(refs.length).toBeGreaterThan(0)
    for (const ref of refs) expect(ref).toMatch(/^\d+\.\d+\.\d+$/)
    const { createHash } = await import('node:crypto')
    const integrity = `sha256-${createHash('sha256').update(TEXT).digest('base64')}`
    expect(page).toContain(`integrity: ${integrity}`)
  })
})
