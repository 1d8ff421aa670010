/**
 * `--previous-run steer` on a GitLab merge request (issue 36, item 1), with the command against
 * the fake API and the fake GitLab: the head is the pipeline's commit, the old head comes from
 * the merge request note's record, what changed from GitLab's merge_base and compare; a force
 * push falls back to cancel + create. As processes (the bundle suite), a job cancelled because
 * a newer pipeline of the merge request exists hands the run over (superseded, nothing
 * cancelled; a scheduled reconcile pass leaves it to that pipeline), and a person's cancel
 * still cancels.
 */
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { markerOf } from '../../src/gitlab/note-text.ts'
import type { RunScript } from '../fake-api/server.ts'
import { FakeGitLab } from '../fake-gitlab/server.ts'
import { against, command, finishing, working } from './command.ts'
import { describeNeedsProcess, until } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-gitlab-steer-5a0c91'
const { fakeApi } = e2eServers(KEY)

const C1 = '1'.repeat(40)
const C2 = '2'.repeat(40)
const C3 = '3'.repeat(40)
const X2 = 'f'.repeat(40)

/** A fake GitLab whose project has c1 → c2 → c3, and x2 rewritten on c1's parent (a force push). */
async function mergeRequest() {
  const gitlab = await FakeGitLab.start()
  gitlab.projects.addCommits(42, [
    { sha: '0'.repeat(40), title: 'root' },
    { sha: C1, parent: '0'.repeat(40), title: 'Add the parser' },
    { sha: C2, parent: C1, title: 'Fix the parser' },
    { sha: C3, parent: C2, title: 'Test the parser' },
    { sha: X2, parent: '0'.repeat(40), title: 'Rewrite everything' },
  ])
  /** The variables of a job in a merge request pipeline for `sha`. */
  const job = (sha: string, jobId: number, pipelineId: number) => ({
    WARP_API_KEY: KEY,
    GITLAB_CI: 'true',
    CI_PIPELINE_SOURCE: 'merge_request_event',
    CI_API_V4_URL: gitlab.apiUrl,
    CI_PROJECT_ID: '42',
    CI_PROJECT_PATH: 'group/app',
    CI_MERGE_REQUEST_IID: '7',
    CI_JOB_NAME: 'review',
    CI_JOB_ID: String(jobId),
    CI_PIPELINE_ID: String(pipelineId),
    CI_COMMIT_SHA: sha,
    GITLAB_TOKEN: 'glpat-fake',
  })
  return { gitlab, job }
}

const STEER = ['--name', 'review', '--previous-run', 'steer', '--json']

interface Answer {
  run_id?: string
  steered?: boolean
  outcome?: string
  exit_code?: number
  error?: string
}

/** A run that works until a follow-up, which it then finishes. */
const steerable = {
  script: (): RunScript => working,
  followupScript: () => finishing('SUCCEEDED', 'Reviewed the new commits.'),
}

describe('--previous-run steer on a merge request', () => {
  it("steers the key's run: the old head from the note's record, the commits since from GitLab's compare", async () => {
    const api = await fakeApi(steerable)
    const { gitlab, job } = await mergeRequest()
    try {
      const first = await command(
        against(api, '--prompt', 'Review the merge request.', '--no-wait', ...STEER),
        job(C1, 9001, 8001),
      ).done
      expect(first.code, first.stderr).toBe(0)
      const runId = (JSON.parse(first.stdout) as Answer).run_id ?? ''
      await until(() => api.run(runId)?.state === 'INPROGRESS', 'the run works')

      const second = await command(
        against(api, '--prompt', 'Review the merge request.', ...STEER),
        job(C3, 9002, 8002),
      ).done
      expect(second.code, second.stderr).toBe(0)
      const answer = JSON.parse(second.stdout) as Answer
      expect(answer).toMatchObject({ run_id: runId, steered: true, outcome: 'succeeded' })
      expect(api.allRuns()).toHaveLength(1)
      const [message] = api.followups(runId)
      expect(message).toContain(`The new head: ${C3}`)
      expect(message).toContain(`The head you were working on: ${C1}`)
      expect(message).toContain('Fix the parser')
      expect(message).toContain('Test the parser')
      expect(gitlab.requestsTo('GET', /repository\/merge_base$/)).toHaveLength(1)

      const notes = gitlab.notes(42, 7)
      expect(notes).toHaveLength(1)
      expect(markerOf(notes[0]?.body ?? '')).toEqual({
        key: 'review',
        record: { run: runId, head: C3, job: '9002', ended: true },
      })
    } finally {
      await gitlab.close()
    }
  })

  it('falls back to cancel + create after a force push (the old head is not an ancestor), saying why', async () => {
    let created = 0
    // The first run works until it is cancelled; the second, created in its place, finishes.
    const api = await fakeApi({
      script: () => (++created === 1 ? working : finishing('SUCCEEDED')),
    })
    const { gitlab, job } = await mergeRequest()
    try {
      const first = await command(
        against(api, '--prompt', 'Review the merge request.', '--no-wait', ...STEER),
        job(C2, 9001, 8001),
      ).done
      const oldRun = (JSON.parse(first.stdout) as Answer).run_id ?? ''
      await until(() => api.run(oldRun)?.state === 'INPROGRESS', 'the run works')

      const second = await command(
        against(api, '--prompt', 'Review the merge request.', ...STEER),
        job(X2, 9002, 8002),
      ).done
      expect(second.code, second.stderr).toBe(0)
      const answer = JSON.parse(second.stdout) as Answer
      expect(answer).toMatchObject({ steered: false, outcome: 'succeeded' })
      expect(answer.run_id).not.toBe(oldRun)
      expect(api.run(oldRun)?.state).toBe('CANCELLED')
      expect(api.followups(oldRun)).toEqual([])
      expect(second.stderr).toContain(`is not an ancestor of ${X2.slice(0, 12)}: a force push`)
      const notes = gitlab.notes(42, 7)
      expect(notes).toHaveLength(1)
      expect(markerOf(notes[0]?.body ?? '')?.record).toMatchObject({ run: answer.run_id, head: X2 })
    } finally {
      await gitlab.close()
    }
  })

  it('keeps exactly one run and one note when two jobs of the key start at once', async () => {
    // The list shows no run until both creates have come: each job finds none and creates. The
    // job of the older head (C2) never steers the other's run back to it: when the older run is
    // the newer push's, it gives way and awaits that run, which ends on its own; when it is its
    // own, the newer push's job steers it, and the follow-up ends it.
    const api = await fakeApi({
      script: () => [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 50 },
        { state: 'SUCCEEDED', afterMs: 8_000 },
      ],
      followupScript: () => finishing('SUCCEEDED'),
    })
    api.lagList(() => api.allRuns().length < 2)
    const { gitlab, job } = await mergeRequest()
    try {
      // A bounded wait: a job left awaiting a run nobody steers fails with its log, not a hang.
      const bounded = ['--timeout', '30s']
      const [first, second] = await Promise.all([
        command(
          against(api, '--prompt', 'Review the merge request.', ...STEER, ...bounded),
          job(C2, 9001, 8001),
        ).done,
        command(
          against(api, '--prompt', 'Review the merge request.', ...STEER, ...bounded),
          job(C3, 9002, 8002),
        ).done,
      ])
      expect(first.code, first.stderr).toBe(0)
      expect(second.code, second.stderr).toBe(0)
      const runs = api.allRuns()
      expect(runs).toHaveLength(2)
      const kept = runs.filter((run) => run.state !== 'CANCELLED')
      expect(kept).toHaveLength(1)
      const answers = [first, second].map((result) => JSON.parse(result.stdout) as Answer)
      expect(
        answers.map((answer) => answer.run_id),
        `${first.stderr}\n---\n${second.stderr}`,
      ).toEqual([kept[0]?.run_id, kept[0]?.run_id])
      expect(gitlab.notes(42, 7)).toHaveLength(1)
      // No run was steered back to the older head.
      const steers = api
        .requestsTo('POST', /\/followups$/)
        .map((request) => JSON.stringify(request.json))
      expect(steers.filter((body) => body.includes(`The new head: ${C2}`))).toEqual([])
    } finally {
      await gitlab.close()
    }
  })

  it('is refused, before any request, in a merge request pipeline without GITLAB_TOKEN', async () => {
    const api = await fakeApi()
    const { gitlab, job } = await mergeRequest()
    try {
      const result = await command(against(api, '--prompt', 'x', ...STEER), {
        ...job(C1, 9001, 8001),
        GITLAB_TOKEN: '',
      }).done
      expect(result.code).toBe(2)
      expect((JSON.parse(result.stdout) as Answer).error).toMatch(
        /^--previous-run cannot be steer here: .*GitLab merge request pipeline with GITLAB_TOKEN.*--previous-run cancel/,
      )
      expect(api.requests).toHaveLength(0)
    } finally {
      await gitlab.close()
    }
  })
})

describeNeedsProcess('a cancelled job of a steering key (processes)', () => {
  /** Works until a follow-up, then for `ms` more before it succeeds. */
  const slowAfterFollowup = (ms: number) => ({
    script: (): RunScript => working,
    followupScript: (): RunScript => [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 50 },
      { state: 'SUCCEEDED', afterMs: ms, patch: { request_usage: { inference_cost: 1 } } },
    ],
  })

  it('hands the run over, cancelling nothing, when a newer pipeline of the merge request exists', async () => {
    const api = await fakeApi(slowAfterFollowup(3_000))
    const { gitlab, job } = await mergeRequest()
    try {
      const older = gitlab.projects.addPipeline(42, 7, C1)
      const first = command(
        against(api, '--prompt', 'Review the merge request.', ...STEER),
        job(C1, 9001, older.id),
      )
      await until(() => api.allRuns()[0]?.state === 'INPROGRESS', 'the run works')
      const runId = api.allRuns()[0]?.run_id ?? ''
      await until(
        () => markerOf(gitlab.notes(42, 7)[0]?.body ?? '')?.record.run === runId,
        'the note records the run',
      )
      const newer = gitlab.projects.addPipeline(42, 7, C3)
      const second = command(
        against(api, '--prompt', 'Review the merge request.', ...STEER),
        job(C3, 9002, newer.id),
      )
      await until(() => api.followups(runId).length === 1, 'the newer job steered the run')
      // GitLab cancels the older pipeline's job (interruptible): SIGTERM.
      gitlab.projects.setPipeline(older.id, 'canceled')
      first.kill('SIGTERM')
      const handed = await first.done
      expect(handed.code, handed.stderr).toBe(143)
      expect(JSON.parse(handed.stdout) as Answer).toMatchObject({ outcome: 'superseded' })
      expect(handed.stderr).toContain(`a newer pipeline of the merge request, ${newer.id}`)
      expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)

      const steered = await second.done
      expect(steered.code, steered.stderr).toBe(0)
      expect(JSON.parse(steered.stdout) as Answer).toMatchObject({
        run_id: runId,
        steered: true,
        outcome: 'succeeded',
      })
      const notes = gitlab.notes(42, 7)
      expect(notes).toHaveLength(1)
      expect(markerOf(notes[0]?.body ?? '')?.record).toEqual({
        run: runId,
        head: C3,
        job: '9002',
        ended: true,
      })
    } finally {
      await gitlab.close()
    }
  })

  it('a scheduled reconcile pass leaves the handed-over run to the newer pipeline, whose job then steers it', async () => {
    const api = await fakeApi(slowAfterFollowup(200))
    const { gitlab, job } = await mergeRequest()
    try {
      const older = gitlab.projects.addPipeline(42, 7, C1)
      const first = command(
        against(api, '--prompt', 'Review the merge request.', ...STEER),
        job(C1, 9001, older.id),
      )
      await until(() => api.allRuns()[0]?.state === 'INPROGRESS', 'the run works')
      const runId = api.allRuns()[0]?.run_id ?? ''
      await until(
        () => markerOf(gitlab.notes(42, 7)[0]?.body ?? '')?.record.run === runId,
        'the note records the run',
      )
      // A push: GitLab starts a newer pipeline and cancels the older one's job (interruptible).
      const newer = gitlab.projects.addPipeline(42, 7, C3, 'pending')
      gitlab.projects.setPipeline(older.id, 'canceled')
      gitlab.projects.setJob(42, 9001, 'canceled', older.id)
      first.kill('SIGTERM')
      const handed = await first.done
      expect(JSON.parse(handed.stdout) as Answer).toMatchObject({ outcome: 'superseded' })

      // The schedule's pass comes before the newer job has started: the run is that job's.
      const scheduled = { ...job(C3, 9900, 8800), CI_PIPELINE_SOURCE: 'schedule' }
      delete (scheduled as Record<string, string | undefined>).CI_MERGE_REQUEST_IID
      const pass = await command(['reconcile', '--json', '--base-url', api.baseUrl], scheduled).done
      expect(pass.code, pass.stderr).toBe(0)
      expect(JSON.parse(pass.stdout)).toMatchObject({ swept: [] })
      expect(pass.stderr).toContain(
        `a newer pipeline of its merge request (${newer.id}) is pending`,
      )
      expect(api.run(runId)?.state).toBe('INPROGRESS')

      gitlab.projects.setPipeline(newer.id, 'running')
      const second = await command(
        against(api, '--prompt', 'Review the merge request.', ...STEER),
        job(C3, 9002, newer.id),
      ).done
      expect(second.code, second.stderr).toBe(0)
      expect(JSON.parse(second.stdout) as Answer).toMatchObject({
        run_id: runId,
        steered: true,
        outcome: 'succeeded',
      })
      expect(api.allRuns()).toHaveLength(1)
      expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
    } finally {
      await gitlab.close()
    }
  })

  it("cancels the run on a person's cancel (no newer pipeline)", async () => {
    const api = await fakeApi(slowAfterFollowup(3_000))
    const { gitlab, job } = await mergeRequest()
    try {
      const own = gitlab.projects.addPipeline(42, 7, C1)
      const first = command(
        against(api, '--prompt', 'Review the merge request.', ...STEER),
        job(C1, 9001, own.id),
      )
      await until(() => api.allRuns()[0]?.state === 'INPROGRESS', 'the run works')
      const runId = api.allRuns()[0]?.run_id ?? ''
      gitlab.projects.setPipeline(own.id, 'canceled')
      first.kill('SIGTERM')
      const result = await first.done
      expect(result.code, result.stderr).toBe(143)
      expect(api.run(runId)?.state).toBe('CANCELLED')
      expect(JSON.parse(result.stdout) as Answer).toMatchObject({ outcome: 'interrupted' })
    } finally {
      await gitlab.close()
    }
  })
})

describeNeedsProcess('a signal while GitLab answers slowly (a process)', () => {
  it('exits 143 with the outputs at once, the run cancelled, whatever the note is waiting for', async () => {
    const api = await fakeApi({ script: () => working })
    const { gitlab, job } = await mergeRequest()
    try {
      // GitLab reads every note request and answers none (within the command's 8 s deadline).
      gitlab.stopAnswering('*', /\/notes/)
      const running = command(
        against(api, '--prompt', 'Review the merge request.', '--name', 'review', '--json'),
        job(C1, 9001, 8001),
      )
      await until(() => api.allRuns()[0]?.state === 'INPROGRESS', 'the run works')
      running.kill('SIGTERM')
      const result = await running.done
      expect(result.code, result.stderr).toBe(143)
      expect(JSON.parse(result.stdout) as Answer).toMatchObject({ outcome: 'interrupted' })
      expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED'])
      // The note's last write has 2 s after a signal; the GitLab call's 8 s deadline never holds
      // it: the note's calls that were under way were cut, not answered (GitLab answers none),
      // so the command ended by its own bound (no wall-clock figure; this test's timeout).
      expect(
        gitlab.requests.filter((request) => /\/notes/.test(request.path)).length,
      ).toBeGreaterThan(0)
    } finally {
      await gitlab.close()
    }
  })
})
