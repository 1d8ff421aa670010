/**
 * `cloud-agent-run reconcile` (issue 35, item 4): the reconcile pass outside Actions, for a
 * GitLab scheduled pipeline, against the fake API and the fake GitLab. A `--no-wait` job's
 * merge request note is finished once its run ends; a run whose job GitLab reports finished
 * while the run still goes is swept; only the project's GitLab runs are touched; a second pass
 * changes nothing; `--dry-run` changes nothing. In `npm test` the door runs in-process; in the
 * bundle suite, as a process.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import type { CreateRunRequest } from '../../src/api/types.ts'
import { markerOf, noteMarkerOf } from '../../src/gitlab/note-text.ts'
import { FakeGitLab } from '../fake-gitlab/server.ts'
import { against, command } from './command.ts'
import { describeNeedsProcess, until } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-cli-reconcile-4b8e20'
const { fakeApi } = e2eServers(KEY)

interface PassAnswer {
  finalized: string[]
  swept: string[]
  outcome: string
  exit_code: number
  error?: string
}

async function gitlabProject() {
  const gitlab = await FakeGitLab.start()
  const close = () => gitlab.close()
  // A scheduled pipeline's variables, and a merge request job's on top.
  const scheduled = {
    WARP_API_KEY: KEY,
    GITLAB_CI: 'true',
    CI_PIPELINE_SOURCE: 'schedule',
    CI_API_V4_URL: gitlab.apiUrl,
    CI_PROJECT_ID: '42',
    CI_PROJECT_PATH: 'group/app',
    CI_PIPELINE_ID: '8800',
    CI_JOB_ID: '9900',
    GITLAB_TOKEN: 'glpat-fake',
  }
  const mergeRequestJob = {
    ...scheduled,
    CI_PIPELINE_SOURCE: 'merge_request_event',
    CI_MERGE_REQUEST_IID: '7',
    CI_PIPELINE_ID: '8801',
    CI_JOB_ID: '9001',
    CI_JOB_URL: 'https://gitlab.example.test/acme/app/-/jobs/9001',
    CI_JOB_NAME: 'review',
    CI_COMMIT_SHA: 'a'.repeat(40),
  }
  return { gitlab, close, scheduled, mergeRequestJob }
}

/** A run as a GitLab job tags it (run/create.ts), seeded `agoMs` ago with `script`. */
function gitlabRun(metadata: Record<string, string>): CreateRunRequest {
  return {
    prompt: 'Review the merge request.',
    config: { name: 'review' },
    metadata: {
      gh_forge: 'gitlab',
      gh_repository: 'group/app',
      gh_thread: '7',
      gh_key: 'review',
      gh_wait: 'true',
      gh_run_id: '8801',
      gh_step: '9001',
      ...metadata,
    },
  } as CreateRunRequest
}

const going = [
  { state: 'QUEUED' as const, afterMs: 0 },
  { state: 'INPROGRESS' as const, afterMs: 10 },
]

describe('cloud-agent-run reconcile', () => {
  it("finishes a --no-wait job's merge request note once its run ended, once; --dry-run changes nothing", async () => {
    const api = await fakeApi()
    const { gitlab, close, scheduled, mergeRequestJob } = await gitlabProject()
    try {
      const started = await command(
        against(api, '--prompt', 'Review the merge request.', '--no-wait', '--json'),
        mergeRequestJob,
      ).done
      expect(started.code, started.stderr).toBe(0)
      const runId = (JSON.parse(started.stdout) as { run_id: string }).run_id
      const [note] = gitlab.notes(42, 7)
      expect(markerOf(note?.body ?? '')?.record).toEqual({
        run: runId,
        head: 'a'.repeat(40),
        job: '9001',
      })
      await until(() => api.run(runId)?.state === 'SUCCEEDED', 'the run ended')
      const byTheJob = gitlab.requestsTo('PUT', /notes/).length

      const dry = await command(
        ['reconcile', '--dry-run', '--json', '--base-url', api.baseUrl],
        scheduled,
      ).done
      expect(dry.code, dry.stderr).toBe(0)
      expect(JSON.parse(dry.stdout)).toMatchObject({ outcome: 'succeeded', exit_code: 0 })
      expect(dry.stderr).toContain(`Run ${runId}: dry run, finalized`)
      expect(gitlab.requestsTo('PUT', /notes/)).toHaveLength(byTheJob)

      const pass = await command(['reconcile', '--json', '--base-url', api.baseUrl], scheduled).done
      expect(pass.code, pass.stderr).toBe(0)
      expect(JSON.parse(pass.stdout) as PassAnswer).toEqual({
        finalized: [runId],
        swept: [],
        outcome: 'succeeded',
        exit_code: 0,
      })
      const notes = gitlab.notes(42, 7)
      expect(notes).toHaveLength(1)
      expect(markerOf(notes[0]?.body ?? '')?.record).toMatchObject({ run: runId, ended: true })
      // The key's history has the run's end too, with the job that started it: a later job of
      // the key lists it as it ended, not as started.
      const [entry] = noteMarkerOf(notes[0]?.body ?? '')?.history.runs ?? []
      expect(entry).toMatchObject({ runId, state: 'SUCCEEDED', outcome: 'succeeded' })
      expect(entry?.workflowRun).toMatch(/\/-\/jobs\/9001$/)
      expect(notes[0]?.body).toContain('succeeded')
      expect(notes[0]?.body).toContain('a reconcile pass wrote its end here')

      const writes = gitlab.requestsTo('PUT', /notes/).length
      const again = await command(['reconcile', '--json', '--base-url', api.baseUrl], scheduled)
        .done
      expect((JSON.parse(again.stdout) as PassAnswer).finalized).toEqual([])
      expect(again.stderr).toContain(`Run ${runId}: up-to-date`)
      expect(gitlab.requestsTo('PUT', /notes/)).toHaveLength(writes)
    } finally {
      await close()
    }
  })

  it('sweeps a run whose job GitLab reports finished, leaves one whose job runs, and touches no other project or forge', async () => {
    const api = await fakeApi()
    const { gitlab, close, scheduled } = await gitlabProject()
    try {
      const lost = api.seedRun(gitlabRun({ gh_step: '9001' }), { script: going })
      const running = api.seedRun(gitlabRun({ gh_step: '9002' }), { script: going })
      const detached = api.seedRun(gitlabRun({ gh_step: '9003', gh_wait: 'false' }), {
        script: going,
      })
      const otherProject = api.seedRun(
        gitlabRun({ gh_step: '9001', gh_repository: 'group/other' }),
        { script: going },
      )
      const github = api.seedRun(gitlabRun({ gh_step: '9001', gh_forge: 'github' }), {
        script: going,
      })
      // Started by job 9001 (failed since), steered by job 9004, which still waits for it.
      const steered = api.seedRun(gitlabRun({ gh_step: '9001', gh_key: 'fix' }), {
        script: going,
      })
      gitlab.projects.setJob(42, 9001, 'failed')
      gitlab.projects.setJob(42, 9002, 'running')
      gitlab.projects.setJob(42, 9004, 'running')
      gitlab.addNote(
        42,
        7,
        `<!-- cloud-agent-run-note: {"key":"fix","run":"${steered.run_id}","job":"9004"} -->\n### ⏳ working`,
        'ci-bot',
      )
      // The lost job's note, as the command wrote it while it waited.
      gitlab.addNote(
        42,
        7,
        `<!-- cloud-agent-run-note: {"key":"review","run":"${lost.run_id}","job":"9001"} -->\n### ⏳ working`,
        'ci-bot',
      )
      await until(
        () =>
          [lost, running, detached, steered].every(
            (run) => api.run(run.run_id)?.state === 'INPROGRESS',
          ),
        'the runs are going',
      )

      const dry = await command(
        ['reconcile', '--dry-run', '--json', '--base-url', api.baseUrl],
        scheduled,
      ).done
      expect(dry.stderr).toContain(`Run ${lost.run_id}: dry run, swept`)
      expect(api.run(lost.run_id)?.state).toBe('INPROGRESS')

      const pass = await command(['reconcile', '--json', '--base-url', api.baseUrl], scheduled).done
      expect(pass.code, pass.stderr).toBe(0)
      expect(JSON.parse(pass.stdout) as PassAnswer).toMatchObject({
        finalized: [],
        swept: [lost.run_id],
      })
      expect(api.run(lost.run_id)?.state).toBe('CANCELLED')
      expect(pass.stderr).toContain(`Run ${steered.run_id}: left: its job 9004 is running`)
      for (const run of [running, detached, otherProject, github, steered]) {
        expect(api.run(run.run_id)?.state, run.run_id).toBe('INPROGRESS')
      }
      expect(pass.stderr).toContain(`Run ${running.run_id}: left: its job 9002 is running`)
      expect(pass.stderr).toContain(`Run ${detached.run_id}: left: its job left it going`)
      const note = gitlab.notes(42, 7).find((one) => markerOf(one.body)?.key === 'review')
      expect(note?.body).toContain('a reconcile pass cancelled it')
      expect(markerOf(note?.body ?? '')?.record).toMatchObject({ ended: true })
      // Jobs are read by the project's path, as GitLab takes it.
      expect(gitlab.requestsTo('GET', '/api/v4/projects/group%2Fapp/jobs/9001').length).toBe(2)
    } finally {
      await close()
    }
  })

  it('sweeps an agent that orchestrates as one run: its children are no rows of their own, and the tree is cancelled', async () => {
    const api = await fakeApi()
    const { gitlab, close, scheduled } = await gitlabProject()
    try {
      const working = [{ state: 'INPROGRESS' as const, afterMs: 0 }]
      const lost = api.seedRun(gitlabRun({ gh_step: '9001' }), {
        script: [
          { state: 'INPROGRESS', afterMs: 0, spawn: [{ script: working }, { script: working }] },
        ],
      })
      gitlab.projects.setJob(42, 9001, 'failed')
      const children = api.tree(lost.run_id).slice(1)
      expect(children.map((child) => child.metadata?.gh_step)).toEqual(['9001', '9001'])

      const pass = await command(['reconcile', '--json', '--base-url', api.baseUrl], scheduled).done
      expect(pass.code, pass.stderr).toBe(0)
      expect((JSON.parse(pass.stdout) as PassAnswer).swept).toEqual([lost.run_id])
      expect(api.tree(lost.run_id).map((run) => run.state)).toEqual([
        'CANCELLED',
        'CANCELLED',
        'CANCELLED',
      ])
      for (const child of children) expect(pass.stderr).not.toContain(`Run ${child.run_id}:`)
    } finally {
      await close()
    }
  })

  it('never sweeps a steered run its cancelled job handed to a newer pipeline of the merge request (superseded)', async () => {
    const api = await fakeApi()
    const { gitlab, close, scheduled } = await gitlabProject()
    try {
      // Job 9001 steered its key's run; GitLab cancelled it and its pipeline when a newer pipeline
      // of the merge request started, and the note still names it: the newer job has not written
      // it yet. Job 9002 did not steer (no hand-over): its cancelled job's run is swept.
      const older = gitlab.projects.addPipeline(42, 7, 'a'.repeat(40), 'canceled')
      const handed = api.seedRun(gitlabRun({ gh_steer: 'true', gh_step: '9001' }), {
        script: going,
      })
      const notSteering = api.seedRun(gitlabRun({ gh_step: '9002', gh_key: 'other' }), {
        script: going,
      })
      gitlab.projects.setJob(42, 9001, 'canceled', older.id)
      gitlab.projects.setJob(42, 9002, 'canceled', older.id)
      gitlab.addNote(
        42,
        7,
        `<!-- cloud-agent-run-note: {"key":"review","run":"${handed.run_id}","job":"9001"} -->\n### ⏳ working`,
        'ci-bot',
      )
      const newer = gitlab.projects.addPipeline(42, 7, 'b'.repeat(40), 'running')
      await until(
        () => [handed, notSteering].every((run) => api.run(run.run_id)?.state === 'INPROGRESS'),
        'the runs are going',
      )
      const pass = () =>
        command(['reconcile', '--json', '--base-url', api.baseUrl], scheduled).done.then(
          (result) => ({ ...result, answer: JSON.parse(result.stdout) as PassAnswer }),
        )

      const first = await pass()
      expect(first.code, first.stderr).toBe(0)
      expect(first.answer.swept).toEqual([notSteering.run_id])
      expect(api.run(handed.run_id)?.state).toBe('INPROGRESS')
      expect(first.stderr).toContain(
        `Run ${handed.run_id}: left: its job was cancelled, and a newer pipeline of its merge request (${newer.id}) is running: a job there steers it`,
      )
      expect(gitlab.notes(42, 7)[0]?.body).toContain('### ⏳ working')

      // The newer pipeline succeeded: its job let the run go on. Failed: its runner was lost too.
      gitlab.projects.setPipeline(newer.id, 'success')
      const second = await pass()
      expect(second.answer.swept).toEqual([])
      expect(second.stderr).toContain(`(${newer.id}) succeeded: a job there steered it`)
      gitlab.projects.setPipeline(newer.id, 'failed')
      const third = await pass()
      expect(third.answer.swept).toEqual([handed.run_id])
      expect(api.run(handed.run_id)?.state).toBe('CANCELLED')
    } finally {
      await close()
    }
  })

  it('refuses, before any request, outside a GitLab CI job, without GITLAB_TOKEN, or an unknown flag', async () => {
    const api = await fakeApi()
    const { close, scheduled } = await gitlabProject()
    try {
      const noToken = { ...scheduled, GITLAB_TOKEN: '' }
      for (const [args, env, says] of [
        [['--lookback', 'soon'], scheduled, /^--lookback /],
        [['--sweep-all'], scheduled, /does not take "--sweep-all"/],
        [[], { WARP_API_KEY: KEY }, /^GITLAB_CI is not set: reconcile runs in a GitLab CI job/],
        // Given --project, it says what is really missing: GitLab, not the flag it was given.
        [['--project', 'jenkins/app'], { WARP_API_KEY: KEY }, /^GITLAB_CI is not set: /],
        [['--project', 'gitlab:group/app'], { WARP_API_KEY: KEY }, /^GITLAB_CI is not set: /],
        // In a job whose project GitLab does not name, the flag is what is missing.
        [[], { ...scheduled, CI_PROJECT_PATH: '' }, /^--project is needed: /],
        [[], noToken, /GITLAB_TOKEN is not set/],
        [[], { ...scheduled, WARP_API_KEY: '' }, /WARP_API_KEY is not set/],
      ] as const) {
        const result = await command(
          ['reconcile', '--json', '--base-url', api.baseUrl, ...args],
          env,
        ).done
        expect(result.code, args.join(' ')).toBe(2)
        const answer = JSON.parse(result.stdout) as PassAnswer
        expect(answer).toMatchObject({ outcome: 'error', exit_code: 2 })
        expect(answer.error).toMatch(says)
      }
      expect(api.requests).toHaveLength(0)
      const help = await command(['reconcile', '--help'], {}).done
      expect(help.code).toBe(0)
      expect(help.stdout).toContain('--lookback DURATION')
    } finally {
      await close()
    }
  })
})

// A signal is a process's own.
describeNeedsProcess('cloud-agent-run reconcile, stopped by a signal (a process)', () => {
  it('exits 143 with one JSON object while GitLab has not answered, having cancelled nothing', async () => {
    const api = await fakeApi()
    const { gitlab, close, scheduled } = await gitlabProject()
    try {
      const run = api.seedRun(gitlabRun({ gh_step: '9001' }), { script: going })
      gitlab.projects.setJob(42, 9001, 'failed')
      gitlab.stopAnswering('GET', /\/jobs\//)
      await until(() => api.run(run.run_id)?.state === 'INPROGRESS', 'the run is going')
      const pass = command(['reconcile', '--json', '--base-url', api.baseUrl], scheduled)
      await until(
        () => gitlab.requestsTo('GET', /\/jobs\/9001$/).length > 0,
        'the pass asks GitLab',
      )
      pass.kill('SIGTERM')
      const result = await pass.done

      expect(result.code, result.stderr).toBe(143)
      expect(JSON.parse(result.stdout)).toEqual({
        finalized: [],
        swept: [],
        outcome: 'interrupted',
        exit_code: 143,
      })
      expect(api.run(run.run_id)?.state).toBe('INPROGRESS')
    } finally {
      await close()
    }
  })
})
