/** A step with `tasks` (src/inputs/task-set.ts). */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { InputError } from '../../src/input-error.ts'
import { readTaskSettings, TASK_KEYS, TASKS_REFUSE } from '../../src/inputs/task-set.ts'
import { actionYml, BASE_URL, fakeInputs, KEY, type ActionInput } from '../support/action-inputs.ts'

describe('tasks (v1.2)', () => {
  const taskSettings = (given: Record<string, string>) =>
    readTaskSettings(fakeInputs({ api_key: KEY, base_url: BASE_URL, ...given }).source)

  async function refusesTasks(given: Record<string, string>, input = 'tasks'): Promise<string> {
    const error = await taskSettings(given).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).input).toBe(input)
    return (error as InputError).message
  }

  it('refuses each input of the one list, before any request; action.yml and docs/tasks.md say that list', async () => {
    for (const [input, value] of TASKS_REFUSE) {
      const given: Record<string, string> = { tasks: '[a]', [input]: value }
      if (input === 'pull_request_review') given.github_token = 'gh'
      expect(await refusesTasks(given), input).toContain(`cannot be combined with ${input}`)
    }
    const named = TASKS_REFUSE.map(([input, value]) =>
      input === 'previous_run' ? `${input}: ${value}` : input,
    )
    const sentence = `Cannot be combined with ${named.slice(0, -1).join(', ')} or ${named.at(-1)}.`
    const description = (
      actionYml.inputs.tasks as (ActionInput & { description?: string }) | undefined
    )?.description
    expect(description).toContain(sentence)
    const page = readFileSync(new URL('../../docs/tasks.md', import.meta.url), 'utf8')
      .replace(/`/g, '')
      .replace(/\s+/g, ' ')
    expect(page).toContain(sentence.replace(/^Cannot/, 'tasks cannot'))
  })

  it('takes the keys that action.yml and docs/tasks.md name, the one list: prompt, and any other', async () => {
    const [prompt, ...others] = TASK_KEYS
    expect(prompt).toBe('prompt')
    const description = (
      actionYml.inputs.tasks as (ActionInput & { description?: string }) | undefined
    )?.description
    expect(description).toContain(
      `a mapping with prompt (or skill_spec) and any of ${others.join(', ')} (a path or inline);`,
    )
    const page = readFileSync(new URL('../../docs/tasks.md', import.meta.url), 'utf8')
      .replace(/`/g, '')
      .replace(/\s+/g, ' ')
    expect(page).toContain(
      `A mapping takes prompt (or skill_spec) and any of ${others.slice(0, -1).join(', ')} and ${others.at(-1)}.`,
    )
    // And takes each of them, with a value it accepts.
    const valid: Record<string, string> = {
      harness: 'oz',
      skill_spec: 'o/r:s',
      output_schema: '{}',
    }
    const item = Object.fromEntries(TASK_KEYS.map((key) => [key, valid[key] ?? 'x']))
    const set = await taskSettings({ tasks: JSON.stringify([item]) })
    expect(set?.tasks[0]?.prompt).toBe('x')
  })

  it('refuses approval: an approved commit starts one run from the prompt', async () => {
    expect(await refusesTasks({ tasks: '[a]', approval: 'forks' }, 'approval')).toContain(
      'cannot be combined with tasks',
    )
  })

  it('is off without tasks', async () => {
    expect(await taskSettings({ prompt: 'p' })).toBeUndefined()
  })

  it('a task names its own harness, worker_host and output_schema (inline), checked before any request', async () => {
    const read = await taskSettings({
      tasks: JSON.stringify([
        { prompt: 'a', harness: 'codex', worker_host: 'w1', output_schema: '{"type": "object"}' },
        'b',
      ]),
      harness: 'claude',
    })
    expect(read?.tasks).toEqual([
      { prompt: 'a', config: { harness: { type: 'codex' }, worker_host: 'w1' } },
      { prompt: 'b', config: { harness: { type: 'claude' } } },
    ])
    expect(read?.taskSchemas.map((schema) => schema?.input)).toEqual([
      "task 1's output_schema",
      undefined,
    ])
    expect(await refusesTasks({ tasks: '[{"prompt": "a", "harness": "copilot"}]' })).toContain(
      'task 1: Input "harness" must be one of oz, claude, codex, gemini',
    )
    const detached = { tasks: '[{"prompt": "a", "output_schema": "{}"}]', wait: 'false' }
    expect(await refusesTasks(detached)).toContain("task 1's output_schema needs wait: true")
  })

  it('reads a YAML or a JSON list; an item omitting a key takes the step input of that name', async () => {
    const yaml = await taskSettings({
      tasks: '- fix a\n- prompt: fix b\n  title: B\n  name: own-name\n- skill_spec: o/r:s',
      name: 'nightly',
      model_id: 'm1',
    })
    expect(yaml?.tasks).toEqual([
      { prompt: 'fix a', config: { name: 'nightly', model_id: 'm1' } },
      { prompt: 'fix b', title: 'B', config: { name: 'own-name', model_id: 'm1' } },
      { config: { name: 'nightly', model_id: 'm1', skill_spec: 'o/r:s' } },
    ])
    expect(yaml).toMatchObject({ maxParallel: 10, passWhen: { kind: 'all' } })
    const json = await taskSettings({ tasks: '["a", {"prompt": "b"}]', pass_when: '2' })
    expect(json?.tasks.map((task) => task.prompt)).toEqual(['a', 'b'])
    expect(json?.passWhen).toEqual({ kind: 'at-least', count: 2 })
    expect((await taskSettings({ tasks: '[a]', pass_when: 'any' }))?.passWhen).toEqual({
      kind: 'any',
    })
  })

  it('names the task and the field of a bad item, and every conflicting input', async () => {
    expect(await refusesTasks({ tasks: '[]' })).toMatch(/empty list/)
    // Bad JSON or YAML: the parser's reason as a sentence (no dangling colon), then the fix.
    for (const tasks of ['["a", }', '- a\n  - b: [']) {
      const message = await refusesTasks({ tasks })
      expect(message).toMatch(
        /^Input "tasks" is neither a JSON nor a YAML list: [^\n]*[^:;,]\. Give one task a line as a YAML list/,
      )
    }
    // JSON's parser gives a position: the message quotes what it read there.
    expect(await refusesTasks({ tasks: '[{"prompt": "a"}, {"prompt" "b"}]' })).toMatch(
      /at position 28, at "[^"]*\{\\"prompt\\" \\"b\\"\}\]"/,
    )
    expect(await refusesTasks({ tasks: 'just text' })).toMatch(/must be a list/)
    expect(await refusesTasks({ tasks: '- a\n- title: no prompt' })).toMatch(/task 2 has no prompt/)
    expect(await refusesTasks({ tasks: '- a\n- prompt: b\n  model: x' })).toMatch(
      /task 2 has an unknown key "model"/,
    )
    expect(await refusesTasks({ tasks: '- [nested]' })).toMatch(/task 1 must be a prompt/)
    expect(await refusesTasks({ tasks: '- prompt: a\n  skill_spec: bad' })).toMatch(
      /task 1.*skill_spec/,
    )
    for (const input of ['prompt', 'prompt_file', 'run_id', 'followup']) {
      expect(await refusesTasks({ tasks: '[a]', [input]: 'x' })).toMatch(
        new RegExp(`combined with ${input}`),
      )
    }
    expect(await refusesTasks({ tasks: '[a]', continue_run: 'true' })).toMatch(/continue_run/)
    // A detached set (v1.3): every run starts at once, so max_parallel must hold every task.
    const detached = await taskSettings({ tasks: '[a, b, c]', wait: 'false', max_parallel: '3' })
    expect(detached).toMatchObject({ wait: false, maxParallel: 3 })
    expect(
      await refusesTasks({ tasks: '[a, b, c]', wait: 'false', max_parallel: '2' }, 'max_parallel'),
    ).toMatch(/is 2, below the 3 tasks: with wait: false the step starts every task at once/)
    expect(await taskSettings({ tasks: '[a, b, c]', max_parallel: '2' })).toMatchObject({
      wait: true,
      maxParallel: 2,
    })
    // What acts once the runs end stays refused without waiting, as for one run.
    for (const [input, value] of [
      ['output_schema', '{}'],
      ['check_run', 'true'],
      ['max_credits', '10'],
      ['download_artifacts', '*.md'],
    ]) {
      const given = { tasks: '[a]', wait: 'false', github_token: 'gh', [input ?? '']: value ?? '' }
      expect(await refusesTasks(given, input), input).toMatch(/needs wait: true/)
    }
    // What each task's run honours is taken, as for one run.
    const perTask = await readTaskSettings(
      fakeInputs({
        api_key: KEY,
        base_url: BASE_URL,
        tasks: '[a]',
        on_blocked: 'pass',
        show_progress: 'true',
        download_artifacts: '*.md',
        artifacts_dir: 'out',
      }).source,
    )
    expect(perTask?.agentWork).toMatchObject({
      onBlocked: 'pass',
      showProgress: true,
      downloadPatterns: ['*.md'],
    })
    expect(perTask?.agentWork.artifactsDir).toMatch(/out$/)
    // cancel_previous cancels by name: every task needs one, its own or the step's.
    expect(
      await refusesTasks(
        { tasks: '[a, {prompt: b, name: own}]', cancel_previous: 'true' },
        'cancel_previous',
      ),
    ).toMatch(/task 1 has none/)
    const named = await readTaskSettings(
      fakeInputs({
        api_key: KEY,
        base_url: BASE_URL,
        tasks: '[a, {prompt: b, name: own}]',
        name: 'nightly',
        cancel_previous: 'true',
      }).source,
    )
    expect(named?.cancelPrevious).toBe('cancel_previous')
    expect(
      await readTaskSettings(
        fakeInputs({
          api_key: KEY,
          base_url: BASE_URL,
          tasks: '[a]',
          on_blocked: 'wait',
          // A set keeps its own comment and commit status (docs/tasks.md).
          comment: 'true',
          commit_status: 'true',
          github_token: 'ghs_token',
        }).source,
      ),
    ).toMatchObject({ github: { comment: true, commitStatus: true } })
    expect(await refusesTasks({ tasks: '[a, b]', pass_when: '3' }, 'pass_when')).toMatch(/only 2/)
    expect(await refusesTasks({ tasks: '[a]', pass_when: 'most' }, 'pass_when')).toMatch(
      /all, any, or a number/,
    )
    expect(await refusesTasks({ tasks: '[a]', max_parallel: '0' }, 'max_parallel')).toMatch(
      /at least 1/,
    )
  })

  it("docs/tasks.md's example of a refused list gives the error line the page shows", async () => {
    const page = readFileSync(new URL('../../docs/tasks.md', import.meta.url), 'utf8')
    const example =
      /```yaml\ntasks: \|\n((?: {2}- [^\n]*\n)+)```\n\nand the step fails with:\n\n```text\n([^\n]*)\n```/.exec(
        page,
      )
    const [, list = '', line = ''] = example ?? []
    expect(line).toMatch(/^Input "tasks" task \d+ /)
    expect(await refusesTasks({ tasks: list.replace(/^ {2}/gm, '') })).toBe(line)
  })
})

describe('campaign and tasks_file (v1.5)', () => {
  const read = (given: Record<string, string>, env: NodeJS.ProcessEnv = {}) =>
    readTaskSettings(fakeInputs({ api_key: KEY, base_url: BASE_URL, ...given }, env).source)

  async function refuses(given: Record<string, string>, input: string): Promise<string> {
    const error = await read(given).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).input).toBe(input)
    return (error as InputError).message
  }

  it("makes each task's repository its project and <campaign>/<repository> its name", async () => {
    const settings = await read({
      campaign: 'bump-lodash',
      tasks: JSON.stringify([
        { repository: 'octo-org/api', prompt: 'Bump lodash' },
        { repository: 'gitlab:group/sub/app', prompt: 'Bump lodash' },
        'Note the change in the changelog',
      ]),
    })
    expect(settings?.campaign).toBe('bump-lodash')
    expect(settings?.repositories).toEqual([
      { forge: 'github', project: 'octo-org/api' },
      { forge: 'gitlab', project: 'group/sub/app' },
      undefined,
    ])
    expect(settings?.tasks.map((task) => task.config?.name)).toEqual([
      'bump-lodash/octo-org/api',
      'bump-lodash/gitlab:group/sub/app',
      undefined,
    ])
  })

  it('refuses, before any request and naming the input, what a campaign cannot be', async () => {
    expect(await refuses({ campaign: 'c' }, 'campaign')).toContain('needs tasks (or tasks_file)')
    expect(await refuses({ campaign: 'two words', tasks: '[a]' }, 'campaign')).toContain(
      'at most 64 letters',
    )
    const task = (repository: string) => JSON.stringify([{ repository, prompt: 'p' }])
    expect(await refuses({ tasks: task('octo-org/api') }, 'tasks')).toContain(
      'task 1 names a repository, which only a campaign',
    )
    for (const bad of ['octo-org', 'a/b/c', 'https://github.com/a/b', 'gitlab:solo', '../x']) {
      expect(await refuses({ campaign: 'c', tasks: task(bad) }, 'tasks'), bad).toContain(
        "task 1's repository must be owner/repo, or gitlab:group/app",
      )
    }
    const twice = JSON.stringify([
      { repository: 'octo-org/api', prompt: 'p' },
      { repository: 'Octo-Org/API', prompt: 'q' },
    ])
    expect(await refuses({ campaign: 'c', tasks: twice }, 'tasks')).toContain(
      'tasks 1 and 2 both name the repository Octo-Org/API',
    )
    const named = JSON.stringify([{ repository: 'octo-org/api', prompt: 'p', name: 'x' }])
    expect(await refuses({ campaign: 'c', tasks: named }, 'tasks')).toContain(
      'names both a repository and a name',
    )
  })

  it('reads tasks_file from the workspace, never beside tasks', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'tasks-file-'))
    const list = Array.from({ length: 1_000 }, (_, i) => ({
      repository: `octo-org/service-${i}`,
      prompt: `Add the lint check to service ${i}; ${'context '.repeat(20)}`,
    }))
    writeFileSync(join(workspace, 'repos.json'), JSON.stringify(list))
    // Over the 128 KiB a runner's environment variable holds: the reason for the file.
    expect(JSON.stringify(list).length).toBeGreaterThan(128 * 1024)
    const env = { GITHUB_WORKSPACE: workspace }
    const settings = await read({ campaign: 'lint', tasks_file: 'repos.json' }, env)
    expect(settings?.tasks).toHaveLength(1_000)
    const refused = await read({ tasks: '[a]', tasks_file: 'repos.json' }, env).catch(
      (error: unknown) => error,
    )
    expect((refused as InputError).input).toBe('tasks_file')
    const missing = await read({ tasks_file: 'nowhere.yml' }, env).catch((error: unknown) => error)
    expect((missing as InputError).message).toContain('cannot be read')
  })
})
