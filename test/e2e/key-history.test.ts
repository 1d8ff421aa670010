/**
 * A set (`tasks`) and a single run that share a key keep one report on the pull request or merge
 * request, and one collapsed history of the key that holds both kinds: whichever kind writes
 * next keeps the other's earlier entries (issue 34, item 2): the step's comment on the pull request.
 */
import { describe, expect, it } from 'vitest'
import type { RunScript } from '../fake-api/server.ts'
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
