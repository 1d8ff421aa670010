import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readCancelOnly, readSettings } from '../../src/inputs/main-step.ts'
import { POLL_INTERVAL } from '../../src/timing.ts'
import {
  actionYml,
  BASE_URL,
  DEFAULTS,
  fakeInputs,
  GITHUB_TOKEN,
  inputErrorFrom,
  KEY,
  rejects,
  settingsFor,
} from '../support/action-inputs.ts'

describe('action.yml defaults used by these tests', () => {
  it('declares api_key as required, base_url as defaulting to Warp, and the documented defaults', () => {
    expect(actionYml.inputs.api_key?.required).toBe(true)
    expect(actionYml.inputs.base_url?.required).not.toBe(true)
    expect(DEFAULTS).toMatchObject({
      base_url: 'https://app.warp.dev/api/v1',
      wait: 'true',
      timeout: '60m',
      prompt: '',
      run_id: '',
    })
  })
})

describe('readSettings: creating a run', () => {
  it('needs only api_key, base_url and prompt, and applies the defaults', () => {
    expect(settingsFor({ prompt: 'Fix the flaky test' })).toEqual({
      apiKey: KEY,
      baseUrl: BASE_URL,
      target: { kind: 'create', request: { prompt: 'Fix the flaky test' } },
      wait: true,
      timeoutMs: 60 * 60_000,
      pollIntervalMs: POLL_INTERVAL.defaultMs,
      cancelPrevious: undefined,
      previousRun: 'keep',
      // No GitHub call is asked for, so the token is not kept.
      github: {
        token: '',
        comment: false,
        commitStatus: false,
        key: 'workflow/job',
        commenterPermission: 'write',
        allowedBots: [],
        approval: 'none',
        approverPermission: 'write',
      },
      agentWork: {
        onBlocked: 'wait',
        maxCredits: undefined,
        downloadPatterns: [],
        artifactsDir: '',
        showProgress: false,
      },
      output: { schema: undefined, retries: 2, pullRequestReview: false, checkRun: false },
      budgets: { daily: undefined, pullRequest: undefined },
    })
  })

  it('accepts skill_spec without a prompt', () => {
    const { target } = settingsFor({ skill_spec: 'acme/skills:triage' })
    expect(target).toEqual({
      kind: 'create',
      request: { config: { skill_spec: 'acme/skills:triage' } },
    })
  })

  it('accepts a skill_spec that names a SKILL.md path', () => {
    const { target } = settingsFor({ skill_spec: 'acme/skills:path/to/SKILL.md', prompt: 'Go' })
    expect(target).toEqual({
      kind: 'create',
      request: { prompt: 'Go', config: { skill_spec: 'acme/skills:path/to/SKILL.md' } },
    })
  })

  it('rejects a skill_spec that is not owner/repo:skill', () => {
    rejects({ skill_spec: 'just-a-name' }, 'skill_spec')
  })

  it('names prompt when neither prompt nor skill_spec is given', () => {
    const error = rejects({}, 'prompt')
    expect(error.message).toContain('skill_spec')
  })

  it('treats a whitespace-only prompt as missing', () => {
    rejects({ prompt: '   \n ' }, 'prompt')
  })

  it('passes the title and maps the config inputs into request.config', () => {
    const { target } = settingsFor({
      prompt: 'Review the PR',
      title: 'Nightly review',
      name: 'ci-review',
      model_id: 'model-x',
      base_prompt: 'Be terse.',
      environment_id: 'env-42',
      skill_spec: 'acme/skills:review',
    })
    expect(target).toEqual({
      kind: 'create',
      request: {
        prompt: 'Review the PR',
        title: 'Nightly review',
        config: {
          name: 'ci-review',
          model_id: 'model-x',
          base_prompt: 'Be terse.',
          environment_id: 'env-42',
          skill_spec: 'acme/skills:review',
        },
      },
    })
  })

  it('drops empty config inputs, and omits config when all are empty', () => {
    const some = settingsFor({ prompt: 'p', model_id: 'model-x', name: '', environment_id: '  ' })
    expect(some.target).toEqual({
      kind: 'create',
      request: { prompt: 'p', config: { model_id: 'model-x' } },
    })
    const none = settingsFor({ prompt: 'p', title: '', name: '', base_prompt: '' })
    expect(none.target).toEqual({ kind: 'create', request: { prompt: 'p' } })
    if (none.target.kind !== 'create') throw new Error('expected a create target')
    expect(Object.keys(none.target.request)).toEqual(['prompt'])
  })
})

describe('readSettings: wait', () => {
  it.each([
    ['true', true],
    ['True', true],
    ['TRUE', true],
    ['false', false],
    ['False', false],
    ['FALSE', false],
  ])('reads %s as %s', (value, expected) => {
    expect(settingsFor({ prompt: 'p', wait: value }).wait).toBe(expected)
  })

  it.each(['yes', 'no', '1', '0', 'on', 'off', 'tRuE', 'y'])('rejects %s, naming wait', (value) => {
    const error = rejects({ prompt: 'p', wait: value }, 'wait')
    expect(error.message).toContain(value)
  })
})

describe('readSettings: durations', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['10m', 600_000],
    ['2h', 7_200_000],
    ['90', 90_000],
    ['1.5m', 90_000],
  ])('reads timeout %s as %i ms', (value, expected) => {
    expect(settingsFor({ prompt: 'p', timeout: value }).timeoutMs).toBe(expected)
  })

  it.each(['10 minutes', '-5s', '0', '0s', '5d', 'm', '1.5.2s', 'ten'])(
    'rejects timeout %j, naming timeout',
    (value) => {
      rejects({ prompt: 'p', timeout: value }, 'timeout')
    },
  )

  it('uses the default poll interval when poll_interval is empty', () => {
    expect(settingsFor({ prompt: 'p' }).pollIntervalMs).toBe(POLL_INTERVAL.defaultMs)
    expect(POLL_INTERVAL.defaultMs).toBe(5_000)
  })

  it.each([
    ['100ms', 100],
    ['2s', 2_000],
    ['45s', 45_000],
    ['3', 3_000],
  ])('reads poll_interval %s as %i ms', (value, expected) => {
    expect(settingsFor({ prompt: 'p', poll_interval: value }).pollIntervalMs).toBe(expected)
  })

  it.each(['99ms', '0.05s', '0', '10 seconds', '-1s'])(
    'rejects poll_interval %j, naming poll_interval',
    (value) => {
      rejects({ prompt: 'p', poll_interval: value }, 'poll_interval')
    },
  )
})

describe('readSettings: mcp_servers', () => {
  it('passes saved, local and remote servers into request.config.mcp_servers', () => {
    const servers = {
      saved: { warp_id: 'mcp_01HZX' },
      files: { command: 'npx', args: ['-y', '@acme/mcp-files'], env: { ROOT: '/work' } },
      tracker: { url: 'https://mcp.example.com/sse', headers: { 'X-Team': 'ci' } },
    }
    const { target } = settingsFor({ prompt: 'p', mcp_servers: JSON.stringify(servers) })
    expect(target).toEqual({
      kind: 'create',
      request: { prompt: 'p', config: { mcp_servers: servers } },
    })
  })

  it.each([
    ['invalid JSON', '{ files: npx }'],
    ['an array', '[{"command":"npx"}]'],
    ['null', 'null'],
    ['a string', '"npx"'],
    ['an entry with neither command nor url', '{"files":{"args":["x"]}}'],
    ['an entry that is not an object', '{"files":"npx"}'],
    ['an entry whose command is not a string', '{"files":{"command":["npx"]}}'],
    ['an entry whose warp_id is empty', '{"saved":{"warp_id":""}}'],
    ['an entry whose url does not parse', '{"remote":{"url":"not a url"}}'],
    ['an entry whose args are not strings', '{"files":{"command":"npx","args":[1]}}'],
    ['an entry whose env is not strings', '{"files":{"command":"npx","env":{"A":1}}}'],
  ])('rejects %s, naming mcp_servers', (_what, value) => {
    rejects({ prompt: 'p', mcp_servers: value }, 'mcp_servers')
  })

  it('names the bad entry', () => {
    const error = rejects(
      { prompt: 'p', mcp_servers: '{"good":{"command":"npx"},"broken":{"args":[]}}' },
      'mcp_servers',
    )
    expect(error.message).toContain('broken')
  })

  it.each([
    [
      'warp_id and command',
      '{"both":{"warp_id":"mcp_1","command":"npx"}}',
      '"warp_id" and "command"',
    ],
    [
      'command and url',
      '{"both":{"command":"npx","url":"https://mcp.example.com"}}',
      '"command" and "url"',
    ],
    [
      'warp_id and url',
      '{"both":{"warp_id":"mcp_1","url":"https://mcp.example.com"}}',
      '"warp_id" and "url"',
    ],
  ])('rejects an entry with both %s, naming the entry and the kinds', (_what, value, kinds) => {
    const error = rejects({ prompt: 'p', mcp_servers: value }, 'mcp_servers')
    expect(error.message).toContain('"both"')
    expect(error.message).toContain(kinds)
    expect(error.message).toContain('exactly one')
  })
})

describe('readSettings: an existing run', () => {
  const RUN_ID = '0f8fad5b-d9cb-469f-a165-70867728950e'

  it('awaits the run named by run_id alone', () => {
    const settings = settingsFor({ run_id: RUN_ID })
    expect(settings.target).toEqual({ kind: 'existing', runId: RUN_ID, followup: undefined })
    expect(settings.wait).toBe(true)
  })

  it('sends followup to the run named by run_id', () => {
    expect(settingsFor({ run_id: RUN_ID, followup: 'Also update the changelog.' }).target).toEqual({
      kind: 'existing',
      runId: RUN_ID,
      followup: 'Also update the changelog.',
    })
  })

  it('names followup when it comes without run_id', () => {
    const error = rejects({ prompt: 'p', followup: 'More please' }, 'followup')
    expect(error.message).toContain('run_id')
  })

  it('names prompt when it is combined with run_id', () => {
    const error = rejects({ run_id: RUN_ID, prompt: 'Start over' }, 'prompt')
    expect(error.message).toContain('run_id')
  })

  it.each(['title', 'skill_spec', 'model_id', 'mcp_servers'])(
    'names %s when it is combined with run_id',
    (input) => {
      rejects({ run_id: RUN_ID, [input]: input === 'mcp_servers' ? '{}' : 'x/y:z' }, input)
    },
  )

  it.each([
    '..',
    '../runs',
    '../runs/other',
    'run/x',
    'run id',
    'run\u0007bell',
    'run?x=1',
    'run#1',
    'rün',
    'a'.repeat(201),
  ])('rejects run_id %j', (runId) => {
    rejects({ run_id: runId }, 'run_id')
  })
})

describe('readSettings: pull-request inputs', () => {
  it('reads the prompt from prompt_file, relative to the workspace', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'ws-'))
    writeFileSync(join(workspace, 'prompt.md'), '  Review the diff\nand be kind  \n')
    const { target } = settingsFor({ prompt_file: 'prompt.md' }, { GITHUB_WORKSPACE: workspace })
    expect(target).toEqual({ kind: 'create', request: { prompt: 'Review the diff\nand be kind' } })
  })

  it('rejects a missing or empty prompt_file, and prompt_file beside prompt', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'ws-'))
    writeFileSync(join(workspace, 'empty.md'), ' \n')
    const env = { GITHUB_WORKSPACE: workspace }
    expect(
      inputErrorFrom(() => settingsFor({ prompt_file: 'nope.md' }, env), 'prompt_file').message,
    ).toMatch(/cannot be read: .*nope\.md \(ENOENT\)/)
    expect(
      inputErrorFrom(() => settingsFor({ prompt_file: 'empty.md' }, env), 'prompt_file').message,
    ).toMatch(/empty file/)
    rejects({ prompt: 'x', prompt_file: 'empty.md' }, 'prompt_file')
  })

  it('continue_run carries followup as the message and prompt for a new run', () => {
    const { target, github } = settingsFor({
      continue_run: 'true',
      prompt: 'Review this pull request',
      followup: 'Please also fix the typo',
    })
    expect(target).toEqual({
      kind: 'continue',
      message: 'Please also fix the typo',
      request: { prompt: 'Review this pull request' },
    })
    expect(github.token).toBe(GITHUB_TOKEN)
  })

  it('continue_run without followup sends the prompt', () => {
    const { target } = settingsFor({ continue_run: 'true', prompt: 'Answer the comment' })
    expect(target).toMatchObject({ kind: 'continue', message: 'Answer the comment' })
  })

  it('continue_run needs a message, a token, and no run_id', () => {
    rejects({ continue_run: 'true' }, 'continue_run')
    rejects({ continue_run: 'true', prompt: 'x', github_token: '' }, 'github_token')
    rejects({ continue_run: 'true', run_id: 'run_1', followup: 'x' }, 'continue_run')
  })

  it('comment keeps the token and needs one', () => {
    expect(settingsFor({ prompt: 'x', comment: 'true' }).github).toMatchObject({
      token: GITHUB_TOKEN,
      comment: true,
    })
    rejects({ prompt: 'x', comment: 'true', github_token: '' }, 'github_token')
    rejects({ prompt: 'x', comment: 'yes' }, 'comment')
  })

  it('the key is the name input, else the workflow and the job', () => {
    expect(settingsFor({ prompt: 'x', name: 'pr-7' }).github.key).toBe('pr-7')
    const env = { GITHUB_WORKFLOW: 'Agent review', GITHUB_JOB: 'review' }
    expect(settingsFor({ prompt: 'x' }, env).github.key).toBe('Agent review/review')
  })

  it('commit_status keeps the token and needs one', () => {
    expect(settingsFor({ prompt: 'x', commit_status: 'true' }).github).toMatchObject({
      token: GITHUB_TOKEN,
      commitStatus: true,
      comment: false,
    })
    expect(
      rejects({ prompt: 'x', commit_status: 'true', github_token: '' }, 'github_token').message,
    ).toContain('commit_status')
    rejects({ prompt: 'x', commit_status: 'on' }, 'commit_status')
  })

  it('commenter_permission is one of the repository roles, write by default', () => {
    expect(settingsFor({ prompt: 'x' }).github.commenterPermission).toBe('write')
    for (const role of ['read', 'triage', 'write', 'maintain', 'admin']) {
      expect(
        settingsFor({ prompt: 'x', commenter_permission: role }).github.commenterPermission,
      ).toBe(role)
    }
    expect(
      rejects({ prompt: 'x', commenter_permission: 'collaborator' }, 'commenter_permission')
        .message,
    ).toContain('read, triage, write, maintain, admin')
  })

  it('approval is none, forks or always (none by default), and approver_permission a role', () => {
    const github = (given: Record<string, string>) => settingsFor({ prompt: 'x', ...given }).github
    expect([github({}).approval, github({}).approverPermission]).toEqual(['none', 'write'])
    expect(github({}).token).toBe('')
    for (const policy of ['none', 'forks', 'always']) {
      expect(github({ approval: policy }).approval).toBe(policy)
    }
    // Waiting writes the thread's comment and reads permissions: the token is kept for it.
    expect(github({ approval: 'forks' }).token).toBe(GITHUB_TOKEN)
    expect(github({ approval: 'always', approver_permission: 'maintain' }).approverPermission).toBe(
      'maintain',
    )
    expect(rejects({ prompt: 'x', approval: 'fork' }, 'approval').message).toContain(
      'none, forks or always; got "fork"',
    )
    expect(
      rejects({ prompt: 'x', approval: 'forks', github_token: '' }, 'github_token').message,
    ).toContain('required by approval')
    rejects({ prompt: 'x', approver_permission: 'owner' }, 'approver_permission')
  })

  it('approval starts one new run from the prompt: never with run_id, continue_run or tasks', () => {
    expect(rejects({ run_id: 'r1', approval: 'forks' }, 'approval').message).toContain(
      'cannot be combined with run_id',
    )
    expect(
      rejects({ prompt: 'x', continue_run: 'true', approval: 'always' }, 'approval').message,
    ).toContain("a comment's text never reaches it")
    // approval: none says nothing more than leaving it out.
    expect(settingsFor({ run_id: 'r1', approval: 'none' }).github.approval).toBe('none')
  })

  it('allowed_bots takes comma-separated logins, with or without [bot]', () => {
    expect(
      settingsFor({ prompt: 'x', allowed_bots: 'renovate[bot], My-Bot ,,' }).github.allowedBots,
    ).toEqual(['renovate', 'my-bot'])
    expect(
      rejects({ prompt: 'x', allowed_bots: 'renovate[bot] dependabot' }, 'allowed_bots').message,
    ).toContain('"renovate[bot] dependabot"')
  })

  it('cancel_previous needs name, and only applies to creating a run', () => {
    // The input that asked, as a workflow names it, for the log's lines.
    expect(settingsFor({ prompt: 'x', name: 'pr-7', cancel_previous: 'true' }).cancelPrevious).toBe(
      'cancel_previous',
    )
    expect(rejects({ prompt: 'x', cancel_previous: 'true' }, 'cancel_previous').message).toContain(
      'needs name',
    )
    rejects({ run_id: 'run_1', cancel_previous: 'true' }, 'cancel_previous')
  })

  it('previous_run: keep by default; cancel is cancel_previous; steer needs a run to create', () => {
    expect(settingsFor({ prompt: 'x' }).previousRun).toBe('keep')
    const cancel = settingsFor({ prompt: 'x', name: 'pr-7', previous_run: 'cancel' })
    expect([cancel.previousRun, cancel.cancelPrevious]).toEqual(['cancel', 'previous_run: cancel'])
    const legacy = settingsFor({ prompt: 'x', name: 'pr-7', cancel_previous: 'true' })
    expect(legacy.previousRun).toBe('cancel')
    expect(rejects({ prompt: 'x', previous_run: 'cancel' }, 'previous_run').message).toContain(
      'needs name',
    )
    const steer = settingsFor({ prompt: 'x', previous_run: 'steer' })
    expect([steer.previousRun, steer.cancelPrevious]).toEqual(['steer', undefined])
    // GitHub's compare says what changed: the token is kept.
    expect(steer.github.token).not.toBe('')
    expect(rejects({ prompt: 'x', previous_run: 'restart' }, 'previous_run').message).toContain(
      'must be keep, cancel or steer, not "restart"',
    )
    expect(
      rejects({ prompt: 'x', previous_run: 'steer', cancel_previous: 'true' }, 'previous_run')
        .message,
    ).toContain('Drop cancel_previous')
    expect(
      rejects({ run_id: 'run_1', followup: 'again', previous_run: 'steer' }, 'previous_run')
        .message,
    ).toContain('run_id')
  })

  it('masks the GitHub token too', () => {
    const inputs = fakeInputs({
      api_key: KEY,
      base_url: BASE_URL,
      prompt: 'x',
      github_token: 'ghp_abc',
    })
    readSettings(inputs.source)
    expect(inputs.masked).toContain('ghp_abc')
  })
})

describe('readCancelOnly', () => {
  const cancelOnly = (given: Record<string, string>) =>
    readCancelOnly(fakeInputs({ api_key: KEY, base_url: BASE_URL, ...given }).source)

  it('is undefined unless cancel_only is true', () => {
    expect(cancelOnly({ prompt: 'x' })).toBeUndefined()
  })

  it('needs name, and takes nothing that creates or steers a run', () => {
    expect(cancelOnly({ cancel_only: 'true', name: 'pr-review-7' })).toEqual({
      apiKey: KEY,
      baseUrl: BASE_URL,
      name: 'pr-review-7',
      madeThePullRequest: false,
      campaign: '',
    })
    // A campaign's working runs: no name, and no project, needed.
    expect(cancelOnly({ cancel_only: 'true', campaign: 'bump-lodash' })?.campaign).toBe(
      'bump-lodash',
    )
    inputErrorFrom(() => cancelOnly({ cancel_only: 'true', campaign: 'two words' }), 'campaign')
    expect(
      inputErrorFrom(() => cancelOnly({ cancel_only: 'true' }), 'cancel_only').message,
    ).toContain('needs name')
    // continue_from: pull_request names the run that made the pull request: no name needed.
    expect(
      cancelOnly({ cancel_only: 'true', continue_from: 'pull_request' })?.madeThePullRequest,
    ).toBe(true)
    inputErrorFrom(
      () => cancelOnly({ cancel_only: 'true', continue_from: 'issue' }),
      'continue_from',
    )
    expect(
      inputErrorFrom(
        () => cancelOnly({ cancel_only: 'true', name: 'n', prompt: 'x', comment: 'true' }),
        'cancel_only',
      ).message,
    ).toContain('cannot be combined with prompt, comment')
    inputErrorFrom(() => cancelOnly({ cancel_only: 'yes', name: 'n' }), 'cancel_only')
    inputErrorFrom(() => cancelOnly({ cancel_only: 'true', name: 'n', api_key: '' }), 'api_key')
  })
})

describe('readSettings: limits (issue 8)', () => {
  it('refuses a poll_interval given longer than timeout', () => {
    const error = rejects({ prompt: 'p', poll_interval: '10m', timeout: '5m' }, 'poll_interval')
    expect(error.message).toContain('longer than timeout')
    expect(settingsFor({ prompt: 'p', poll_interval: '5m', timeout: '5m' }).pollIntervalMs).toBe(
      300_000,
    )
  })

  it('keeps the default poll_interval with a timeout shorter than it', () => {
    expect(settingsFor({ prompt: 'p', timeout: '1s' }).pollIntervalMs).toBe(POLL_INTERVAL.defaultMs)
  })

  it('refuses a duration too long to be a number of milliseconds', () => {
    rejects({ prompt: 'p', timeout: '9'.repeat(400) }, 'timeout')
  })

  it('refuses a prompt over 1 MiB, naming it; takes one of exactly 1 MiB', () => {
    const error = rejects({ prompt: 'é'.repeat(512 * 1024) + 'x' }, 'prompt')
    expect(error.message).toContain('1048577 bytes')
    expect(settingsFor({ prompt: 'x'.repeat(1024 * 1024) }).target.kind).toBe('create')
  })

  it.each(['.', '..', 'a/b', 'run id', 'run\u0007'])('refuses the run_id %j', (runId) => {
    rejects({ run_id: runId }, 'run_id')
  })

  it('refuses a deeply nested mcp_servers, naming it, without a stack overflow', () => {
    const depth = 100_000
    const nested = `{"s":{"command":"x","env":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`
    const error = rejects({ prompt: 'p', mcp_servers: nested }, 'mcp_servers')
    expect(error.message).toContain('nests deeper than')
  })

  it('takes an mcp_servers nested as deep as real configurations go', () => {
    const config = { s: { url: 'https://mcp.example', headers: { a: 'b' } } }
    expect(settingsFor({ prompt: 'p', mcp_servers: JSON.stringify(config) }).target).toMatchObject({
      request: { config: { mcp_servers: config } },
    })
  })
})

describe("readSettings: the agent's work (v1.1 inputs)", () => {
  const work = (given: Record<string, string>, env: NodeJS.ProcessEnv = {}) =>
    settingsFor({ prompt: 'p', ...given }, env).agentWork

  it('reads on_blocked in each of its values', () => {
    for (const value of ['wait', 'fail', 'pass'] as const) {
      expect(work({ on_blocked: value }).onBlocked).toBe(value)
    }
    expect(rejects({ prompt: 'p', on_blocked: 'ignore' }, 'on_blocked').message).toContain(
      'wait, fail or pass',
    )
  })

  it('reads max_credits in credits (a bare number or N credits) or in US dollars ($N, N USD)', () => {
    const credits = (value: number) => ({ value, unit: 'credits' })
    const usd = (value: number) => ({ value, unit: 'usd' })
    expect(work({ max_credits: '500' }).maxCredits).toEqual(credits(500))
    expect(work({ max_credits: '12.5' }).maxCredits).toEqual(credits(12.5))
    expect(work({ max_credits: '50 credits' }).maxCredits).toEqual(credits(50))
    expect(work({ max_credits: '1 credit' }).maxCredits).toEqual(credits(1))
    expect(work({ max_credits: '$5' }).maxCredits).toEqual(usd(5))
    expect(work({ max_credits: '2.50 USD' }).maxCredits).toEqual(usd(2.5))
    expect(work({ max_credits: '3usd' }).maxCredits).toEqual(usd(3))
    for (const bad of ['0', '-5', '1,000', 'lots', '1e3', 'Infinity', '$0', '€5', '5 EUR', '$']) {
      const error = rejects({ prompt: 'p', max_credits: bad }, 'max_credits')
      expect(error.message).toContain(bad)
      expect(error.message).toContain('such as $5 or 5 USD')
    }
  })

  it('refuses max_credits and download_artifacts without waiting, where they would do nothing', () => {
    rejects({ prompt: 'p', wait: 'false', max_credits: '10' }, 'max_credits')
    rejects({ prompt: 'p', wait: 'false', download_artifacts: '*.json' }, 'download_artifacts')
  })

  it('reads download_artifacts one a line or comma-separated', () => {
    expect(
      work({ download_artifacts: 'review.json\n  reports/**  \n\n' }).downloadPatterns,
    ).toEqual(['review.json', 'reports/**'])
    expect(work({ download_artifacts: '*.md, out/*.json,' }).downloadPatterns).toEqual([
      '*.md',
      'out/*.json',
    ])
    rejects({ prompt: 'p', download_artifacts: '!secret.txt' }, 'download_artifacts')
  })

  it('resolves artifacts_dir against the workspace', () => {
    expect(
      work({ artifacts_dir: 'out' }, { GITHUB_WORKSPACE: '/home/runner/work/repo' }).artifactsDir,
    ).toBe('/home/runner/work/repo/out')
    expect(work({ artifacts_dir: '/tmp/x' }).artifactsDir).toBe('/tmp/x')
  })

  it('reads show_progress as a boolean', () => {
    expect(work({ show_progress: 'true' }).showProgress).toBe(true)
    rejects({ prompt: 'p', show_progress: 'yes' }, 'show_progress')
  })
})

describe("readSettings: the agent's work as data (v1.2)", () => {
  it('takes an inline schema, JSON or YAML, as text to compile before any request', () => {
    expect(settingsFor({ prompt: 'p', output_schema: '{"type":"object"}' }).output.schema).toEqual({
      input: 'output_schema',
      text: '{"type":"object"}',
    })
    expect(settingsFor({ prompt: 'p', output_schema: 'type: object' }).output.schema?.text).toBe(
      'type: object',
    )
  })

  it('reads a schema file relative to the workspace, and names a missing one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'schema-'))
    try {
      writeFileSync(join(dir, 'result.schema.json'), '{"type":"array"}')
      const env = { GITHUB_WORKSPACE: dir }
      const { schema } = settingsFor(
        { prompt: 'p', output_schema: 'result.schema.json' },
        env,
      ).output
      expect(schema).toEqual({
        input: 'output_schema',
        text: '{"type":"array"}',
        file: join(dir, 'result.schema.json'),
      })
      const missing = inputErrorFrom(
        () => settingsFor({ prompt: 'p', output_schema: 'nope.json' }, env),
        'output_schema',
      )
      expect(missing.message).toContain(`${join(dir, 'nope.json')} (ENOENT)`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('reads a schema file only from the workspace: never by an absolute path, .. or a link', () => {
    const root = mkdtempSync(join(tmpdir(), 'schema-'))
    try {
      const workspace = join(root, 'workspace')
      mkdirSync(join(workspace, 'schemas'), { recursive: true })
      writeFileSync(join(root, 'secret.json'), '{"type":"object"}')
      writeFileSync(join(workspace, 'schemas', '..in.json'), '{"type":"object"}')
      symlinkSync(join(root, 'secret.json'), join(workspace, 'linked.json'))
      const env = { GITHUB_WORKSPACE: workspace }
      for (const outside of [join(root, 'secret.json'), '../secret.json', 'linked.json']) {
        const error = inputErrorFrom(
          () => settingsFor({ prompt: 'p', output_schema: outside }, env),
          'output_schema',
        )
        expect(error.message).toBe(
          `Input "output_schema" must name a file in the workspace (${workspace}); "${outside}" is outside it. Copy the schema into the workspace, or give it inline.`,
        )
      }
      const inside = settingsFor({ prompt: 'p', output_schema: 'schemas/..in.json' }, env)
      expect(inside.output.schema?.text).toBe('{"type":"object"}')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('refuses what would silently do nothing, or a bad number of corrections', () => {
    rejects({ prompt: 'p', output_schema: '{}', wait: 'false' }, 'output_schema')
    rejects({ prompt: 'p', check_run: 'true', wait: 'false' }, 'check_run')
    rejects({ prompt: 'p', output_schema: '{}', pull_request_review: 'true' }, 'output_schema')
    expect(rejects({ prompt: 'p', output_retries: '11' }, 'output_retries').message).toContain(
      'from 0 to 10',
    )
    rejects({ prompt: 'p', output_retries: '-1' }, 'output_retries')
    rejects({ prompt: 'p', pull_request_review: 'yes' }, 'pull_request_review')
  })

  it('keeps the token for pull_request_review and check_run, and needs it', () => {
    const review = settingsFor({ prompt: 'p', pull_request_review: 'true' })
    expect(review.github.token).toBe(GITHUB_TOKEN)
    expect(review.output.pullRequestReview).toBe(true)
    expect(settingsFor({ prompt: 'p', check_run: 'true' }).github.token).toBe(GITHUB_TOKEN)
    expect(
      rejects({ prompt: 'p', check_run: 'true', github_token: '' }, 'github_token').message,
    ).toContain('required by check_run')
  })
})

describe('readSettings: credit budgets', () => {
  const inRepository = { GITHUB_REPOSITORY: 'octo-org/app' }

  it('reads daily_credit_budget and pr_credit_budget as positive numbers of credits', () => {
    expect(
      settingsFor(
        { prompt: 'p', daily_credit_budget: '500', pr_credit_budget: '12.5' },
        inRepository,
      ).budgets,
    ).toEqual({
      daily: { value: 500, unit: 'credits' },
      pullRequest: { value: 12.5, unit: 'credits' },
    })
    expect(
      settingsFor({ prompt: 'p', wait: 'false', daily_credit_budget: '$5' }, inRepository).budgets
        .daily,
    ).toEqual({ value: 5, unit: 'usd' })
  })

  it('refuses a budget with no project to count by, before any request, naming the input', () => {
    const noProject = { GITHUB_REPOSITORY: '' }
    for (const input of ['daily_credit_budget', 'pr_credit_budget']) {
      const given = { prompt: 'p', [input]: '100' }
      const error = inputErrorFrom(() => settingsFor(given, noProject), input)
      expect(error.message).toContain('--project')
    }
  })

  it('refuses previous_run: cancel, cancel_previous and cancel_only with no project to scope by', () => {
    const noProject = { GITHUB_REPOSITORY: '' }
    const named = { prompt: 'p', name: 'review' }
    for (const [given, input] of [
      [{ ...named, previous_run: 'cancel' }, 'previous_run'],
      [{ ...named, cancel_previous: 'true' }, 'cancel_previous'],
    ] as const) {
      const error = inputErrorFrom(() => settingsFor(given, noProject), input)
      expect(error.message).toContain('--project')
    }
    const cleanup = fakeInputs(
      { api_key: KEY, base_url: BASE_URL, name: 'review', cancel_only: 'true' },
      noProject,
    ).source
    expect(inputErrorFrom(() => readCancelOnly(cleanup), 'cancel_only').message).toContain(
      '--project',
    )
  })

  it('refuses a budget that is not a positive number, naming the input', () => {
    for (const input of ['daily_credit_budget', 'pr_credit_budget']) {
      for (const bad of ['0', '-5', '1,000', 'lots', '5 dollars', 'USD 5']) {
        expect(rejects({ prompt: 'p', [input]: bad }, input).message).toContain(bad)
      }
    }
  })
})
