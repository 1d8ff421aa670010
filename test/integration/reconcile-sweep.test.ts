/**
 * The sweep's variants, in process: reconcilePass against the fake API and the
 * fake GitHub over loopback, each run seeded with the metadata a step gives it
 * and the comments its steps left. test/e2e/reconcile.test.ts follows one case
 * of each kind through the action.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { AgentRunsClient } from '../../src/api/client.ts'
import type { RunEntry } from '../../src/model/key-history.ts'
import { renderMarker } from '../../src/github/run-marker.ts'
import { GitHubContext } from '../../src/github/context.ts'
import { RepositoryDesk } from '../../src/github/repository-desk.ts'
import type { Log } from '../../src/log.ts'
import { reconcilePass } from '../../src/reconcile/pass.ts'
import { readRunnerWorld } from '../../src/runner.ts'
import { FakeAgentApi } from '../fake-api/server.ts'
import { FakeGitHub } from '../fake-github/server.ts'

const KEY = 'sk-reconcile-sweep'
const TOKEN = 'ghs_sweep'
const OWNER = 'octo-org'
const REPO = 'app'
const PR = 7
const FIRST = 9876543210
const NEWER = 9876543299

const closers: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((server) => server.close()))
})

async function start() {
  const api = await FakeAgentApi.start({ apiKey: KEY })
  const gh = await FakeGitHub.start({ token: TOKEN })
  closers.push(api, gh)
  const client = new AgentRunsClient({ baseUrl: api.baseUrl, apiKey: KEY, maxRetries: 0 })
  const world = readRunnerWorld(
    { GITHUB_API_URL: gh.apiUrl, GITHUB_REPOSITORY: `${OWNER}/${REPO}` },
    process.cwd(),
  )
  const desk = await RepositoryDesk.open(new GitHubContext(TOKEN, world), `${OWNER}/${REPO}`)
  const lines: string[] = []
  const push = (line: string) => void lines.push(line)
  const log: Log = { info: push, warning: push, debug: () => undefined }
  const pass = () =>
    reconcilePass(
      { repository: `${OWNER}/${REPO}`, lookbackMs: 60 * 60_000, sweep: true, dryRun: false },
      { client, desk, now: Date.now, sleep: async () => undefined, log },
    )
  return { api, gh, lines, pass }
}

/** A run still working, tagged as a step in workflow run FIRST (attempt `attempt`) tags it. */
function seedWorking(api: FakeAgentApi, metadata: Record<string, string>, attempt = 1) {
  return api.seedRun(
    {
      prompt: 'Review',
      metadata: {
        gh_repository: `${OWNER}/${REPO}`,
        gh_run_id: String(FIRST),
        gh_run_attempt: String(attempt),
        gh_thread: String(PR),
        gh_key: 'Agent review/review',
        ...metadata,
      },
    },
    { script: [{ state: 'INPROGRESS', afterMs: 0 }] },
  )
}

/** The comment a step left on the thread, listing the run as `record` says. */
function leaveComment(gh: FakeGitHub, runId: string, record: Partial<RunEntry>, reply = false) {
  const body = renderMarker({
    runId,
    step: 'answer/agent',
    key: 'Agent review/review',
    reply: reply || undefined,
    runs: [{ runId, state: 'INPROGRESS', startedAt: new Date().toISOString(), ...record }],
  })
  gh.addComment(OWNER, REPO, PR, `${body}\n### ⏳ Review`, 'github-actions[bot]')
}

const runsUrl = (id: number, attempt = 1) =>
  `https://github.com/${OWNER}/${REPO}/actions/runs/${id}/attempts/${attempt}`

describe('the sweep, by the step that waits now', () => {
  it('leaves the run of a step with no comment whose workflow run succeeded: no runner was lost', async () => {
    const { api, gh, lines, pass } = await start()
    const run = seedWorking(api, { gh_wait: 'true', gh_report: '' })
    gh.setWorkflowRun(OWNER, REPO, FIRST, { status: 'completed', conclusion: 'success' })

    const report = await pass()

    expect(report.rows.map((row) => row.action)).toEqual(['left'])
    expect(api.run(run.run_id)?.state).toBe('INPROGRESS')
    expect(lines).toContain(
      `Run ${run.run_id}: left: its workflow run succeeded, and a lost runner fails its job: its step ended on purpose and let it run on`,
    )
  })

  it("never touches a GitLab project's run of the same path: it is another forge's", async () => {
    const { api, gh, pass } = await start()
    const gitlab = seedWorking(api, { gh_forge: 'gitlab', gh_wait: 'true', gh_report: '' })
    const github = seedWorking(api, { gh_forge: 'github', gh_wait: 'true', gh_report: '' })
    gh.setWorkflowRun(OWNER, REPO, FIRST, {
      status: 'completed',
      conclusion: 'success',
      runAttempt: 2,
    })

    const report = await pass()

    expect(report.rows.map((row) => row.runId)).toEqual([github.run_id])
    expect(api.run(gitlab.run_id)?.state).toBe('INPROGRESS')
    expect(api.run(github.run_id)?.state).toBe('CANCELLED')
  })

  it("sweeps it when a later attempt ran: the step's own attempt's conclusion is not known", async () => {
    const { api, gh, pass } = await start()
    const run = seedWorking(api, { gh_wait: 'true', gh_report: '' })
    gh.setWorkflowRun(OWNER, REPO, FIRST, {
      status: 'completed',
      conclusion: 'success',
      runAttempt: 2,
    })

    const report = await pass()

    expect(report.rows.map((row) => row.action)).toEqual(['swept'])
    expect(api.run(run.run_id)?.state).toBe('CANCELLED')
  })

  it('sweeps a run a continue_run step followed up after a detached start, once that step is lost', async () => {
    const { api, gh, lines, pass } = await start()
    const run = seedWorking(api, { gh_wait: 'false', gh_report: 'comment' })
    leaveComment(gh, run.run_id, { outcome: 'started', workflowRun: runsUrl(FIRST) })
    leaveComment(gh, run.run_id, { workflowRun: runsUrl(NEWER) }, true)
    gh.setWorkflowRun(OWNER, REPO, NEWER, { status: 'completed', conclusion: 'cancelled' })

    const report = await pass()

    expect(report.rows.map((row) => row.action)).toEqual(['swept'])
    expect(api.run(run.run_id)?.state).toBe('CANCELLED')
    expect(lines.join('\n')).toContain(`(${NEWER}) completed: that step's runner was lost`)
    const answer = gh.comments(OWNER, REPO, PR)[1]?.body ?? ''
    expect(answer).toContain('The step that waited for this run lost its runner')
    // The answer stays an answer, under its own key, linking its own workflow run.
    expect(answer).toContain('"reply":true')
    expect(answer).toContain(`/actions/runs/${NEWER}/attempts/1`)
  })

  it('sweeps a run whose step ended meaning to stop it (timed out) when the cancel did not take', async () => {
    const { api, gh, lines, pass } = await start()
    const run = seedWorking(api, { gh_wait: 'true', gh_report: 'comment' })
    leaveComment(gh, run.run_id, { outcome: 'timed_out', workflowRun: runsUrl(FIRST) })
    gh.setWorkflowRun(OWNER, REPO, FIRST, { status: 'completed', conclusion: 'failure' })

    const report = await pass()

    expect(report.rows.map((row) => row.action)).toEqual(['swept'])
    expect(lines.join('\n')).toContain(
      `after its step ended timed_out and that step's workflow run (${FIRST}) completed: the step's cancel did not stop it`,
    )
  })

  it('sweeps the runs of a tasks step started before task runs carried a hand-over', async () => {
    const { api, gh, pass } = await start()
    const run = api.seedRun(
      {
        prompt: 'one',
        metadata: {
          gh_repository: `${OWNER}/${REPO}`,
          gh_run_id: String(FIRST),
          gh_run_attempt: '1',
          gh_set: 'set-1',
          gh_task: '0',
        },
      },
      { script: [{ state: 'INPROGRESS', afterMs: 0 }] },
    )
    gh.setWorkflowRun(OWNER, REPO, FIRST, { status: 'completed', conclusion: 'failure' })

    const report = await pass()

    expect(report.rows.map((row) => row.action)).toEqual(['swept'])
    expect(api.run(run.run_id)?.state).toBe('CANCELLED')
  })
})
