/**
 * The workflows in examples/ and .github/workflows/ are checked against SchemaStore's
 * github-workflow schema by @action-validator/core. On top of the schema, the examples
 * must keep this project's own rules: only inputs that action.yml declares (and every
 * required one), the key from a secret, a job timeout above the action's timeout, and
 * a permissions block. Both checks are tested on bad workflows at the end, so a passing
 * example means something.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import type * as ActionValidator from '@action-validator/core'
import {
  ACTION_REF,
  permissionsNeeded,
  RECONCILE_REF,
  REPORT_REF,
  type Step,
} from './support/workflow-rules.ts'

// A CommonJS wasm-bindgen module: required, so that Node loads its .wasm the way it expects.
const { validateWorkflow } = createRequire(import.meta.url)(
  '@action-validator/core',
) as typeof ActionValidator

const root = fileURLToPath(new URL('..', import.meta.url))
const examplesDir = `${root}examples/`
const workflowsDir = `${root}.github/workflows/`

const EXPECTED_EXAMPLES = [
  'address-review.yml',
  'answer-pr-comments.yml',
  'budgeted-nightly.yml',
  'campaign.yml',
  'detached-review.yml',
  'reconcile.yml',
  'close-pr-cleanup.yml',
  'fix-failing-check.yml',
  'fork-safe-review.yml',
  'matrix-fan-out.yml',
  'monorepo-fan-out.yml',
  'nightly-dependency-updates.yml',
  'require-agent-review.yml',
  'review-pull-request.yml',
  'start-then-await.yml',
  'weekly-report.yml',
]

/**
 * The one `uses:` line: package.json's `repository` (where the action is published) at the
 * major version's tag, which release.yml moves.
 */
function publishedAction(): { repository: string; uses: string } {
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
    version: string
    repository?: { url?: string }
  }
  const repository = /github\.com\/([\w.-]+\/[\w.-]+?)(?:\.git)?$/.exec(
    pkg.repository?.url ?? '',
  )?.[1]
  if (!repository) throw new Error('package.json has no GitHub repository')
  return { repository, uses: `${repository}@v${pkg.version.split('.')[0] ?? ''}` }
}
const PUBLISHED = publishedAction()
/** The secret every example and the README pass as api_key: the name Warp's own docs use. */
const KEY_SECRET = '${{ secrets.WARP_API_KEY }}'
const SECRET_EXPRESSION = /^\$\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/
/** GitHub's default job timeout, in minutes. */
const DEFAULT_JOB_TIMEOUT = 360

interface ActionInput {
  required: boolean
  default: string
}

function readActionInputs(file = 'action.yml'): Map<string, ActionInput> {
  const action = parse(readFileSync(`${root}${file}`, 'utf8')) as {
    inputs?: Record<string, { required?: boolean; default?: unknown }>
  }
  return new Map(
    Object.entries(action.inputs ?? {}).map(([name, spec]) => [
      name,
      { required: spec.required === true, default: String(spec.default ?? '') },
    ]),
  )
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** Minutes in an action duration (`500ms`, `30s`, `10m`, `2h`, bare seconds), or undefined. */
function durationMinutes(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text)
  if (!match) return undefined
  const value = Number(match[1])
  const perMinute: Record<string, number> = { ms: 60_000, s: 60, m: 1, h: 1 / 60 }
  return value / (perMinute[match[2] ?? 's'] ?? 60)
}

function isFalse(value: unknown): boolean {
  return value === false || (typeof value === 'string' && /^(?:false|False|FALSE)$/.test(value))
}

/** What the workflow schema finds wrong, one line per error; empty when it conforms. */
function schemaErrors(text: string): string[] {
  type Found = { path?: string; title: string; detail?: string; states?: { errors: Found[] }[] }
  const lines = (errors: Found[]): string[] =>
    errors.flatMap((error) =>
      error.states
        ? error.states.flatMap((state) => lines(state.errors))
        : [`${error.path ?? ''}: ${error.detail ?? error.title}`],
    )
  return lines(validateWorkflow(text).errors as Found[])
}

/** Every break of the project's own rules; an empty list means the workflow keeps them. */
function projectRuleErrors(text: string, inputs: Map<string, ActionInput>): string[] {
  const problems: string[] = []
  const workflow = record(parse(text)) ?? {}
  const jobs = record(workflow['jobs']) ?? {}
  const topPermissions = 'permissions' in workflow
  let actionSteps = 0
  for (const [jobId, jobValue] of Object.entries(jobs)) {
    const job = record(jobValue) ?? {}
    if (!topPermissions && !('permissions' in job)) {
      problems.push(`job ${jobId}: no \`permissions\` (none at the top level either)`)
    }
    const steps: unknown[] = Array.isArray(job['steps']) ? job['steps'] : []
    const jobTimeout =
      typeof job['timeout-minutes'] === 'number' ? job['timeout-minutes'] : DEFAULT_JOB_TIMEOUT
    steps.forEach((stepValue, index) => {
      const step = record(stepValue) ?? {}
      const where = `job ${jobId}, step ${index + 1}`
      if (typeof step['uses'] !== 'string' || !ACTION_REF.test(step['uses'])) return
      actionSteps += 1
      const withs = record(step['with']) ?? {}
      const reconcile = RECONCILE_REF.test(step['uses'])
      const report = REPORT_REF.test(step['uses'])
      const declared = reconcile ? reconcileInputs : report ? reportInputs : inputs
      const file = reconcile ? 'reconcile/action.yml' : report ? 'report/action.yml' : 'action.yml'
      for (const key of Object.keys(withs)) {
        if (!declared.has(key)) problems.push(`${where}: \`${key}\` is not an input in ${file}`)
      }
      for (const [name, input] of declared) {
        if (input.required && !(name in withs)) problems.push(`${where}: no \`${name}\``)
      }
      const apiKey = withs['api_key']
      if (apiKey !== undefined && !(typeof apiKey === 'string' && SECRET_EXPRESSION.test(apiKey))) {
        problems.push(`${where}: api_key must come from \${{ secrets.… }}`)
      }
      // A step that waits is bounded by its job's timeout; cancel_only waits for no run.
      if (!reconcile && !report && !isFalse(withs['wait']) && withs['cancel_only'] !== true) {
        const timeout = String(withs['timeout'] ?? inputs.get('timeout')?.default ?? '60m')
        const minutes = timeout.includes('${{') ? undefined : durationMinutes(timeout)
        if (minutes !== undefined && !(jobTimeout > minutes)) {
          problems.push(
            `${where}: job timeout-minutes ${jobTimeout} is not above the action's timeout ${timeout}`,
          )
        }
      }
    })
  }
  if (actionSteps === 0) problems.push('no step uses cloud-agent-run-action')
  return problems
}

const inputs = readActionInputs()
const reconcileInputs = readActionInputs('reconcile/action.yml')
const reportInputs = readActionInputs('report/action.yml')
const exampleFiles = readdirSync(examplesDir)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort()

function readExample(name: string): string {
  return readFileSync(`${examplesDir}${name}`, 'utf8')
}

interface Job {
  if?: string
  'timeout-minutes'?: number
  needs?: string | string[]
  outputs?: Record<string, string>
  permissions?: Record<string, string>
  strategy?: { 'fail-fast'?: boolean; matrix?: { include?: Record<string, string>[] } }
  concurrency?: { group: string; 'cancel-in-progress': boolean | string }
  steps: Step[]
}
interface Workflow {
  on: Record<string, unknown>
  concurrency?: { group: string; 'cancel-in-progress': boolean }
  permissions?: Record<string, string>
  jobs: Record<string, Job>
}

function loadExample(name: string): Workflow {
  return parse(readExample(name)) as Workflow
}

/** The `with:` of every step that runs the action, across all jobs. */
function actionWiths(workflow: Workflow): Record<string, unknown>[] {
  return Object.values(workflow.jobs).flatMap((job) =>
    job.steps.filter((s) => ACTION_REF.test(s.uses ?? '')).map((s) => s.with ?? {}),
  )
}

function onlyAction(name: string): Record<string, unknown> {
  const withs = actionWiths(loadExample(name))
  expect(withs).toHaveLength(1)
  return withs[0] ?? {}
}

describe('the example workflows', () => {
  it('are all there', () => {
    expect(exampleFiles).toEqual(expect.arrayContaining(EXPECTED_EXAMPLES))
  })

  it.each(exampleFiles)('%s conforms to the workflow schema', (name) => {
    expect(schemaErrors(readExample(name))).toEqual([])
  })

  it.each(exampleFiles)("%s keeps the project's rules", (name) => {
    expect(projectRuleErrors(readExample(name), inputs)).toEqual([])
  })

  it.each(exampleFiles)(
    '%s uses the published action with the key from WARP_API_KEY, and the default service',
    (name) => {
      const withs = actionWiths(loadExample(name))
      expect(withs.length).toBeGreaterThan(0)
      for (const w of withs) {
        expect(w['api_key']).toBe(KEY_SECRET)
        expect(w).not.toHaveProperty('base_url')
      }
      const refs = Object.values(loadExample(name).jobs).flatMap((job) =>
        job.steps.map((s) => s.uses).filter((u) => u !== undefined && ACTION_REF.test(u)),
      )
      for (const ref of refs) expect(ref).toMatch(publishedRef())
    },
  )

  it.each(exampleFiles)('%s opens with a 1-3 line comment saying what it does', (name) => {
    const lines = readExample(name).split('\n')
    const header = lines.slice(
      0,
      lines.findIndex((line) => !line.startsWith('#')),
    )
    expect(header.length).toBeGreaterThanOrEqual(1)
    expect(header.length).toBeLessThanOrEqual(3)
    expect(header.join(' ').length).toBeGreaterThan(30)
  })

  it.each(exampleFiles)('%s is linked from README.md', (name) => {
    const readme = readFileSync(`${root}README.md`, 'utf8')
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    const link = new RegExp(`(?:\\]\\(|\\]:\\s*)(?:\\./)?examples/${escaped}(?:[)\\s#]|$)`)
    expect(link.test(readme), `README.md has no link to examples/${name}`).toBe(true)
  })
})

/** The variable every example reads the agent's environment from, as the README's quick start says. */
const ENVIRONMENT_VARIABLE = '${{ vars.WARP_ENVIRONMENT_ID }}'

describe('examples work as copied', () => {
  it("README.md's first workflow conforms to the schema and keeps the examples' rules", () => {
    const readme = readFileSync(`${root}README.md`, 'utf8')
    const workflow = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
    expect(schemaErrors(workflow)).toEqual([])
    expect(projectRuleErrors(workflow, inputs)).toEqual([])
    const parsed = parse(workflow) as Workflow
    for (const w of actionWiths(parsed)) expect(w['environment_id']).toBe(ENVIRONMENT_VARIABLE)
    expect(parsed.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' })
  })

  it.each(exampleFiles)(
    '%s: every step that gives the agent work names its environment from vars.WARP_ENVIRONMENT_ID',
    (name) => {
      for (const w of actionWiths(loadExample(name))) {
        const givesWork = ['prompt', 'prompt_file', 'tasks', 'skill_spec'].some((input) =>
          Boolean(w[input]),
        )
        if (givesWork) expect(w['environment_id'], name).toBe(ENVIRONMENT_VARIABLE)
      }
      expect(readExample(name)).not.toMatch(/vars\.(?!WARP_ENVIRONMENT_ID\b)\w*ENVIRONMENT/)
    },
  )

  it.each(exampleFiles)(
    "%s: the token's permissions are what its steps' inputs need, and no write more",
    (name) => {
      const workflow = loadExample(name)
      for (const [jobId, job] of Object.entries(workflow.jobs)) {
        const granted = job.permissions ?? workflow.permissions ?? {}
        const needed: Record<string, string> = {}
        for (const step of job.steps) Object.assign(needed, permissionsNeeded(step))
        for (const [permission, level] of Object.entries(needed)) {
          const has = granted[permission]
          expect(
            has === level || has === 'write',
            `${name}, job ${jobId}: needs ${permission}: ${level}`,
          ).toBe(true)
        }
        for (const [permission, level] of Object.entries(granted)) {
          if (level !== 'write') continue
          expect(
            needed[permission],
            `${name}, job ${jobId}: ${permission}: write is not needed`,
          ).toBe('write')
        }
      }
    },
  )
})

/** `owner/repo@vN`, or an action in a folder of it (`owner/repo/reconcile@vN`). */
function publishedRef(): RegExp {
  const [repository, version] = PUBLISHED.uses.split('@')
  const escape = (text = ''): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`^${escape(repository)}(?:/[\\w-]+)*@${escape(version)}$`)
}

/** Every `owner/cloud-agent-run-action…@version` or `<owner>/…` a text names. */
function actionRefsIn(text: string): string[] {
  return [...text.matchAll(/[\w.<>-]+\/cloud-agent-run-action(?:\/[\w-]+)*@[\w.-]+/g)].map(
    (match) => match[0],
  )
}

describe('one `uses:` line everywhere', () => {
  const docs = readdirSync(`${root}docs`)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
  const texts = [
    'README.md',
    'SECURITY.md',
    ...docs,
    ...exampleFiles.map((name) => `examples/${name}`),
    '.github/workflows/release.yml',
  ]

  it('package.json names the published repository', () => {
    expect(PUBLISHED.uses).toMatch(/^[\w.-]+\/[\w.-]+@v\d+$/)
  })

  it.each(texts)('%s names the action only as published', (path) => {
    for (const ref of actionRefsIn(readFileSync(`${root}${path}`, 'utf8'))) {
      expect(ref, `${path} says ${ref}`).toMatch(publishedRef())
    }
  })

  it.each(['README.md', '.github/workflows/release.yml'])('%s says it', (path) => {
    expect(readFileSync(`${root}${path}`, 'utf8')).toContain(PUBLISHED.uses)
  })

  it('flags another owner, a placeholder and another version', () => {
    for (const wrong of ['<owner>', 'someone-else']) {
      const ref = PUBLISHED.uses.replace(/^[^/]+/, wrong)
      expect(actionRefsIn(`- uses: ${ref}`)).toEqual([ref])
      expect(ref).not.toMatch(publishedRef())
    }
    expect(PUBLISHED.uses.replace(/@v\d+$/, '@v0')).not.toMatch(publishedRef())
    expect(`${PUBLISHED.repository}/reconcile@v1`).toMatch(publishedRef())
  })
})

/**
 * A step's key: its `name`, else what the action falls back to (the workflow and the job),
 * which no other workflow shares.
 */
interface KeyedStep {
  example: string
  key: string
  cancelOnly: boolean
}

function keyedSteps(example: string): KeyedStep[] {
  return Object.entries(loadExample(example).jobs).flatMap(([jobId, job]) =>
    job.steps
      .filter((s) => ACTION_REF.test(s.uses ?? '') && s.with?.['run_id'] === undefined)
      .map((s) => ({
        example,
        key: typeof s.with?.['name'] === 'string' ? s.with['name'] : `${example}/${jobId}`,
        cancelOnly: s.with?.['cancel_only'] === true,
      })),
  )
}

/**
 * Whether two keys can ever be the same string. An expression can be anything, so two keys
 * can collide unless their literal text before the first expression, or after the last, differ.
 */
function keysCanCollide(a: string, b: string): boolean {
  const parts = (key: string): { head: string; tail: string } => {
    const pieces = key.split(/\$\{\{[^}]*\}\}/)
    return { head: pieces[0] ?? '', tail: pieces.length > 1 ? (pieces.at(-1) ?? '') : '' }
  }
  const [x, y] = [parts(a), parts(b)]
  if (!a.includes('${{') && !b.includes('${{')) return a === b
  const headsAgree = x.head.startsWith(y.head) || y.head.startsWith(x.head)
  const tailsAgree = x.tail.endsWith(y.tail) || y.tail.endsWith(x.tail)
  return headsAgree && tailsAgree
}

/** The same pull request (or its branch), however the event spells it. */
function samePullRequest(key: string): string {
  return key
    .replace(
      /\$\{\{\s*github\.event\.(?:pull_request|issue)\.number(?:\s*\|\|\s*github\.event\.issue\.number)?\s*\}\}/g,
      '<PR>',
    )
    .replace(
      /\$\{\{\s*github\.event\.(?:pull_request\.head\.ref|workflow_run\.head_branch)\s*\}\}/g,
      '<BRANCH>',
    )
}

describe("the examples' keys", () => {
  const starting = exampleFiles.flatMap(keyedSteps).filter((step) => !step.cancelOnly)
  const pairs = starting.flatMap((a, i) => starting.slice(i + 1).map((b) => [a, b] as const))

  it('are compared pairwise, every pair', () => {
    expect(pairs.length).toBe((starting.length * (starting.length - 1)) / 2)
    expect(pairs.length).toBeGreaterThan(20)
  })

  it.each(pairs.map(([a, b]) => [a.example, a.key, b.example, b.key]))(
    '%s (%s) never shares its key with %s (%s)',
    (_a, keyA, _b, keyB) => {
      expect(keysCanCollide(keyA, keyB)).toBe(false)
    },
  )

  it('collide when they can', () => {
    expect(keysCanCollide('pr-review-${{ x }}', 'pr-review-${{ y }}')).toBe(true)
    expect(keysCanCollide('pr-${{ x }}', 'pr-review-${{ y }}')).toBe(true)
    expect(keysCanCollide('agent-review', 'agent-review')).toBe(true)
    expect(keysCanCollide('pr-review-${{ x }}', 'pr-answer-${{ x }}')).toBe(false)
    expect(keysCanCollide('${{ x }}-a', '${{ x }}-b')).toBe(false)
    expect(keysCanCollide('agent-review', 'agent-verdict')).toBe(false)
  })

  it('close-pr-cleanup cancels every key that names a run on a pull request or its branch', () => {
    const cancelled = keyedSteps('close-pr-cleanup.yml')
      .filter((step) => step.cancelOnly)
      .map((step) => samePullRequest(step.key))
    const perPullRequest = starting
      .map((step) => ({ ...step, key: samePullRequest(step.key) }))
      .filter((step) => /<PR>|<BRANCH>/.test(step.key))
    expect(perPullRequest.map((step) => step.example)).toEqual(
      expect.arrayContaining([
        'answer-pr-comments.yml',
        'fix-failing-check.yml',
        'review-pull-request.yml',
      ]),
    )
    for (const step of perPullRequest) expect(cancelled, step.example).toContain(step.key)
  })

  it('a pull request example whose key is not per pull request is cancelled by its own close', () => {
    const prEvents = ['pull_request', 'pull_request_target', 'issue_comment']
    for (const example of exampleFiles) {
      const workflow = loadExample(example)
      if (!prEvents.some((event) => event in workflow.on)) continue
      for (const step of keyedSteps(example).filter((s) => !s.cancelOnly)) {
        if (/<PR>/.test(samePullRequest(step.key))) continue
        // A close joins the workflow's group, and GitHub cancels the job in progress.
        const trigger = workflow.on['pull_request'] ?? workflow.on['pull_request_target']
        expect((trigger as { types?: string[] } | undefined)?.types, example).toContain('closed')
        expect(workflow.concurrency?.['cancel-in-progress'], example).toBe(true)
        expect(samePullRequest(workflow.concurrency?.group ?? ''), example).toContain('<PR>')
        expect(Object.values(workflow.jobs)[0]?.if, example).toContain(
          "github.event.action != 'closed'",
        )
      }
    }
  })
})

describe('what each example shows', () => {
  it('review-pull-request: on PR updates, a new push steers the review in progress, one comment per PR', () => {
    const workflow = loadExample('review-pull-request.yml')
    expect(workflow.on['pull_request']).toEqual({ types: ['opened', 'synchronize', 'reopened'] })
    expect(workflow.permissions).toEqual({
      contents: 'read',
      'pull-requests': 'write',
      actions: 'read',
    })
    expect(workflow.concurrency).toEqual({
      group: 'agent-review-${{ github.event.pull_request.number }}',
      'cancel-in-progress': true,
    })
    const w = onlyAction('review-pull-request.yml')
    expect(w['previous_run']).toBe('steer')
    expect(w['cancel_previous']).toBeUndefined()
    expect(w['name']).toBe('pr-review-${{ github.event.pull_request.number }}')
    expect(w['comment']).toBe(true)
    expect(w['title']).toBe('Review of PR #${{ github.event.pull_request.number }}')
  })

  it('review-pull-request: forks and Dependabot get a note instead of a red check', () => {
    const job = Object.values(loadExample('review-pull-request.yml').jobs)[0]
    expect(job?.if).toBeUndefined()
    const [note, review] = job?.steps ?? []
    const skipped = [
      'github.event.pull_request.head.repo.full_name != github.repository',
      "github.actor == 'dependabot[bot]'",
    ]
    for (const condition of skipped) expect(note?.if).toContain(condition)
    expect(note?.run).toContain('::notice')
    expect(review?.if).toContain(
      'github.event.pull_request.head.repo.full_name == github.repository',
    )
    expect(review?.if).toContain("github.actor != 'dependabot[bot]'")
  })

  it('answer-pr-comments: commenter_permission decides, one answer at a time per PR', () => {
    const workflow = loadExample('answer-pr-comments.yml')
    expect(workflow.on).toEqual({ issue_comment: { types: ['created'] } })
    expect(workflow.permissions?.['pull-requests']).toBe('write')
    expect(workflow.concurrency).toEqual({
      group: 'agent-answer-${{ github.event.issue.number }}',
      'cancel-in-progress': false,
    })
    const job = Object.values(workflow.jobs)[0]
    const condition = job?.if ?? ''
    expect(condition).toContain('github.event.issue.pull_request')
    expect(condition).toContain("contains(github.event.comment.body, '@agent')")
    expect(condition).toContain("github.event.comment.user.login != 'github-actions[bot]'")
    // author_association is not permission: the action checks it with GitHub.
    expect(condition).not.toContain('author_association')
    const w = onlyAction('answer-pr-comments.yml')
    expect(w['continue_run']).toBe(true)
    expect(w['commenter_permission']).toBe('write')
    expect(w['name']).toBe('pr-answer-${{ github.event.issue.number }}')
    expect(w['comment']).toBe(true)
    expect(w['followup']).toBe('${{ github.event.comment.body }}')
    expect(String(w['prompt'])).toContain('${{ github.event.comment.body }}')
  })

  it('fix-failing-check: failed CI of this repository, never the default branch, 90m', () => {
    const workflow = loadExample('fix-failing-check.yml')
    expect(workflow.on).toEqual({ workflow_run: { workflows: ['CI'], types: ['completed'] } })
    const job = Object.values(workflow.jobs)[0]
    const condition = job?.if ?? ''
    expect(condition).toContain("github.event.workflow_run.conclusion == 'failure'")
    expect(condition).toContain('github.event.workflow_run.head_repository.full_name')
    expect(condition).toContain(
      'github.event.workflow_run.head_branch != github.event.repository.default_branch',
    )
    expect(workflow.concurrency).toEqual({
      group: 'agent-fix-ci-${{ github.event.workflow_run.head_branch }}',
      'cancel-in-progress': false,
    })
    const w = onlyAction('fix-failing-check.yml')
    expect(w['prompt']).toContain('${{ github.event.workflow_run.html_url }}')
    expect(w['prompt']).toContain('${{ github.event.workflow_run.head_branch }}')
    expect(w['prompt']).toContain('Agent-Fix-Attempt:')
    expect(w['timeout']).toBe('90m')
  })

  it('fix-failing-check and address-review: continue the run that made the pull request', () => {
    expect(onlyAction('fix-failing-check.yml')['continue_from']).toBe('pull_request')
    const w = onlyAction('address-review.yml')
    expect(w['continue_from']).toBe('pull_request')
    expect(w['prompt']).toContain('${{ github.event.review.html_url }}')
    const workflow = loadExample('address-review.yml')
    expect(workflow.on).toEqual({ pull_request_review: { types: ['submitted'] } })
    const condition = Object.values(workflow.jobs)[0]?.if ?? ''
    expect(condition).toContain("github.event.review.state == 'changes_requested'")
    // author_association is not permission: the action checks the reviewer's (approval: forks).
    expect(condition).not.toContain('author_association')
    expect([w['approval'], w['commenter_permission']]).toEqual(['forks', 'write'])
    expect(workflow.permissions?.['pull-requests']).toBe('write')
    expect(condition).toContain(
      'github.event.pull_request.head.repo.full_name == github.repository',
    )
  })

  it('fix-failing-check: a loop guard stops it after three attempts on a branch', () => {
    const job = Object.values(loadExample('fix-failing-check.yml').jobs)[0]
    const [guard, fix] = job?.steps ?? []
    expect(guard?.id).toBe('guard')
    expect(guard?.run).toContain('Agent-Fix-Attempt:')
    expect(guard?.run).toContain('-ge 3')
    expect(fix?.if).toBe('fromJSON(steps.guard.outputs.attempts) < 3')
  })

  it('require-agent-review: a review and a check run under one name, a gate on the verdict, forks neutral', () => {
    const workflow = loadExample('require-agent-review.yml')
    // pull_request_target: a fork's pull request gets a token that can write its neutral check.
    expect(workflow.on).toEqual({
      pull_request_target: { types: ['opened', 'synchronize', 'reopened', 'closed'] },
    })
    expect(workflow.permissions).toEqual({
      contents: 'read',
      'pull-requests': 'write',
      checks: 'write',
      actions: 'read',
    })
    expect(workflow.concurrency?.['cancel-in-progress']).toBe(true)
    const w = onlyAction('require-agent-review.yml')
    expect(w['pull_request_review']).toBe(true)
    expect(w['check_run']).toBe(true)
    // One check, not a status beside it under the same name.
    expect(w['commit_status']).toBeUndefined()
    // The check is cloud-agent/<name>: the same on every pull request, so it can be required.
    expect(w['name']).toBe('agent-review')
    expect(readExample('require-agent-review.yml')).toContain('"cloud-agent/agent-review"')

    const { verdict, fork } = workflow.jobs
    expect(verdict?.if).toContain('head.repo.full_name == github.repository')
    const [review, gate] = verdict?.steps ?? []
    expect(gate?.env?.['VERDICT']).toBe(`\${{ steps.${review?.id ?? '?'}.outputs.verdict }}`)
    expect(gate?.run).toContain('test "$VERDICT" != request_changes')
    // Forks: never the agent, never a checkout; the same check name, neutral.
    expect(fork?.if).toContain('head.repo.full_name != github.repository')
    expect(fork?.steps.some((step) => step.uses !== undefined)).toBe(false)
    const mark = fork?.steps[0]?.run ?? ''
    expect(mark).toContain('name=cloud-agent/agent-review')
    expect(mark).toContain('conclusion=neutral')
    expect(mark).not.toContain('${{')
  })

  it('fork-safe-review: pull_request_target and /approve comments, approval: forks, one prompt for both', () => {
    const workflow = loadExample('fork-safe-review.yml')
    expect(workflow.on).toEqual({
      pull_request_target: { types: ['opened', 'synchronize', 'reopened'] },
      issue_comment: { types: ['created'] },
    })
    expect(workflow.permissions).toEqual({
      contents: 'read',
      'pull-requests': 'write',
      statuses: 'write',
    })
    const [job] = Object.values(workflow.jobs)
    // Only pull request events and /approve comments on pull requests start the job.
    expect(job?.if).toContain("startsWith(github.event.comment.body, '/approve ')")
    expect(job?.if).toContain('github.event.issue.pull_request')
    // pull_request_target runs with the key: nothing of the pull request is checked out or run.
    expect(job?.steps.every((step) => step.run === undefined)).toBe(true)
    expect(job?.steps.some((step) => /checkout/.test(step.uses ?? ''))).toBe(false)
    const w = onlyAction('fork-safe-review.yml')
    expect([w['approval'], w['approver_permission']]).toEqual(['forks', 'write'])
    // The approving run's prompt must be the waiting run's: nothing of one event alone.
    const prompt = String(w['prompt'])
    const perPullRequest = 'github.event.pull_request.number || github.event.issue.number'
    expect(prompt.replaceAll(perPullRequest, '<PR>')).not.toContain('github.event')
    expect(prompt).not.toContain('comment')
    expect(samePullRequest(String(w['name']))).toBe('fork-review-<PR>')
    // Its runs are told apart in the service's list by their title, on both events alike.
    expect(samePullRequest(String(w['title']))).toBe('Fork-safe review of PR #<PR>')
    // A comment's job never cancels a review in progress: its group is its own.
    expect(job?.concurrency?.group).toContain("format('comment-{0}', github.event.comment.id)")
    expect(job?.concurrency?.['cancel-in-progress']).toBe(
      "${{ github.event_name == 'pull_request_target' }}",
    )
  })

  it('close-pr-cleanup: on any close, forks included, cancels and creates nothing', () => {
    const workflow = loadExample('close-pr-cleanup.yml')
    // pull_request_target: a fork's pull request gets the secret too, so its answers are cancelled.
    expect(workflow.on).toEqual({ pull_request_target: { types: ['closed'] } })
    const job = Object.values(workflow.jobs)[0]
    expect(job?.if).toBeUndefined()
    expect(job?.steps.every((step) => step.run === undefined)).toBe(true)
    expect(job?.steps.some((step) => /checkout/.test(step.uses ?? ''))).toBe(false)
    for (const w of actionWiths(workflow)) {
      expect(w['cancel_only']).toBe(true)
      expect(w['prompt']).toBeUndefined()
    }
    // A failed cancel does not stop the next.
    for (const step of job?.steps.slice(1) ?? []) expect(step.if).toMatch(/^always\(\)/)
  })

  it('nightly-dependency-updates: a nightly cron and manual runs, a skill and a timeout', () => {
    const workflow = loadExample('nightly-dependency-updates.yml')
    expect(workflow.concurrency?.['cancel-in-progress']).toBe(false)
    const schedule = workflow.on['schedule'] as { cron: string }[]
    expect(schedule).toHaveLength(1)
    expect(schedule[0]?.cron.split(' ')).toHaveLength(5)
    expect('workflow_dispatch' in workflow.on).toBe(true)
    const w = onlyAction('nightly-dependency-updates.yml')
    expect(w['skill_spec']).toMatch(/^[\w.-]+\/[\w.-]+:[\w./-]+$/)
    expect(durationMinutes(String(w['timeout']))).toBe(120)
  })

  it('matrix-fan-out: one run per leg, no fail-fast, the leg in the title', () => {
    const workflow = loadExample('matrix-fan-out.yml')
    const job = Object.values(workflow.jobs)[0]
    expect(job?.strategy?.['fail-fast']).toBe(false)
    const legs = job?.strategy?.matrix?.include ?? []
    expect(legs.length).toBeGreaterThanOrEqual(3)
    expect(legs.some((leg) => 'prompt' in leg)).toBe(true)
    expect(legs.some((leg) => 'skill' in leg)).toBe(true)
    for (const leg of legs) expect('prompt' in leg !== 'skill' in leg).toBe(true)
    const w = onlyAction('matrix-fan-out.yml')
    expect(w['title']).toContain('${{ matrix.task }}')
    expect(w['prompt']).toBe('${{ matrix.prompt }}')
    expect(w['skill_spec']).toBe('${{ matrix.skill }}')
  })

  it('start-then-await: job 1 starts without waiting and exports run_id; job 2 awaits it', () => {
    const workflow = loadExample('start-then-await.yml')
    const entries = Object.entries(workflow.jobs)
    const starter = entries.find(([, job]) =>
      job.steps.some((s) => ACTION_REF.test(s.uses ?? '') && isFalse(s.with?.['wait'])),
    )
    expect(starter).toBeDefined()
    const [startId = '', startJob] = starter ?? []
    const stepId = startJob?.steps.find((s) => ACTION_REF.test(s.uses ?? ''))?.id ?? ''
    expect(stepId).not.toBe('')
    expect(startJob?.outputs?.['run_id']).toBe(`\${{ steps.${stepId}.outputs.run_id }}`)

    const awaiter = entries.find(([id]) => id !== startId)?.[1]
    expect([awaiter?.needs].flat()).toContain(startId)
    const awaitWith = awaiter?.steps.find((s) => ACTION_REF.test(s.uses ?? ''))?.with ?? {}
    expect(awaitWith['run_id']).toBe(`\${{ needs.${startId}.outputs.run_id }}`)
    expect(awaitWith['prompt']).toBeUndefined()
    expect(isFalse(awaitWith['wait'])).toBe(false)
  })
})

describe("the repository's own workflows", () => {
  const workflowFiles = readdirSync(workflowsDir).filter((name) => /\.ya?ml$/.test(name))

  it('are there: CI and release', () => {
    expect(workflowFiles).toEqual(expect.arrayContaining(['ci.yml', 'release.yml']))
  })

  it.each(workflowFiles)('%s conforms to the workflow schema', (name) => {
    expect(schemaErrors(readFileSync(`${workflowsDir}${name}`, 'utf8'))).toEqual([])
  })
})

describe('the checks themselves', () => {
  const good = `
on: push
permissions:
  contents: read
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: someone/cloud-agent-run-action@v1
        with:
          api_key: \${{ secrets.KEY }}
          prompt: hi
`

  function withStep(extra: string): string {
    return good.replace('          prompt: hi\n', `          prompt: hi\n${extra}`)
  }

  it('pass a good workflow', () => {
    expect(schemaErrors(good)).toEqual([])
    expect(projectRuleErrors(good, inputs)).toEqual([])
  })

  it('the schema flags an unknown job key, a mistyped value and a step that is neither run nor uses', () => {
    const bad = good
      .replace('    runs-on:', '    timeout-minutes: soon\n    run-on: x\n    runs-on:')
      .concat('      - name: nothing to do\n')
    const errors = schemaErrors(bad).join('\n')
    expect(errors).toContain("Additional property 'run-on' is not allowed")
    expect(errors).toMatch(/timeout-minutes: The value must be number/)
    expect(errors).toMatch(/steps\/1/)
  })

  it('flag inputs action.yml does not declare, and missing required ones', () => {
    expect(projectRuleErrors(withStep('          promt: typo\n'), inputs)).toEqual([
      'job a, step 1: `promt` is not an input in action.yml',
    ])
    expect(projectRuleErrors(good.replace(/ {10}api_key: .*\n/, ''), inputs)).toEqual([
      'job a, step 1: no `api_key`',
    ])
  })

  it('flag an api_key that is not a secret', () => {
    expect(projectRuleErrors(good.replace('${{ secrets.KEY }}', 'sk-live-123'), inputs)).toEqual([
      'job a, step 1: api_key must come from ${{ secrets.… }}',
    ])
  })

  it('flag a workflow without permissions, and one that never uses the action', () => {
    expect(projectRuleErrors(good.replace('permissions:\n  contents: read\n', ''), inputs)).toEqual(
      ['job a: no `permissions` (none at the top level either)'],
    )
    const jobLevel = good
      .replace('permissions:\n  contents: read\n', '')
      .replace('    runs-on:', '    permissions: {}\n    runs-on:')
    expect(projectRuleErrors(jobLevel, inputs)).toEqual([])
    const other = good.replace('someone/cloud-agent-run-action@v1', 'actions/checkout@v4')
    expect(projectRuleErrors(other, inputs)).toEqual(['no step uses cloud-agent-run-action'])
  })

  it("flag a job timeout-minutes that is not above the action's timeout", () => {
    const tight = withStep('          timeout: 2h\n').replace(
      '    runs-on:',
      '    timeout-minutes: 120\n    runs-on:',
    )
    expect(projectRuleErrors(tight, inputs)).toEqual([
      "job a, step 1: job timeout-minutes 120 is not above the action's timeout 2h",
    ])
    expect(
      projectRuleErrors(tight.replace('timeout-minutes: 120', 'timeout-minutes: 121'), inputs),
    ).toEqual([])
    expect(projectRuleErrors(tight.replace('timeout: 2h', 'wait: false'), inputs)).toEqual([])
    const cleanup = good.replace('    runs-on:', '    timeout-minutes: 5\n    runs-on:')
    expect(projectRuleErrors(cleanup, inputs)).toHaveLength(1)
    expect(
      projectRuleErrors(
        cleanup.replace('prompt: hi', 'name: n\n          cancel_only: true'),
        inputs,
      ),
    ).toEqual([])
    expect(projectRuleErrors(withStep('          timeout: 7h\n'), inputs)).toHaveLength(1)
  })

  it('read durations as the action does', () => {
    expect(durationMinutes('90m')).toBe(90)
    expect(durationMinutes('2h')).toBe(120)
    expect(durationMinutes('30s')).toBe(0.5)
    expect(durationMinutes('120')).toBe(2)
    expect(durationMinutes('500ms')).toBeCloseTo(0.5 / 60)
    expect(durationMinutes('soon')).toBeUndefined()
  })
})

describe('runs that outlive their step', () => {
  it('detached-review: starts the run, shows it, and leaves it to the reconcile pass', () => {
    const workflow = loadExample('detached-review.yml')
    expect(workflow.permissions).toEqual({
      contents: 'read',
      'pull-requests': 'write',
      statuses: 'write',
    })
    const w = onlyAction('detached-review.yml')
    expect(w).toMatchObject({ wait: false, comment: true, commit_status: true })
    expect(workflow.jobs['review']?.['timeout-minutes']).toBeLessThanOrEqual(5)
  })

  it('reconcile: every five minutes and by hand, with what the pass reads and writes', () => {
    const workflow = loadExample('reconcile.yml')
    expect(workflow.on['schedule']).toEqual([{ cron: '*/5 * * * *' }])
    expect(workflow.on).toHaveProperty('workflow_dispatch')
    expect(workflow.permissions).toMatchObject({
      actions: 'read',
      'pull-requests': 'write',
      statuses: 'write',
    })
    const [step] = workflow.jobs['reconcile']?.steps ?? []
    expect(step?.uses).toBe('octo-org/cloud-agent-run-action/reconcile@v1')
  })

  it('budgeted-nightly: a daily credit budget, and a note when it stops the run', () => {
    const w = onlyAction('budgeted-nightly.yml')
    expect(w['daily_credit_budget']).toBe(2000)
    const steps = loadExample('budgeted-nightly.yml').jobs['maintain']?.steps ?? []
    expect(steps[1]?.if).toContain("steps.agent.outputs.outcome == 'over_budget'")
  })
})

describe("the README's table of examples", () => {
  it("lists each example's permissions as its workflow grants them", () => {
    const readme = readFileSync(`${root}README.md`, 'utf8')
    const wrong: string[] = []
    for (const name of exampleFiles) {
      const row = readme
        .split('\n')
        .find((line) => line.startsWith(`| [${name}](examples/${name})`))
      if (!row) continue
      const cell = row.split('|').at(-2) ?? ''
      const workflow = loadExample(name)
      const granted = Object.entries(workflow.permissions ?? {}).map(
        ([permission, level]) => `\`${permission}: ${level}\``,
      )
      const shown = cell.match(/`[\w-]+: \w+`/g) ?? []
      if (granted.sort().join(', ') !== [...shown].sort().join(', ')) {
        wrong.push(
          `${name}: README shows ${shown.join(', ') || 'none'}, the workflow grants ${granted.join(', ') || 'none'}`,
        )
      }
    }
    expect(wrong).toEqual([])
  })
})
