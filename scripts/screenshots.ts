/**
 * `npm run screenshots`: pictures of what users see, made by the real thing.
 * Each scenario runs the bundle against the fake Cloud Agent Runs API and the
 * fake GitHub, exactly as the end-to-end tests do; the job summary and the pull
 * request comment it wrote are rendered as GitHub renders Markdown, and a
 * headless Chromium photographs them into docs/images/.
 *
 * Needs a Chromium: Debian's `chromium` package, or CHROMIUM_PATH.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { launch } from 'puppeteer-core'
import { FakeAgentApi, type RunScript } from '../test/fake-api/server.ts'
import { FakeGitHub } from '../test/fake-github/server.ts'
import { DEFAULT_GITHUB_TOKEN, ROOT, runStep } from '../test/e2e/harness.ts'
import { githubPage } from './render/github-markdown.ts'

const KEY = 'screenshot-key-not-a-secret'
const OUT = join(ROOT, 'docs', 'images')
const PULL_REQUEST = { owner: 'octo-org', repo: 'app', number: 7 }

interface Scenario {
  name: string
  inputs: Record<string, string>
  script: (runId: string) => RunScript
}

const sessionOf = (runId: string) => `https://app.example.test/sessions/${runId}`

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
]

async function capture(scenario: Scenario): Promise<{ summary: string; comment: string }> {
  const api = await FakeAgentApi.start({
    apiKey: KEY,
    script: (_create, runId) => scenario.script(runId),
  })
  const github = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  try {
    const dir = mkdtempSync(join(tmpdir(), 'screenshot-event-'))
    const eventPath = join(dir, 'event.json')
    writeFileSync(eventPath, JSON.stringify({ pull_request: { number: PULL_REQUEST.number } }))
    const result = await runStep({
      target: 'bundle',
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
    })
    const comment = github.comments(PULL_REQUEST.owner, PULL_REQUEST.repo, PULL_REQUEST.number)[0]
    if (!comment) throw new Error(`${scenario.name}: the step wrote no comment:\n${result.stdout}`)
    return { summary: result.summary, comment: comment.body }
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

mkdirSync(OUT, { recursive: true })
const browser = await launch({
  executablePath: chromiumPath(),
  args: ['--no-sandbox', '--font-render-hinting=none'],
})
try {
  const page = await browser.newPage()
  await page.setViewport({ width: 960, height: 600, deviceScaleFactor: 1 })
  for (const scenario of SCENARIOS) {
    const { summary, comment } = await capture(scenario)
    const shots = [
      { kind: 'summary', caption: 'Job summary · review', markdown: summary },
      { kind: 'comment', caption: 'github-actions bot commented', markdown: comment },
    ]
    for (const shot of shots) {
      const html = githubPage({ title: shot.kind, caption: shot.caption, markdown: shot.markdown })
      await page.setContent(html, { waitUntil: 'load' })
      const frame = await page.$('#frame')
      const path = join(OUT, `${shot.kind}-${scenario.name}.png`) as `${string}.png`
      await frame?.screenshot({ path })
      console.log(`wrote ${path}`)
    }
  }
} finally {
  await browser.close()
}
