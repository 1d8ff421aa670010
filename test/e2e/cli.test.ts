/**
 * The command line, `cloud-agent-run`, end to end: the command spawned as a shell would spawn
 * it, or in `npm test` its door in-process (test/e2e/command.ts); against the fake API on
 * loopback. Exit codes, the JSON on stdout and the log on stderr, the summary, signals (a
 * process's own).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { describe, it } from './concurrent.ts'
import { afterAll, expect } from 'vitest'
import { GITHUB_ONLY_INPUTS } from '../../src/cli/flags.ts'
import type { RunScript } from '../fake-api/server.ts'
import { FakeGitLab } from '../fake-gitlab/server.ts'
import { against, command, finishing, newDirectory, working } from './command.ts'
import { describeNeedsProcess, ROOT } from './harness.ts'
import { e2eServers, UNREACHABLE_BASE_URL } from './servers.ts'

const KEY = 'sk-cli-e2e-5f2a9c'
const { fakeApi } = e2eServers(KEY)
const gitlabs: FakeGitLab[] = []
afterAll(async () => {
  await Promise.all(gitlabs.map((gitlab) => gitlab.close()))
})

const WITH_KEY = { WARP_API_KEY: KEY }

describe('cloud-agent-run: the command line', () => {
  it('succeeds: exit 0, the outputs as one JSON object on stdout, the log on stderr', async () => {
    const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
    const cwd = newDirectory()
    const result = await command(
      // An absolute path is taken as it is; a relative one from the working directory.
      against(
        api,
        '--prompt',
        'Summarise the repository',
        '--json',
        '--summary',
        join(cwd, 'summary.md'),
      ),
      WITH_KEY,
      cwd,
    ).done

    expect(result.code, result.stderr).toBe(0)
    const outputs = JSON.parse(result.stdout) as Record<string, unknown>
    expect(outputs).toMatchObject({ outcome: 'succeeded', state: 'SUCCEEDED', result: 'All done.' })
    // JSON values, not JSON text.
    expect(outputs.credits).toBe(1.5)
    expect(outputs.run).toMatchObject({ run_id: outputs.run_id })
    expect(result.stderr).toMatch(/Created run run_\S+; it is QUEUED\./)
    expect(result.stderr).not.toMatch(/^::/m)
    expect(`${result.stdout}${result.stderr}`).not.toContain(KEY)
    expect(readFileSync(join(cwd, 'summary.md'), 'utf8')).toMatch(/^### ✅ /)
    expect(api.requestsTo('POST', /\/agent\/runs?$/)).toHaveLength(1)
  })

  it('a run that fails: exit 1, and the summary as plain text on stdout without --json', async () => {
    const api = await fakeApi({ script: () => finishing('FAILED') })
    const result = await command(against(api, '--prompt', 'Fix the build'), WITH_KEY).done

    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/^❌ Fix the build failed$/m)
    expect(result.stdout).toContain('Status message: The tests do not build.')
    expect(result.stdout).not.toMatch(/<\/?\w+|\|---/)
    expect(result.stderr).toMatch(/^error: Run run_\S+ ended FAILED: The tests do not build\.$/m)
  })

  it('bad input: exit 2 and a message naming it, before any request', async () => {
    const api = await fakeApi()
    for (const [args, env, says] of [
      [['--prompt', 'x', '--timeout', 'soon'], WITH_KEY, /--timeout must be a duration/],
      [['--prompt', 'x'], {}, /WARP_API_KEY is not set/],
      [['--prompt', 'x', '--api-key', KEY], WITH_KEY, /The key is never a flag/],
      [
        ['--prompt', 'x', '--comment'],
        WITH_KEY,
        /--comment only means something in a GitHub Actions workflow/,
      ],
      [['--prompt', 'x', '--promt', 'y'], WITH_KEY, /Unknown flag --promt/],
    ] as const) {
      const result = await command(against(api, ...args), env).done
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toMatch(says)
      expect(result.stderr).not.toContain(KEY)
    }
    expect(api.requests).toHaveLength(0)
  })

  it('a key the service refuses: exit 3, and nothing was created', async () => {
    const api = await fakeApi()
    const result = await command(against(api, '--prompt', 'x', '--json'), {
      WARP_API_KEY: 'sk-not-the-right-key',
    }).done

    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/401/)
    expect(api.allRuns()).toHaveLength(0)
  })

  it('a --tasks-file set whose every create is refused by the key (401, 403) or cannot reach the service: exit 3, as for one run', async () => {
    const cwd = newDirectory()
    writeFileSync(join(cwd, 'tasks.yml'), '- Update package a\n- Update package b\n')
    const set = ['--tasks-file', 'tasks.yml', '--json']
    /** The service, each create refused with `status` (a key without the permission: 403). */
    const refusingWith = (status: number, times: number) =>
      fakeApi(
        { script: () => finishing('FAILED') },
        {
          method: 'POST',
          path: '/agent/run',
          times,
          fault: { kind: 'status', status },
        },
      )
    const wrongKey = await fakeApi()
    const forbidden = await refusingWith(403, 2)
    const nowhere = UNREACHABLE_BASE_URL
    for (const [args, env] of [
      [against(wrongKey, ...set), { WARP_API_KEY: 'sk-not-the-right-key' }],
      [against(forbidden, ...set), WITH_KEY],
      [['--base-url', nowhere, ...set], WITH_KEY],
    ] as const) {
      const result = await command([...args], env, cwd).done
      expect(result.code, result.stderr).toBe(3)
      expect(JSON.parse(result.stdout)).toMatchObject({ exit_code: 3, outcome: 'failed' })
    }
    expect([...wrongKey.allRuns(), ...forbidden.allRuns()]).toHaveLength(0)
    // One task made a run: the set ran and did not pass (exit 1).
    const partly = await refusingWith(401, 1)
    const result = await command(against(partly, ...set), WITH_KEY, cwd).done
    expect(result.code, result.stderr).toBe(1)
    expect(partly.allRuns()).toHaveLength(1)
  })

  // The command hears the signals of its own process.
  describeNeedsProcess('signals', () => {
    it.each([
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const)('%s cancels the run it started, then exits %i', async (signal, code) => {
      const api = await fakeApi({ script: () => working })
      const running = command(against(api, '--prompt', 'Work for a long time', '--json'), WITH_KEY)
      await api.waitForRequest('GET', /\/agent\/runs\/[^/]+$/)
      running.kill(signal)
      const result = await running.done

      expect(result.code).toBe(code)
      const [run] = api.allRuns()
      expect(run?.state).toBe('CANCELLED')
      expect((JSON.parse(result.stdout) as { outcome?: string }).outcome).toBe('interrupted')
    })

    it('a hard kill outside any CI: cleanup with the same CLOUD_AGENT_RUN_DIR cancels what it left (Jenkins post { always })', async () => {
      const api = await fakeApi({ script: () => working })
      const cwd = newDirectory()
      const env = { ...WITH_KEY, CLOUD_AGENT_RUN_DIR: '.cloud-agent-run' }
      const running = command(
        against(api, '--prompt', 'Work for a long time', '--project', 'jenkins/app'),
        env,
        cwd,
      )
      await api.waitForRequest('GET', /\/agent\/runs\/[^/]+$/)
      running.kill('SIGKILL')
      await running.done
      expect(api.allRuns().map((run) => run.state)).toEqual(['INPROGRESS'])

      const cleanup = await command(['cleanup'], env, cwd).done
      expect(cleanup.code, cleanup.stderr).toBe(0)
      expect(api.allRuns().map((run) => run.state)).toEqual(['CANCELLED'])
      const again = await command(['cleanup'], env, cwd).done
      expect(again.code).toBe(0)
      expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(1)
    })
  })

  it('--no-wait: starts the run and exits 0 with outcome started', async () => {
    const api = await fakeApi({ script: () => working })
    const result = await command(against(api, '--prompt', 'Go on', '--no-wait', '--json'), WITH_KEY)
      .done

    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'started' })
    // Left working: the command neither waits for it nor cancels it.
    expect(api.allRuns()).toHaveLength(1)
    expect(api.requestsTo('POST', /\/cancel$/)).toHaveLength(0)
  })

  it('--tasks-file: a set from a YAML file, its runs as a JSON array', async () => {
    const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
    const cwd = newDirectory()
    writeFileSync(
      join(cwd, 'tasks.yml'),
      '- Update package a\n- prompt: Update package b\n  title: B\n',
    )
    const result = await command(against(api, '--tasks-file', 'tasks.yml', '--json'), WITH_KEY, cwd)
      .done

    expect(result.code, result.stderr).toBe(0)
    const { runs, outcome } = JSON.parse(result.stdout) as { runs: unknown[]; outcome: string }
    expect(outcome).toBe('succeeded')
    expect(runs).toHaveLength(2)
    expect(runs[1]).toMatchObject({ task: 1, title: 'B', outcome: 'succeeded' })
  })

  it('--output-schema: the validated document as a JSON value', async () => {
    const document = { risk: 'low', files: ['a.ts'] }
    const api = await fakeApi({
      script: () =>
        finishing('SUCCEEDED', `Done.\n\n\`\`\`json\n${JSON.stringify(document)}\n\`\`\``),
    })
    const cwd = newDirectory()
    writeFileSync(
      join(cwd, 'schema.yml'),
      'type: object\nrequired: [risk]\nproperties:\n  risk: { enum: [low, high] }\n',
    )
    const result = await command(
      against(api, '--prompt', 'Assess', '--output-schema', 'schema.yml', '--json'),
      WITH_KEY,
      cwd,
    ).done

    expect(result.code, result.stderr).toBe(0)
    expect((JSON.parse(result.stdout) as { structured_output: unknown }).structured_output).toEqual(
      document,
    )
  })

  it("--version says the package's version", async () => {
    const result = await command(['--version']).done
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string
    }
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`cloud-agent-run ${version}\n`)
  })

  it('--help lists a flag for every input of action.yml, with its default', async () => {
    const result = await command(['--help']).done
    expect(result.code).toBe(0)
    const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { default?: string }>
    }
    for (const [name, input] of Object.entries(action.inputs)) {
      if (name === 'api_key') continue
      const flag = `--${name.replace(/_/g, '-')}`
      expect(result.stdout).toContain(flag)
      if ((GITHUB_ONLY_INPUTS as readonly string[]).includes(name)) {
        expect(result.stdout).toMatch(
          new RegExp(`${flag}(, --no-[\\w-]+)? \\(GitHub Actions only\\)`),
        )
      } else if (input.default) {
        expect(result.stdout).toContain(`(default: ${input.default})`)
      }
    }
    expect(result.stdout).not.toContain('--api-key')
  })

  it('--help lists the subcommands, one line each; each has a page of its own that exits 0', async () => {
    const main = await command(['--help']).done
    expect(main.code).toBe(0)
    for (const name of ['report', 'reconcile', 'cleanup', 'campaign']) {
      expect(main.stdout).toMatch(new RegExp(`^  ${name} +\\S.*$`, 'm'))
      const page = await command([name, '--help']).done
      expect(page.code, `${name} --help`).toBe(0)
      expect(page.stdout).toMatch(new RegExp(`^Usage: cloud-agent-run ${name}\\b`))
      expect(page.stderr).toBe('')
    }
  })

  it('docs/cli.md documents every subcommand --help lists, and every GitHub-only flag', async () => {
    const page = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')
    const main = await command(['--help']).done
    const listed = [...main.stdout.matchAll(/^ {2}([a-z]+) {2,}\S/gm)].map((match) => match[1])
    expect(listed).toEqual(['report', 'reconcile', 'cleanup', 'campaign'])
    for (const name of listed) expect(page).toContain(`### \`${name}\``)
    expect(page).toMatch(/CLOUD_AGENT_RUN_DIR[\s\S]*post \{ always \}/)
    const githubOnly = /\*\*Inputs that only mean something on GitHub\*\* \(([^)]*)\)/.exec(page)
    const flags = (githubOnly?.[1] ?? '').match(/--[\w-]+/g) ?? []
    expect(flags.sort()).toEqual(
      GITHUB_ONLY_INPUTS.map((name) => `--${name.replace(/_/g, '-')}`).sort(),
    )
  })

  it("report --help describes the report: its own flags and exit codes, not a run's", async () => {
    const page = await command(['report', '--help']).done
    expect(page.code).toBe(0)
    expect(page.stdout).toContain('  --period\n')
    expect(page.stdout.replace(/\s+/g, ' ')).toContain('Empty means 7d, or 90d with campaign.')
    expect(page.stdout).toContain('--report-dir')
    expect(page.stdout).toMatch(/0 the report was made/)
    expect(page.stdout).not.toContain('--tasks-file')
    expect(page.stdout).not.toContain('--prompt')
    expect(page.stdout).not.toMatch(/124|Starts a cloud agent run/)
  })

  it('report as plain text (no --json, no --summary) prints no raw Mermaid block', async () => {
    const api = await fakeApi()
    api.seedRun(
      {
        prompt: 'p',
        metadata: { gh_invocation: 'inv-plain', gh_repository: 'jenkins/app', gh_workflow: 'w' },
      },
      {
        script: [
          { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: 7 } } },
        ],
        createdAt: Date.now() - 60_000,
      },
    )
    const result = await command(
      ['report', '--base-url', api.baseUrl, '--project', 'jenkins/app'],
      WITH_KEY,
    ).done
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('1 run in the last 7 days used 7 credits.')
    expect(result.stdout).not.toMatch(/```|mermaid|xychart/)
  })

  it('report refuses --tasks-file rather than take it and ignore it, before any request', async () => {
    const api = await fakeApi()
    const cwd = newDirectory()
    writeFileSync(join(cwd, 'tasks.yml'), '- title: a\n  prompt: b\n')
    const result = await command(
      ['report', '--base-url', api.baseUrl, '--tasks-file', 'tasks.yml', '--json'],
      WITH_KEY,
      cwd,
    ).done
    expect(result.code).toBe(2)
    expect(JSON.parse(result.stdout)).toMatchObject({
      outcome: 'error',
      error: expect.stringMatching(/^report does not take --tasks-file/) as unknown,
    })
    expect(api.requests).toHaveLength(0)
  })

  it('in a GitLab merge request pipeline, keeps one note per key on the merge request, updated in place', async () => {
    const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
    const gitlab = await FakeGitLab.start({ token: 'glpat-cli-e2e' })
    gitlabs.push(gitlab)
    const pipeline = {
      ...WITH_KEY,
      GITLAB_CI: 'true',
      CI_API_V4_URL: gitlab.apiUrl,
      CI_PROJECT_ID: '42',
      CI_PROJECT_PATH: 'group/app',
      CI_MERGE_REQUEST_IID: '7',
      CI_JOB_NAME: 'agent-review',
      CI_JOB_URL: 'https://gitlab.example.test/group/app/-/jobs/99',
      GITLAB_TOKEN: 'glpat-cli-e2e',
    }
    for (const prompt of ['Review the merge request', 'Review it again']) {
      const result = await command(against(api, '--prompt', prompt), pipeline).done
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).not.toContain('glpat-cli-e2e')
    }
    const notes = gitlab.notes(42, 7)
    expect(notes).toHaveLength(1)
    expect(notes[0]?.body).toContain('### ✅ Review it again succeeded')
    expect(notes[0]?.body).toContain('[CI job](https://gitlab.example.test/group/app/-/jobs/99)')
    expect(gitlab.requestsTo('POST', /\/notes$/)).toHaveLength(1)
    expect(gitlab.requestsTo('PUT', /\/notes\/\d+$/).length).toBeGreaterThanOrEqual(3)

    // Without a token: one line says so, and the run goes on.
    const tokenless = { ...pipeline, GITLAB_TOKEN: '' }
    const result = await command(against(api, '--prompt', 'Once more'), tokenless).done
    expect(result.code).toBe(0)
    expect(result.stderr.match(/GITLAB_TOKEN is not set/g)).toHaveLength(1)
    expect(gitlab.notes(42, 7)).toHaveLength(1)
  })

  describe('one identity for every door (v1.4)', () => {
    /** A GitLab merge request pipeline's world, without a token (no note). */
    const mergeRequest = (iid: string) => ({
      ...WITH_KEY,
      GITLAB_CI: 'true',
      CI_PROJECT_PATH: 'group/app',
      CI_MERGE_REQUEST_IID: iid,
      CI_PIPELINE_ID: '500',
      CI_JOB_ID: '9001',
      CI_JOB_NAME: 'agent-review',
      CI_COMMIT_SHA: 'c'.repeat(40),
    })

    it("tags a GitLab job's run with its forge, project, merge request, pipeline, job and head", async () => {
      const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
      const result = await command(against(api, '--prompt', 'Review'), mergeRequest('7')).done

      expect(result.code, result.stderr).toBe(0)
      const [created] = api.allRuns()
      expect(created?.metadata).toMatchObject({
        gh_forge: 'gitlab',
        gh_repository: 'group/app',
        gh_thread: '7',
        gh_run_id: '500',
        gh_step: '9001',
        gh_head_sha: 'c'.repeat(40),
      })
    })

    it("counts a budget by the project's runs whatever made them, and by the merge request's", async () => {
      const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
      const gitlab = { gh_forge: 'gitlab', gh_repository: 'group/app' }
      const spent: RunScript = [
        { state: 'SUCCEEDED', afterMs: 0, patch: { request_usage: { inference_cost: 60 } } },
      ]
      // 120 credits on merge requests !7 and !8 of group/app, and runs that are not this project's.
      for (const metadata of [
        { ...gitlab, gh_thread: '7' },
        { ...gitlab, gh_thread: '8' },
        { ...gitlab, gh_repository: 'group/other' },
        { gh_repository: 'group/app' }, // GitHub's, made before gh_forge: another forge
      ]) {
        api.seedRun({ prompt: 'earlier', metadata }, { script: spent })
      }

      const daily = await command(
        against(api, '--prompt', 'x', '--daily-credit-budget', '100', '--json'),
        mergeRequest('9'),
      ).done
      expect(daily.code, daily.stderr).toBe(1)
      expect(JSON.parse(daily.stdout)).toMatchObject({ outcome: 'over_budget' })
      expect(daily.stderr).toContain('the runs this action started for group/app')
      expect(daily.stderr).toContain('used 120 credits')

      const perRequest = await command(
        against(api, '--prompt', 'x', '--pr-credit-budget', '100', '--json'),
        mergeRequest('7'),
      ).done
      expect(perRequest.code, perRequest.stderr).toBe(0)
      expect(perRequest.stderr).toContain('merge request !7 of group/app')
      expect(perRequest.stderr).toContain('used 60 credits')
    })

    it('refuses a budget with no project to count by (exit 2, before any request); --project names one', async () => {
      const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
      const refused = await command(
        against(api, '--prompt', 'x', '--daily-credit-budget', '10'),
        WITH_KEY,
      ).done
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('--project')
      expect(api.requests).toHaveLength(0)

      const named = await command(
        against(api, '--prompt', 'x', '--daily-credit-budget', '10', '--project', 'acme/tools'),
        WITH_KEY,
      ).done
      expect(named.code, named.stderr).toBe(0)
      expect(api.allRuns()[0]?.metadata).toMatchObject({
        gh_forge: 'none',
        gh_repository: 'acme/tools',
      })
    })

    it('refuses --previous-run cancel, --cancel-previous and --cancel-only with no project (exit 2, before any request), naming --project', async () => {
      const api = await fakeApi({ script: () => working })
      const going = api.seedRun(
        { prompt: 'a', config: { name: 'nightly' }, metadata: { gh_forge: 'none' } },
        { script: working },
      )
      const nightly = ['--prompt', 'x', '--name', 'nightly', '--json']
      for (const [args, flag] of [
        [[...nightly, '--previous-run', 'cancel'], '--previous-run cancel'],
        [[...nightly, '--cancel-previous'], '--cancel-previous'],
        [['--cancel-only', '--name', 'nightly', '--json'], '--cancel-only'],
        [
          ['--tasks', '["a", "b"]', '--name', 'nightly', '--cancel-previous', '--json'],
          '--cancel-previous',
        ],
      ] as const) {
        const refused = await command(against(api, ...args), WITH_KEY).done
        expect(refused.code, args.join(' ')).toBe(2)
        const answer = JSON.parse(refused.stdout) as { error?: string; exit_code?: number }
        expect(answer.exit_code).toBe(2)
        expect(answer.error).toMatch(new RegExp(`^${flag} needs a project: .*--project`))
      }
      expect(api.requests).toHaveLength(0)
      expect(api.run(going.run_id)?.state).not.toBe('CANCELLED')
    })

    it("--previous-run cancel with a constant name cancels only this merge request's run", async () => {
      const api = await fakeApi({ script: () => finishing('SUCCEEDED') })
      const going: RunScript = [{ state: 'INPROGRESS', afterMs: 0 }]
      const gitlab = { gh_forge: 'gitlab', gh_repository: 'group/app' }
      const name = { name: 'agent-review' }
      const mine = api.seedRun(
        { prompt: 'a', config: name, metadata: { ...gitlab, gh_thread: '7' } },
        { script: going },
      )
      const another = api.seedRun(
        { prompt: 'b', config: name, metadata: { ...gitlab, gh_thread: '8' } },
        { script: going },
      )

      const result = await command(
        against(api, '--prompt', 'x', '--name', 'agent-review', '--previous-run', 'cancel'),
        mergeRequest('7'),
      ).done

      expect(result.code, result.stderr).toBe(0)
      expect(api.run(mine.run_id)?.state).toBe('CANCELLED')
      expect(api.run(another.run_id)?.state).toBe('INPROGRESS')
      expect(result.stderr).toMatch(/^--previous-run cancel: Run \S+ was cancelled\.$/m)
      expect(result.stderr).not.toContain('cancel_previous')
    })
  })
})
