/**
 * `npm run screenshots`: pictures of what users see, made by the real thing.
 * Each scenario runs the bundle against the fake Cloud Agent Runs API and the
 * fake GitHub, exactly as the end-to-end tests do; the job summary and the pull
 * request comment it wrote are rendered as GitHub renders Markdown, and a
 * headless Chromium photographs them, one pair per way a step ends.
 *
 * They go to screenshots/ (not tracked), so that a look never changes the README's
 * pictures; `npm run screenshots -- --update` writes docs/images/ instead.
 *
 * Needs a Chromium (Debian's `chromium` package, or CHROMIUM_PATH) and a colour emoji
 * font (Debian's `fonts-noto-color-emoji`): without one, every emoji is a box.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { launch } from 'puppeteer-core'
import { conversationStep, FakeAgentApi, type RunScript } from '../test/fake-api/server.ts'
import { FakeGitHub } from '../test/fake-github/server.ts'
import {
  DEFAULT_GITHUB_TOKEN,
  ROOT,
  runStep,
  startStep,
  until,
  type StepResult,
} from '../test/e2e/harness.ts'
import { githubPage } from './render/github-markdown.ts'
import { captureApproval } from './screenshot-approval.ts'
import { captureCampaign } from './screenshot-campaign.ts'
import { captureReport } from './screenshot-report.ts'

const KEY = 'screenshot-key-not-a-secret'
const UPDATE = process.argv.includes('--update')
const OUT = UPDATE ? join(ROOT, 'docs', 'images') : join(ROOT, 'screenshots')
const PULL_REQUEST = { owner: 'octo-org', repo: 'app', number: 7 }
/** Mermaid, which renders a summary's chart as GitHub renders it (a dev dependency for this). */
const MERMAID = join(ROOT, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js')
/** In the page: each mermaid code block becomes its chart (the page's own script, not Node's). */
const RENDER_MERMAID = `(async () => {
  for (const block of document.querySelectorAll('code.language-mermaid')) {
    const chart = document.createElement('div')
    chart.className = 'mermaid'
    chart.textContent = block.textContent
    block.parentElement.replaceWith(chart)
  }
  await window.mermaid.run()
})()`

interface Scenario {
  name: string
  inputs: Record<string, string>
  script: (runId: string, prompt: string) => RunScript
  /** A newer step with the same name that replaces this one's run (cancel_previous). */
  newer?: Record<string, string>
  /** Shown with its collapsed blocks open, as a reader who clicked them sees it. */
  open?: boolean
  /** Also photographs the comment while the run works: comment-in-progress.png. */
  live?: boolean
  /** Cancels the workflow (SIGINT) once the comment shows the run in progress. */
  interrupt?: boolean
}

const sessionOf = (runId: string) => `https://app.example.test/sessions/${runId}`

const saying = (text: string) =>
  conversationStep('step_final', [{ role: 'assistant', content: [{ type: 'text', text }] }])

const REVIEW = [
  'Reviewed the 4 changed files. Two things to fix before merging:',
  '',
  '1. `parseConfig` ignores `timeout` when it is `0`; the check should be `=== undefined`.',
  '2. The new endpoint has no test for a 404.',
  '',
  'I opened a pull request with both fixes.',
].join('\n')

const working = (runId: string): RunScript => [
  { state: 'QUEUED', afterMs: 0 },
  {
    state: 'INPROGRESS',
    afterMs: 300,
    patch: {
      session_link: sessionOf(runId),
      request_usage: { compute_cost: 1.25, inference_cost: 12.5, platform_cost: 0.5 },
    },
  },
]

const SCENARIOS: Scenario[] = [
  {
    name: 'succeeded',
    inputs: { title: 'Review pull request #7', prompt: 'Review this pull request.' },
    script: (runId) => [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 300, patch: { session_link: sessionOf(runId) } },
      {
        state: 'SUCCEEDED',
        afterMs: 900,
        patch: {
          run_time: 'PT4M12S',
          request_usage: { compute_cost: 3.5, inference_cost: 41.25, platform_cost: 1 },
          artifacts: [
            {
              artifact_type: 'PULL_REQUEST',
              created_at: '2026-01-01T00:00:00Z',
              data: { url: 'https://github.com/octo-org/app/pull/8', branch: 'agent/fix-typo' },
            },
          ],
        },
        conversation: [saying(REVIEW)],
      },
    ],
  },
  {
    name: 'failed',
    inputs: { title: 'Fix the failing check', prompt: 'Make the build pass.' },
    script: (runId) => [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: 300, patch: { session_link: sessionOf(runId) } },
      {
        state: 'FAILED',
        afterMs: 900,
        patch: {
          run_time: 'PT1M3S',
          status_message: {
            message:
              'The environment could not install dependencies; see https://docs.example.test/envs(setup) for help.',
            error_code: 'environment_setup_failed',
          },
        },
      },
    ],
  },
  {
    name: 'timed-out',
    inputs: { title: 'Update the dependencies', prompt: 'Update them.', timeout: '3s' },
    script: working,
    live: true,
  },
  {
    name: 'blocked',
    inputs: { title: 'Migrate the database', prompt: 'Migrate it.', on_blocked: 'pass' },
    script: (runId) => [
      ...working(runId),
      {
        state: 'BLOCKED',
        afterMs: 900,
        conversation: [
          saying(
            'Which database should I migrate: `orders` (12 GB) or `orders_archive` (310 GB)? The archive needs a maintenance window.',
          ),
        ],
      },
    ],
  },
  {
    name: 'superseded',
    inputs: { title: 'Review pull request #7', prompt: 'older', name: 'pr-7', timeout: '30s' },
    newer: {
      title: 'Review pull request #7',
      prompt: 'newer',
      name: 'pr-7',
      cancel_previous: 'true',
    },
    open: true,
    script: (runId, prompt) =>
      prompt === 'older'
        ? working(runId)
        : [
            ...working(runId),
            {
              state: 'SUCCEEDED',
              afterMs: 1200,
              patch: { run_time: 'PT2M5S' },
              conversation: [saying('No problems found in the new commit.')],
            },
          ],
  },
  {
    name: 'error',
    inputs: { title: 'Fix the failing check', prompt: 'Make the build pass.' },
    script: (runId) => [
      ...working(runId),
      {
        state: 'ERROR',
        afterMs: 900,
        patch: {
          run_time: 'PT2M40S',
          status_message: {
            message: 'The agent worker was lost; the run could not go on.',
            retryable: true,
          },
        },
      },
    ],
  },
  {
    name: 'interrupted',
    inputs: { title: 'Review pull request #7', prompt: 'Review it.' },
    script: working,
    interrupt: true,
  },
  {
    name: 'blocked-waiting',
    inputs: { title: 'Migrate the database', prompt: 'Migrate it.', timeout: '4s' },
    script: (runId) => [...working(runId), blockedAsking(900)],
  },
  {
    name: 'blocked-failed',
    inputs: { title: 'Migrate the database', prompt: 'Migrate it.', on_blocked: 'fail' },
    script: (runId) => [...working(runId), blockedAsking(900)],
  },
  {
    name: 'over-budget',
    inputs: { title: 'Update the dependencies', prompt: 'Update them.', max_credits: '10' },
    script: (runId) => [
      ...working(runId),
      {
        state: 'INPROGRESS',
        afterMs: 900,
        patch: { request_usage: { compute_cost: 2.5, inference_cost: 9.75, platform_cost: 0.5 } },
      },
    ],
  },
  {
    name: 'started',
    inputs: { title: 'Write the release notes', prompt: 'Write them.', wait: 'false' },
    script: working,
  },
]

function blockedAsking(afterMs: number): RunScript[number] {
  return {
    state: 'BLOCKED',
    afterMs,
    conversation: [
      saying(
        'Which database should I migrate: `orders` (12 GB) or `orders_archive` (310 GB)? The archive needs a maintenance window.',
      ),
    ],
  }
}

async function capture(
  scenario: Scenario,
): Promise<{ summary: string; comment: string; live?: string }> {
  const api = await FakeAgentApi.start({
    apiKey: KEY,
    script: (create, runId) => scenario.script(runId, create.prompt ?? ''),
  })
  const github = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  try {
    const dir = mkdtempSync(join(tmpdir(), 'screenshot-event-'))
    const eventPath = join(dir, 'event.json')
    writeFileSync(eventPath, JSON.stringify({ pull_request: { number: PULL_REQUEST.number } }))
    const step = {
      target: 'bundle' as const,
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        poll_interval: '100ms',
        comment: 'true',
        ...scenario.inputs,
      },
      env: {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_API_URL: github.apiUrl,
      },
    }
    const thread = () => github.comments(PULL_REQUEST.owner, PULL_REQUEST.repo, PULL_REQUEST.number)
    let result: StepResult
    let live: string | undefined
    if (scenario.newer) {
      const older = startStep(step)
      await until(() => /In progress/.test(thread()[0]?.body ?? ''), 'the older run is shown')
      await runStep({ ...step, inputs: { ...step.inputs, ...scenario.newer } })
      result = await older.result
    } else {
      const running = startStep(step)
      if (scenario.interrupt) {
        await until(() => /In progress/.test(thread()[0]?.body ?? ''), 'the run is shown working')
        running.child.kill('SIGINT')
      }
      if (scenario.live) {
        // The comment while the run works, once it links the session.
        await until(
          () => /In progress[\s\S]*\[Session\]/.test(thread()[0]?.body ?? ''),
          'the run is shown in progress',
        )
        live = thread()[0]?.body
      }
      result = await running.result
    }
    const comment = thread()[0]
    if (!comment) throw new Error(`${scenario.name}: the step wrote no comment:\n${result.stdout}`)
    return { summary: result.summary, comment: comment.body, live }
  } finally {
    await Promise.all([api.close(), github.close()])
  }
}

const REVIEW_HEAD = 'c0ffee0000000000000000000000000000000007'

const REVIEW_PATCH = [
  '@@ -10,6 +10,7 @@ export function parseConfig(raw: RawConfig): Config {',
  '   const retries = raw.retries ?? 3',
  '-  const timeout = raw.timeout || 30',
  '+  const timeout = raw.timeout || 0',
  '+  const verbose = Boolean(raw.verbose)',
  '   return { retries, timeout }',
  ' }',
].join('\n')

const REVIEW_DOCUMENT = {
  summary:
    'The change makes `timeout: 0` mean "no timeout", but `parseConfig` now turns a missing ' +
    'timeout into 0 as well, so every request waits forever by default.',
  verdict: 'request_changes',
  comments: [
    {
      path: 'src/config.ts',
      line: 12,
      body: 'A missing `timeout` becomes `0` here, which now means *wait forever*. Use `raw.timeout ?? 30`.',
    },
    { path: 'src/config.ts', line: 13, body: '`verbose` is read but never returned.' },
    { path: 'src/server.ts', line: 88, body: 'The new 404 path has no test.' },
  ],
}

/**
 * A pull-request review and its check run, from one step with pull_request_review and check_run,
 * and the job summary and comment of that step: one verdict on every surface.
 */
async function captureReview(): Promise<{
  review: string
  check: string
  summary: string
  comment: string
}> {
  const answer = `I reviewed the change.\n\n\`\`\`json\n${JSON.stringify(REVIEW_DOCUMENT)}\n\`\`\``
  const api = await FakeAgentApi.start({
    apiKey: KEY,
    script: (_create, runId) => [
      ...working(runId),
      { state: 'SUCCEEDED', afterMs: 900, conversation: [saying(answer)] },
    ],
  })
  const github = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  const { owner, repo, number } = PULL_REQUEST
  try {
    github.setPullRequest(owner, repo, number, { headSha: REVIEW_HEAD })
    github.setPullRequestFiles(owner, repo, number, [
      { filename: 'src/config.ts', patch: REVIEW_PATCH },
    ])
    const dir = mkdtempSync(join(tmpdir(), 'screenshot-event-'))
    const eventPath = join(dir, 'event.json')
    const event = { pull_request: { number, head: { sha: REVIEW_HEAD } } }
    writeFileSync(eventPath, JSON.stringify(event))
    const result = await runStep({
      target: 'bundle',
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        poll_interval: '100ms',
        name: 'agent-review',
        prompt: 'Review this pull request.',
        pull_request_review: 'true',
        check_run: 'true',
        comment: 'true',
      },
      env: {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_API_URL: github.apiUrl,
      },
    })
    const [review] = github.reviews(owner, repo, number)
    const [check] = github.checkRuns(owner, repo, REVIEW_HEAD)
    if (!review || !check) throw new Error(`review: nothing was posted:\n${result.stdout}`)
    // Inline comments show beside their lines in "Files changed"; here, after the review.
    const inline = review.comments.map(
      (comment) => `---\n\n**\`${comment.path}\`** line ${comment.line}\n\n${comment.body}`,
    )
    // Annotations are plain text on GitHub; listed after the summary as the checks page does.
    const annotations = check.annotations.map(
      (a) => `- \`${a.path}\` line ${a.start_line}: ${a.message}`,
    )
    const [comment] = github.comments(owner, repo, number)
    return {
      summary: result.summary,
      comment: comment?.body ?? '',
      review: [review.body, ...inline].join('\n\n'),
      check: [
        `## ${check.output.title ?? ''}`,
        check.output.summary ?? '',
        `### Annotations (${check.annotations.length})`,
        annotations.join('\n'),
      ].join('\n\n'),
    }
  } finally {
    await Promise.all([api.close(), github.close()])
  }
}

/** A nightly set over four packages: one fails, `pass_when: 3` holds. In progress, then ended. */
async function captureSet(): Promise<{ running: string; ended: string }> {
  const api = await FakeAgentApi.start({
    apiKey: KEY,
    script: (create, runId) => {
      const prompt = create.prompt ?? ''
      const slow = prompt.includes('web') ? 1_500 : prompt.includes('cli') ? 2_500 : 600
      return [
        ...working(runId),
        {
          state: prompt.includes('cli') ? 'FAILED' : 'SUCCEEDED',
          afterMs: slow,
          patch: {
            request_usage: { compute_cost: 2.5, inference_cost: 18.75, platform_cost: 0.75 },
            ...(prompt.includes('cli')
              ? { status_message: { message: 'The tests of packages/cli do not build.' } }
              : {}),
          },
        },
      ]
    },
  })
  const github = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  const { owner, repo, number } = PULL_REQUEST
  try {
    const dir = mkdtempSync(join(tmpdir(), 'screenshot-event-'))
    const eventPath = join(dir, 'event.json')
    writeFileSync(eventPath, JSON.stringify({ pull_request: { number } }))
    const packages = ['api', 'web', 'cli', 'docs']
    const step = startStep({
      target: 'bundle',
      inputs: {
        api_key: KEY,
        base_url: api.baseUrl,
        poll_interval: '100ms',
        name: 'nightly-deps',
        comment: 'true',
        pass_when: '3',
        max_parallel: '3',
        tasks: JSON.stringify(
          packages.map((name) => ({
            prompt: `Update the dependencies of packages/${name}`,
            title: `Update packages/${name}`,
          })),
        ),
      },
      env: {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_API_URL: github.apiUrl,
      },
    })
    const thread = () => github.comments(owner, repo, number)
    await until(() => /1 of 4 done/.test(thread()[0]?.body ?? ''), 'the set is shown running')
    const running = thread()[0]?.body ?? ''
    const result = await step.result
    const ended = thread()[0]?.body
    if (!ended) throw new Error(`tasks: the step wrote no comment:\n${result.stdout}`)
    return { running, ended }
  } finally {
    await Promise.all([api.close(), github.close()])
  }
}

function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']
  const found = candidates.find((path) => path && existsSync(path))
  if (!found) throw new Error('No Chromium found: apt-get install chromium, or set CHROMIUM_PATH.')
  return found
}

/** Emoji without a colour emoji font are boxes: say which font, and go on. */
function checkEmojiFont(): void {
  let fonts = ''
  try {
    fonts = execFileSync('fc-list', [':charset=1f600'], { encoding: 'utf8' })
  } catch {
    // No fontconfig to ask: Chromium will say it with boxes.
  }
  if (!/emoji/i.test(fonts)) {
    console.warn(
      'No colour emoji font: emoji will show as boxes. On Debian: apt-get install fonts-noto-color-emoji',
    )
  }
}

checkEmojiFont()
mkdirSync(OUT, { recursive: true })
const browser = await launch({
  executablePath: chromiumPath(),
  args: ['--no-sandbox', '--font-render-hinting=none'],
})
try {
  const page = await browser.newPage()
  await page.setViewport({ width: 960, height: 600, deviceScaleFactor: 1 })
  for (const scenario of SCENARIOS) {
    const { summary, comment, live } = await capture(scenario)
    const caption = 'github-actions bot commented'
    const shots = [
      { name: `summary-${scenario.name}`, caption: 'Job summary · review', markdown: summary },
      { name: `comment-${scenario.name}`, caption, markdown: comment },
      ...(live ? [{ name: 'comment-in-progress', caption, markdown: live }] : []),
    ]
    for (const shot of shots) {
      const html = githubPage({ title: shot.name, caption: shot.caption, markdown: shot.markdown })
      await page.setContent(html, { waitUntil: 'load' })
      if (scenario.open) {
        await page.$$eval('details', (blocks) =>
          blocks.forEach((block) => block.setAttribute('open', '')),
        )
      }
      const frame = await page.$('#frame')
      const path = join(OUT, `${shot.name}.png`) as `${string}.png`
      await frame?.screenshot({ path })
      console.log(`wrote ${path}`)
    }
  }
  const { review, check, summary: reviewSummary, comment: reviewComment } = await captureReview()
  const set = await captureSet()
  const approval = await captureApproval(KEY, [
    ...working('approved'),
    { state: 'SUCCEEDED', afterMs: 600 },
  ])
  // The report's chart: GitHub renders a mermaid block with Mermaid itself, so the page does too.
  await page.setContent(
    githubPage({
      title: 'report-summary',
      caption: 'Job summary · report',
      markdown: await captureReport(KEY),
    }),
    { waitUntil: 'load' },
  )
  await page.addScriptTag({ path: MERMAID })
  await page.evaluate(RENDER_MERMAID)
  await (await page.$('#frame'))?.screenshot({ path: join(OUT, 'report-summary.png') })
  console.log(`wrote ${join(OUT, 'report-summary.png')}`)
  await page.setContent(
    githubPage({
      title: 'campaign-summary',
      caption: 'Job summary · report (campaign)',
      markdown: await captureCampaign(KEY),
    }),
    { waitUntil: 'load' },
  )
  await page.addScriptTag({ path: MERMAID })
  await page.evaluate(RENDER_MERMAID)
  await (await page.$('#frame'))?.screenshot({ path: join(OUT, 'campaign-summary.png') })
  console.log(`wrote ${join(OUT, 'campaign-summary.png')}`)
  for (const shot of [
    { name: 'review', caption: 'github-actions bot requested changes', markdown: review },
    { name: 'check-run', caption: 'cloud-agent/agent-review · Failure', markdown: check },
    { name: 'summary-review', caption: 'Job summary · review', markdown: reviewSummary },
    { name: 'comment-review', caption: 'github-actions bot commented', markdown: reviewComment },
    {
      name: 'comment-tasks-running',
      caption: 'github-actions bot commented',
      markdown: set.running,
    },
    { name: 'comment-tasks', caption: 'github-actions bot commented', markdown: set.ended },
    {
      name: 'comment-approval',
      caption: 'github-actions bot commented',
      markdown: approval.waiting,
    },
    { name: 'summary-approval', caption: 'Job summary · review', markdown: approval.summary },
    {
      name: 'check-run-approval',
      caption: 'cloud-agent/fork-review-7 · Action required',
      markdown: approval.check,
    },
    {
      name: 'comment-approved',
      caption: 'github-actions bot commented',
      markdown: approval.approved,
    },
  ]) {
    await page.setContent(githubPage({ title: shot.name, ...shot }), { waitUntil: 'load' })
    const path = join(OUT, `${shot.name}.png`) as `${string}.png`
    await (await page.$('#frame'))?.screenshot({ path })
    console.log(`wrote ${path}`)
  }
} finally {
  await browser.close()
}
