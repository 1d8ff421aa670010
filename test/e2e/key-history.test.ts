/**
 * A set (`tasks`) and a single run that share a key keep one report on the pull request or merge
 * request, and one collapsed history of the key that holds both kinds: whichever kind writes
 * next keeps the other's earlier entries (issue 34, item 2). On GitHub, the step's comment; on
 * GitLab, the command's merge request note.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import type { RunScript } from '../fake-api/server.ts'
import { FakeGitLab } from '../fake-gitlab/server.ts'
import { against, command, newDirectory } from './command.ts'
import { runStep } from './harness.ts'
import { e2eServers, eventEnv } from './servers.ts'

const KEY = 'sk-e2e-key-history-3f9a'
const { fakeApi, fakeGitHub, inputsFor } = e2eServers(KEY)

/** "fail …" fails; anything else succeeds. */
function byPrompt(create: { prompt?: string }): RunScript {
  const end = (create.prompt ?? '').startsWith('fail') ? 'FAILED' : 'SUCCEEDED'
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 50 },
    { state: end, afterMs: 300 },
  ]
}

const OWNER = 'octo-org'
const REPO = 'app'
const PR = 21

async function pullRequest() {
  const api = await fakeApi({ script: byPrompt })
  const gh = await fakeGitHub()
  const env = eventEnv(gh, 'pull_request', {
    pull_request: { number: PR, head: { sha: 'b0a7'.padEnd(40, '0') } },
    repository: { full_name: `${OWNER}/${REPO}` },
  })
  const step = async (extra: Record<string, string>) => {
    const result = await runStep({
      inputs: inputsFor(api, { comment: 'true', name: 'review', ...extra }),
      env,
    })
    expect(result.code, result.stdout).not.toBeNull()
    return result
  }
  const comment = () => {
    const comments = gh.comments(OWNER, REPO, PR)
    expect(comments).toHaveLength(1)
    return comments[0]?.body ?? ''
  }
  return { step, comment }
}

/** The comment's collapsed history: its heading and its lines. */
function historyOf(body: string): string {
  const at = body.lastIndexOf('<details><summary>Earlier ')
  return at < 0 ? '' : body.slice(at)
}

describe('GitHub: a set and a run of one key keep each other in the comment’s history', () => {
  it('a set after a run: the comment shows the set, and the run in its history', async () => {
    const { step, comment } = await pullRequest()
    const single = await step({ prompt: 'fail: one' })
    expect(single.outputs.outcome).toBe('failed')
    const runId = single.outputs.run_id ?? 'no run'
    const set = await step({ tasks: JSON.stringify(['ok: a', 'ok: b']) })
    expect(set.outputs.outcome).toBe('succeeded')

    const body = comment()
    expect(body).toMatch(/^<!-- cloud-agent-set: \{"key":"review"/)
    expect(body).toContain('### ✅ Cloud agent tasks: succeeded')
    const history = historyOf(body)
    expect(history).toMatch(/^<details><summary>Earlier runs \(1\)<\/summary>/)
    expect(history).toMatch(new RegExp(`- ❌ failed · run \`${runId}\` · `))
  })

  it('a run after a set, then a set again: every earlier run and set stays, newest first', async () => {
    const { step, comment } = await pullRequest()
    const set = await step({ tasks: JSON.stringify(['fail: a']) })
    expect(set.outputs.outcome).toBe('failed')
    const single = await step({ prompt: 'ok: one' })
    expect(single.outputs.outcome).toBe('succeeded')

    let body = comment()
    expect(body).toMatch(/^<!-- cloud-agent-run: /)
    expect(body).toContain(single.outputs.run_id ?? 'no run')
    let history = historyOf(body)
    expect(history).toMatch(/^<details><summary>Earlier sets \(1\)<\/summary>/)
    expect(history).toContain('- ❌ failed · 1 of 1 done')

    const again = await step({ tasks: JSON.stringify(['ok: b']) })
    expect(again.outputs.outcome).toBe('succeeded')
    body = comment()
    expect(body).toMatch(/^<!-- cloud-agent-set: /)
    history = historyOf(body)
    expect(history).toMatch(/^<details><summary>Earlier runs and sets \(2\)<\/summary>/)
    const lines = history.split('\n').filter((line) => line.startsWith('- '))
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(
      new RegExp(`^- ✅ succeeded · run \`${single.outputs.run_id ?? 'no run'}\` · `),
    )
    expect(lines[1]).toMatch(/^- ❌ failed · 1 of 1 done · /)
  })
})

const gitlabs: FakeGitLab[] = []
afterAll(async () => {
  await Promise.all(gitlabs.splice(0).map((gitlab) => gitlab.close()))
})

/** Jobs of one key ("review") in merge request pipelines of !7, each running the command. */
async function mergeRequest() {
  const api = await fakeApi({ script: byPrompt })
  const gitlab = await FakeGitLab.start()
  gitlabs.push(gitlab)
  let jobs = 0
  const job = async (...args: string[]) => {
    jobs += 1
    const cwd = newDirectory()
    writeFileSync(join(cwd, 'tasks.json'), JSON.stringify(['ok: a', 'fail: b']))
    const result = await command(
      against(api, '--name', 'review', '--json', ...args),
      {
        WARP_API_KEY: KEY,
        GITLAB_CI: 'true',
        CI_PIPELINE_SOURCE: 'merge_request_event',
        CI_API_V4_URL: gitlab.apiUrl,
        CI_PROJECT_ID: '42',
        CI_PROJECT_PATH: 'group/app',
        CI_MERGE_REQUEST_IID: '7',
        CI_JOB_NAME: 'review',
        CI_JOB_ID: String(9000 + jobs),
        CI_JOB_URL: `https://gitlab.example/group/app/-/jobs/${9000 + jobs}`,
        GITLAB_TOKEN: 'glpat-fake',
      },
      cwd,
    ).done
    expect(result.code, result.stderr).not.toBeNull()
    return JSON.parse(result.stdout) as { run_id?: string; outcome?: string }
  }
  const note = () => {
    const notes = gitlab.notes(42, 7)
    expect(notes).toHaveLength(1)
    return notes[0]?.body ?? ''
  }
  return { job, note }
}

describe('GitLab: a set and a run of one key keep each other in the note’s history', () => {
  it('a set after a run: the note shows the set, and the run in its history', async () => {
    const { job, note } = await mergeRequest()
    const single = await job('--prompt', 'fail: one')
    expect(single.outcome).toBe('failed')
    const set = await job('--tasks-file', 'tasks.json')
    expect(set.outcome).toBe('failed')

    const history = historyOf(note())
    expect(history).toMatch(/^<details><summary>Earlier runs \(1\)<\/summary>/)
    expect(history).toMatch(
      new RegExp(
        `- ❌ failed · run \`${single.run_id ?? 'no run'}\` · .*\\[CI job\\]\\(https://gitlab\\.example/group/app/-/jobs/9001\\)`,
      ),
    )
  })

  it('a run after a set, then a run again: the set and the first run stay, newest first', async () => {
    const { job, note } = await mergeRequest()
    const set = await job('--tasks-file', 'tasks.json')
    expect(set.outcome).toBe('failed')
    const first = await job('--prompt', 'ok: one')
    expect(first.outcome).toBe('succeeded')
    expect(historyOf(note())).toMatch(/^<details><summary>Earlier sets \(1\)<\/summary>/)
    expect(historyOf(note())).toContain('- ❌ failed · 2 of 2 done')

    const second = await job('--prompt', 'ok: two')
    expect(second.outcome).toBe('succeeded')
    const body = note()
    expect(body).toContain(`"run":"${second.run_id ?? 'no run'}"`)
    const lines = historyOf(body)
      .split('\n')
      .filter((line) => line.startsWith('- '))
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(new RegExp(`^- ✅ succeeded · run \`${first.run_id ?? 'no run'}\` · `))
    expect(lines[1]).toMatch(/^- ❌ failed · 2 of 2 done · /)
  })
})
