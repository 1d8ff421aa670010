/**
 * The command owns its runs (contract v1.4, "A door owns its runs"): it has no post step, so it
 * leaves nothing running that it made or may have made, whatever ends it: a signal (also while
 * its create is unanswered), a lost create answer, a reader that closes its output early, a
 * summary it cannot write. And it answers the same way on every exit: one JSON object with
 * `--json`, the exit table's code, its own words (never a post step's or a workflow's).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from './concurrent.ts'
import { expect } from 'vitest'
import { against, command, finishing, newDirectory, working } from './command.ts'
import { describeNeedsProcess, until } from './harness.ts'
import { e2eServers } from './servers.ts'

const KEY = 'sk-cli-owns-3e9d1a'
const { fakeApi } = e2eServers(KEY)
const WITH_KEY = { WARP_API_KEY: KEY }

/** Words of another door, which no line of the command may print. */
const GITHUB_WORDS = /post step|workflow|job summary|cancel_previous|github\.token/i

interface Answer {
  outcome?: string
  exit_code?: number
  error?: string
  cancelled?: unknown
}

describe('the command answers the same way on every exit', () => {
  it('prints one JSON object with outcome, exit_code and error also for a bad flag or a missing key', async () => {
    const api = await fakeApi()
    for (const [args, env, says] of [
      [['--prompt', 'x', '--promt', 'y', '--json'], WITH_KEY, /Unknown flag --promt/],
      [['--prompt', 'x', '--json'], {}, /WARP_API_KEY is not set/],
      [['--prompt', 'x', '--timeout', 'soon', '--json'], WITH_KEY, /timeout/],
    ] as const) {
      const result = await command(against(api, ...args), env).done
      expect(result.code, args.join(' ')).toBe(2)
      const answer = JSON.parse(result.stdout) as Answer
      expect(answer).toMatchObject({ outcome: 'error', exit_code: 2 })
      expect(answer.error).toMatch(says)
    }
    expect(api.requests).toHaveLength(0)
  })

  it('names its flags, never a GitHub input: --previous-run steer outside GitHub is refused before any request', async () => {
    const api = await fakeApi()
    const result = await command(
      against(api, '--prompt', 'x', '--name', 'review', '--previous-run', 'steer', '--json'),
      WITH_KEY,
    ).done

    expect(result.code).toBe(2)
    const answer = JSON.parse(result.stdout) as Answer
    expect(answer.error).toMatch(/^--previous-run cannot be steer here: .*--previous-run cancel/)
    expect(result.stderr).not.toMatch(GITHUB_WORDS)
    expect(result.stderr).not.toContain('Input "')
    expect(api.requests).toHaveLength(0)
  })

  it('exits 124 when the timeout passes, the run cancelled, as timeout(1) does', async () => {
    const api = await fakeApi({ script: () => working })
    const result = await command(
      against(api, '--prompt', 'Work for ever', '--timeout', '1s', '--json'),
      WITH_KEY,
    ).done

    expect(result.code, result.stderr).toBe(124)
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'timed_out', exit_code: 124 })
    expect(api.allRuns()[0]?.state).toBe('CANCELLED')
  })

  it('--cancel-only lists the runs it cancelled', async () => {
    const api = await fakeApi({ script: () => working })
    const project = { gh_forge: 'none', gh_repository: 'acme/tools' }
    const mine = api.seedRun(
      { prompt: 'a', config: { name: 'nightly' }, metadata: project },
      { script: working },
    )
    const args = ['--cancel-only', '--name', 'nightly', '--project', 'acme/tools', '--json']
    const result = await command(against(api, ...args), WITH_KEY).done

    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ cancelled: [mine.run_id], exit_code: 0 })
    expect(api.run(mine.run_id)?.state).toBe('CANCELLED')
  })

  it('--cancel-only cancels an orchestrating run with its tree, and lists the run alone', async () => {
    const api = await fakeApi({ script: () => working })
    const project = { gh_forge: 'none', gh_repository: 'acme/tools' }
    // Its children have its name too: they are still part of it, never runs of the name.
    const child = { config: { name: 'nightly' }, script: working }
    const lead = api.seedRun(
      { prompt: 'a', config: { name: 'nightly' }, metadata: project },
      { script: [{ state: 'INPROGRESS', afterMs: 0, spawn: [child, child] }] },
    )
    const args = ['--cancel-only', '--name', 'nightly', '--project', 'acme/tools', '--json']
    const result = await command(against(api, ...args), WITH_KEY).done

    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ cancelled: [lead.run_id], exit_code: 0 })
    expect(api.tree(lead.run_id).map((run) => run.state)).toEqual([
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
    ])
  })

  it('--prompt-file - reads the prompt from standard input; WARP_API_KEY_FILE names the key', async () => {
    const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
    const cwd = newDirectory()
    writeFileSync(join(cwd, 'key'), `${KEY}\n`)
    const result = await command(
      against(api, '--prompt-file', '-', '--json'),
      { WARP_API_KEY_FILE: join(cwd, 'key') },
      cwd,
      { stdin: 'Explain the "build" step; don\'t guess.\n' },
    ).done

    expect(result.code, result.stderr).toBe(0)
    expect(api.allRuns()[0]?.prompt).toBe('Explain the "build" step; don\'t guess.')
    expect(`${result.stdout}${result.stderr}`).not.toContain(KEY)
  })
})

describe('the command leaves nothing running', () => {
  it('--summary into a folder that does not exist: exit 2 before any request, nothing paid for', async () => {
    const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
    const cwd = newDirectory()
    const result = await command(
      against(api, '--prompt', 'x', '--summary', 'missing/summary.md', '--json'),
      WITH_KEY,
      cwd,
    ).done

    expect(result.code).toBe(2)
    expect((JSON.parse(result.stdout) as Answer).error).toContain('missing')
    expect(api.requests).toHaveLength(0)
  })

  it('a summary it cannot write once the run ended: exit 1, said in the JSON, no run left', async () => {
    const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
    const cwd = newDirectory()
    // A folder where the file should be: writable folder, unwritable file (as a full disk fails).
    mkdirSync(join(cwd, 'summary.md'))
    const result = await command(
      against(api, '--prompt', 'x', '--summary', 'summary.md', '--json'),
      WITH_KEY,
      cwd,
    ).done

    expect(result.code).toBe(1)
    const answer = JSON.parse(result.stdout) as Answer
    expect(answer).toMatchObject({ outcome: 'succeeded', exit_code: 1 })
    expect(answer.error).toContain('could not be written')
    expect(api.allRuns()[0]?.state).toBe('SUCCEEDED')
  })

  it('a lost create answer whose run the list shows only later: found by its tag and cancelled before the command exits', async () => {
    const api = await fakeApi(
      { script: () => working },
      // The run is made, then the gateway answers 502.
      { method: 'POST', path: '/agent/run', fault: { kind: 'status', status: 502, act: true } },
    )
    // The list lags behind the create for as long as the step's own look for the run lasts.
    api.lagList(() => true)
    const running = command(against(api, '--prompt', 'Fix the build', '--json'), WITH_KEY)
    await until(
      () => api.requestsTo('GET', '/agent/runs').length >= 4,
      "the step's own look for the run",
    )
    api.lagList(undefined)
    const result = await running.done

    expect(result.code).toBe(1)
    const [run] = api.allRuns()
    expect(run?.state).toBe('CANCELLED')
    expect(api.allRuns()).toHaveLength(1)
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'error', exit_code: 1 })
    expect(result.stderr).toContain('before it exits')
    expect(result.stderr).not.toMatch(GITHUB_WORDS)
  })

  // A signal and a closed pipe are a process's own.
  describeNeedsProcess('as a process', () => {
    it('SIGTERM while the create is unanswered: the run it made is found and cancelled, then exit 143 with the JSON', async () => {
      const api = await fakeApi(
        { script: () => working },
        // The run is made only after 3 s, and its answer comes then.
        { method: 'POST', path: '/agent/run', fault: { kind: 'delay', ms: 3_000 } },
      )
      const running = command(against(api, '--prompt', 'Work for ever', '--json'), WITH_KEY)
      await api.waitForRequest('POST', '/agent/run')
      running.kill('SIGTERM')
      const result = await running.done

      expect(result.code, result.stderr).toBe(143)
      expect(JSON.parse(result.stdout)).toMatchObject({ exit_code: 143 })
      expect(api.allRuns()).toHaveLength(1)
      expect(api.allRuns()[0]?.state).toBe('CANCELLED')
      expect(result.stderr).not.toMatch(GITHUB_WORDS)
    })

    it('SIGTERM while --prompt-file - still reads standard input: exit 143 with one JSON object, nothing made', async () => {
      const api = await fakeApi({ script: () => working })
      for (const [signal, code] of [
        ['SIGTERM', 143],
        ['SIGINT', 130],
      ] as const) {
        const reading = command(against(api, '--prompt-file', '-', '--json'), WITH_KEY, undefined, {
          openStdin: true,
        })
        await reading.said(/Reading the prompt from standard input/)
        reading.kill(signal)
        const result = await reading.done

        expect(result.code, result.stderr).toBe(code)
        expect(JSON.parse(result.stdout)).toEqual({ outcome: 'interrupted', exit_code: code })
        expect(result.stderr).toContain(`received ${signal} before any run was made`)
        expect(result.stderr).not.toMatch(GITHUB_WORDS)
      }
      expect(api.requests).toHaveLength(0)
    })

    it('a reader that closes stdout and stderr at once (| head) ends nothing early and orphans nothing', async () => {
      const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
      const result = await command(against(api, '--prompt', 'Summarise'), WITH_KEY, undefined, {
        closedOutput: true,
      }).done

      expect(result.code).toBe(0)
      expect(api.allRuns()[0]?.state).toBe('SUCCEEDED')
    })
  })
})
