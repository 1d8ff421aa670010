/**
 * The GitLab CI/CD component's job end to end: its script (templates/cloud-agent-run.yml, the
 * inputs interpolated as GitLab does) run by bash as a Linux runner runs it, with the job's
 * variables and WARP_API_KEY in the environment, and `npx` standing for this checkout's command
 * (dist/cli.js under ACTION_UNDER_TEST=bundle, else its source entry), against the fake API.
 * GitLab runs the script on Linux: CI runs these tests on Linux and macOS (`in bash`, ci.yml).
 */
import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunScript } from '../fake-api/server.ts'
import { componentJob, type ComponentJob } from '../support/gitlab-component.ts'
import { COMPILE_CACHE, defaultTarget, ROOT } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-gitlab-e2e-7c1d0b'
const { fakeApi } = e2eServers(KEY)

interface JobResult {
  code: number | null
  signal: NodeJS.Signals | null
  log: string
  dir: string
}

/**
 * A job's working directory with `npx` on the PATH standing for the published package: it
 * records the package it was asked for, then runs this checkout's command with the flags.
 */
function jobDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gitlab-job-'))
  const bundle = defaultTarget() === 'bundle'
  const entry = bundle ? join(ROOT, 'dist', 'cli.js') : join(ROOT, 'src', 'entries', 'cli.ts')
  const node = (bundle ? process.env.ACTION_NODE : undefined) ?? process.execPath
  mkdirSync(join(dir, 'bin'))
  const npx = join(dir, 'bin', 'npx')
  writeFileSync(
    npx,
    [
      '#!/usr/bin/env bash',
      '# npx --yes cloud-agent-run@<version> <flags>: this checkout, in place of the registry.',
      '[ "$1" = --yes ] || exit 90',
      'printf %s "$2" > npx-package',
      'shift 2',
      `exec ${JSON.stringify(node)} ${JSON.stringify(entry)} "$@"`,
      '',
    ].join('\n'),
  )
  chmodSync(npx, 0o755)
  return dir
}

/** Runs the job's script as GitLab's runner does: bash, errexit and pipefail, the job's variables. */
function runJob(
  job: ComponentJob,
  env: Record<string, string>,
  whileRunning?: (shell: { kill(signal: NodeJS.Signals): void }) => void,
): Promise<JobResult> {
  const dir = jobDirectory()
  const bundle = defaultTarget() === 'bundle'
  const shell = spawn('bash', ['-eo', 'pipefail', '-c', job.script.join('\n')], {
    cwd: dir,
    env: {
      PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
      ...(bundle ? {} : { NODE_COMPILE_CACHE: COMPILE_CACHE }),
      GITLAB_CI: 'true',
      CI: 'true',
      CI_PIPELINE_SOURCE: 'schedule',
      CI_JOB_NAME: 'cloud-agent-run',
      WARP_API_KEY: KEY,
      ...job.variables,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  shell.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()))
  shell.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()))
  whileRunning?.({ kill: (signal) => shell.kill(signal) })
  return new Promise((resolve, reject) => {
    shell.on('error', reject)
    shell.on('close', (code, signal) => resolve({ code, signal, log, dir }))
  })
}

const working: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 50 },
]

const succeeding: RunScript = [
  { state: 'QUEUED', afterMs: 0 },
  { state: 'INPROGRESS', afterMs: 100 },
  { state: 'SUCCEEDED', afterMs: 300 },
]

const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8')

describe('the GitLab component, its job in bash as a Linux runner runs it', () => {
  it('runs the command at the version asked for; the outputs and the summary are the artifacts', async () => {
    const api = await fakeApi({ script: () => succeeding })
    const [, job] = componentJob({
      prompt: 'Update the changelog',
      version: '1.4',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const result = await runJob(job, {})

    expect(result.code, result.log).toBe(0)
    expect(read(result.dir, 'npx-package')).toBe('cloud-agent-run@1.4')
    for (const artifact of job.artifacts.paths) expect(read(result.dir, artifact)).not.toBe('')
    expect(JSON.parse(read(result.dir, 'cloud-agent-run.json'))).toMatchObject({
      outcome: 'succeeded',
      state: 'SUCCEEDED',
    })
    expect(read(result.dir, 'cloud-agent-summary.md')).toMatch(/^### ✅ /)
    expect(result.log).not.toContain(KEY)
    const [create] = api.requestsTo('POST', /\/agent\/runs?$/)
    expect(create?.body).toContain('Update the changelog')
  })

  it('cancelled (SIGTERM to the job): the run is cancelled, the outputs written, and the job exits 143', async () => {
    const api = await fakeApi({ script: () => working })
    const [, job] = componentJob({
      prompt: 'Work for a long time',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const result = await runJob(job, {}, (shell) => {
      void api.waitForRequest('GET', /\/agent\/runs\/[^/]+$/).then(() => shell.kill('SIGTERM'))
    })

    expect(result.code, result.log).toBe(143)
    expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED'])
    expect(JSON.parse(read(result.dir, 'cloud-agent-run.json'))).toMatchObject({
      outcome: 'interrupted',
    })
  })
})
