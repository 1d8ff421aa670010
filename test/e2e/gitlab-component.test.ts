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
import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import type { FakeAgentApi, RunScript } from '../fake-api/server.ts'
import { FakeGitLab } from '../fake-gitlab/server.ts'
import { componentJob, type ComponentJob } from '../support/gitlab-component.ts'
import { COMPILE_CACHE, defaultTarget, ROOT } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-gitlab-e2e-7c1d0b'
const { fakeApi } = e2eServers(KEY)

const gitlabs: FakeGitLab[] = []
afterAll(async () => {
  await Promise.all(gitlabs.splice(0).map((fake) => fake.close()))
})

/** A fake GitLab, and a merge request pipeline's variables for !7 of project 42. */
async function mergeRequestPipeline(token = 'glpat-fake') {
  const gitlab = await FakeGitLab.start()
  gitlabs.push(gitlab)
  const env = {
    CI_PIPELINE_SOURCE: 'merge_request_event',
    CI_API_V4_URL: gitlab.apiUrl,
    CI_PROJECT_ID: '42',
    CI_PROJECT_PATH: 'group/app',
    CI_MERGE_REQUEST_IID: '7',
    GITLAB_TOKEN: token,
  }
  return { gitlab, env }
}

/** A job's variables, as the runner gives them to its script and its after_script. */
function jobEnv(dir: string, job: ComponentJob, env: Record<string, string>): NodeJS.ProcessEnv {
  const bundle = defaultTarget() === 'bundle'
  return {
    PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
    ...(bundle ? {} : { NODE_COMPILE_CACHE: COMPILE_CACHE }),
    GITLAB_CI: 'true',
    CI: 'true',
    CI_PIPELINE_SOURCE: 'schedule',
    CI_JOB_NAME: 'cloud-agent-run',
    WARP_API_KEY: KEY,
    ...job.variables,
    ...env,
  }
}

/** The job's after_script in a fresh bash in the job's directory, as the runner runs it. */
function runAfterScript(
  job: ComponentJob,
  env: Record<string, string>,
  dir: string,
): Promise<{ code: number | null; log: string }> {
  const script = (job as { after_script?: string[] }).after_script ?? []
  const shell = spawn('bash', ['-eo', 'pipefail', '-c', script.join('\n')], {
    cwd: dir,
    env: jobEnv(dir, job, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  shell.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()))
  shell.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()))
  return new Promise((resolve, reject) => {
    shell.on('error', reject)
    shell.on('close', (code) => resolve({ code, log }))
  })
}

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
  whileRunning?: (shell: {
    kill(signal: NodeJS.Signals): void
    /** Every process of the job at once, as a runner that stops a job hard. */
    killAll(): void
  }) => void,
): Promise<JobResult> {
  const dir = jobDirectory()
  // Its own process group: a hard kill (SIGKILL to the group) ends the script and the command.
  const shell = spawn('bash', ['-eo', 'pipefail', '-c', job.script.join('\n')], {
    cwd: dir,
    env: jobEnv(dir, job, env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let log = ''
  shell.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()))
  shell.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()))
  whileRunning?.({
    kill: (signal) => shell.kill(signal),
    killAll: () => process.kill(-(shell.pid ?? 0), 'SIGKILL'),
  })
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
      version: '1.3.0',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const result = await runJob(job, {})

    expect(result.code, result.log).toBe(0)
    expect(read(result.dir, 'npx-package')).toBe('cloud-agent-run@1.3.0')
    for (const artifact of job.artifacts.paths.filter((path) => !path.endsWith('/'))) {
      expect(read(result.dir, artifact)).not.toBe('')
    }
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

describe('the GitLab component in a merge request pipeline, its job in bash: its note', () => {
  it('keeps one note per key on the merge request: the next pipeline updates it in place', async () => {
    const { gitlab, env } = await mergeRequestPipeline()
    const api = await fakeApi({ script: () => succeeding })
    const [, job] = componentJob({
      prompt: 'Review the merge request',
      name: 'review',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const first = await runJob(job, env)
    expect(first.code, first.log).toBe(0)
    const second = await runJob(job, env)
    expect(second.code, second.log).toBe(0)

    const notes = gitlab.notes(42, 7)
    expect(notes).toHaveLength(1)
    // Created once, by the first pipeline's "working" note; every later write updates it.
    expect(gitlab.requestsTo('POST', /\/notes$/)).toHaveLength(1)
    // Each job: working, the run recorded once known, the end.
    expect(gitlab.requestsTo('PUT', /\/notes\/\d+$/)).toHaveLength(5)
    const runOf = (result: JobResult) =>
      (JSON.parse(read(result.dir, 'cloud-agent-run.json')) as { run_id: string }).run_id
    expect(runOf(first)).not.toBe(runOf(second))
    // The note shows the newer run's summary, as the job's artifact has it, and no longer the older.
    expect(notes[0]?.body).toContain(read(second.dir, 'cloud-agent-summary.md').trim())
    expect(notes[0]?.body).not.toContain(read(first.dir, 'cloud-agent-summary.md').trim())
    expect(`${first.log}${second.log}`).not.toContain('glpat-fake')
  })

  it('cancelled (SIGTERM to the job): the run is cancelled and the note shows it', async () => {
    const { gitlab, env } = await mergeRequestPipeline()
    const api = await fakeApi({ script: () => working })
    const [, job] = componentJob({
      prompt: 'Work for a long time',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const result = await runJob(job, env, (shell) => {
      void api.waitForRequest('GET', /\/agent\/runs\/[^/]+$/).then(() => shell.kill('SIGTERM'))
    })

    expect(result.code, result.log).toBe(143)
    expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED'])
    const [note] = gitlab.notes(42, 7)
    expect(note?.body).toContain(read(result.dir, 'cloud-agent-summary.md').trim())
    expect(note?.body).not.toContain('Cloud agent run: working')
  })

  it('without GITLAB_TOKEN says so in one line, and the job goes on', async () => {
    const { gitlab, env } = await mergeRequestPipeline('')
    const api = await fakeApi({ script: () => succeeding })
    const [, job] = componentJob({
      prompt: 'Review',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const result = await runJob(job, env)
    expect(result.code, result.log).toBe(0)
    expect(result.log.match(/GITLAB_TOKEN is not set/g)).toHaveLength(1)
    expect(gitlab.requests).toEqual([])
  })

  it('a refused token is one warning, and the job passes as the run did', async () => {
    const { gitlab, env } = await mergeRequestPipeline('glpat-revoked')
    const api = await fakeApi({ script: () => succeeding })
    const [, job] = componentJob({
      prompt: 'Review',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const result = await runJob(job, env)
    expect(result.code, result.log).toBe(0)
    // The "working" note is refused; the summary's is never sent.
    expect(result.log.match(/warning: GitLab: could not write the note/g)).toHaveLength(1)
    expect(gitlab.requestsTo('GET', '/api/v4/user')).toHaveLength(1)
    expect(result.log).toContain('401 Unauthorized')
    expect(gitlab.notes(42, 7)).toEqual([])
  })
})

describe("the component's after_script: a cancelled job's runs, when its script got no signal", () => {
  /** Runs the job until its run works, then stops every process of it at once (no signal). */
  async function killedHard(job: ComponentJob, env: Record<string, string>, api: FakeAgentApi) {
    const result = await runJob(job, env, (shell) => {
      void api.waitForRequest('GET', /\/agent\/runs\/[^/]+$/).then(() => shell.killAll())
    })
    expect(result.signal).toBe('SIGKILL')
    return result
  }

  it('cancels the run the killed script left going (CI_JOB_STATUS=canceled)', async () => {
    const api = await fakeApi({ script: () => working })
    const [, job] = componentJob({
      prompt: 'Work for a long time',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const result = await killedHard(job, {}, api)
    expect(api.allRuns().map((run) => run.state)).toEqual(['INPROGRESS'])
    expect(JSON.parse(read(result.dir, '.cloud-agent-run/state.json'))).toMatchObject({
      baseUrl: api.baseUrl,
    })

    const after = await runAfterScript(job, { CI_JOB_STATUS: 'canceled' }, result.dir)
    expect(after.code, after.log).toBe(0)
    expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED'])
    expect(after.log).not.toContain(KEY)
    // A second after_script (a retried one) finds nothing left.
    const again = await runAfterScript(job, { CI_JOB_STATUS: 'canceled' }, result.dir)
    expect(again.code).toBe(0)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(1)
  })

  it('leaves the run to a newer pipeline of the merge request that steers it (previous_run: steer)', async () => {
    const { gitlab, env } = await mergeRequestPipeline()
    const api = await fakeApi({ script: () => working })
    const older = gitlab.projects.addPipeline(42, 7, 'a'.repeat(40))
    const [, job] = componentJob({
      prompt: 'Review',
      name: 'review',
      previous_run: 'steer',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const ofJob = { ...env, GITLAB_CI: 'true', CI_PIPELINE_ID: String(older.id), CI_JOB_ID: '9001' }
    const result = await killedHard(job, ofJob, api)
    const newer = gitlab.projects.addPipeline(42, 7, 'b'.repeat(40))
    gitlab.projects.setPipeline(older.id, 'canceled')

    const after = await runAfterScript(job, { ...ofJob, CI_JOB_STATUS: 'canceled' }, result.dir)
    expect(after.code, after.log).toBe(0)
    expect(after.log).toContain(`a newer pipeline of the merge request, ${newer.id}`)
    expect(api.allRuns().map((run) => run.state)).toEqual(['INPROGRESS'])
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
  })

  it('does nothing after a script that ended on its own', async () => {
    const api = await fakeApi({ script: () => succeeding })
    const [, job] = componentJob({
      prompt: 'Quick',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const result = await runJob(job, {})
    expect(result.code, result.log).toBe(0)
    const after = await runAfterScript(job, { CI_JOB_STATUS: 'failed' }, result.dir)
    expect(after.code, after.log).toBe(0)
    expect(after.log).toContain('nothing to clean up')
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
  })
})

describe("the component's results the GitLab way", () => {
  it('keeps the outputs as a dotenv report and the session as an annotation; a title with spaces passes unchanged', async () => {
    const api = await fakeApi({ script: () => succeeding })
    const [, job] = componentJob({
      prompt: 'Review the parser',
      title: 'Review the "parser" change, all of it',
      args: `--base-url ${api.baseUrl} --poll-interval 100ms`,
    })
    const result = await runJob(job, {})
    expect(result.code, result.log).toBe(0)
    const [create] = api.requestsTo('POST', /\/agent\/runs?$/)
    expect(JSON.parse(create?.body ?? '{}')).toMatchObject({
      title: 'Review the "parser" change, all of it',
    })
    const outputs = JSON.parse(read(result.dir, 'cloud-agent-run.json')) as Record<string, unknown>
    const dotenv = read(result.dir, '.cloud-agent-run/outputs.env')
    expect(dotenv).toContain('CLOUD_AGENT_OUTCOME=succeeded\n')
    expect(dotenv).toContain(`CLOUD_AGENT_RUN_ID=${String(outputs.run_id)}\n`)
    // One line a variable: GitLab's dotenv takes no value on more than one line.
    expect(
      dotenv.split('\n').every((line) => line === '' || /^CLOUD_AGENT_[A-Z0-9_]+=/.test(line)),
    ).toBe(true)
    const annotations = JSON.parse(read(result.dir, '.cloud-agent-run/annotations.json')) as {
      'cloud-agent-run': Array<{ external_link: { url: string } }>
    }
    expect(annotations['cloud-agent-run'][0]?.external_link.url).toBe(outputs.session_link)
  })
})
