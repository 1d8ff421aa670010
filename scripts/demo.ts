/**
 * `npm run demo`: the action end to end, with no key and no network. It starts
 * the fake Cloud Agent Runs API on a free loopback port, runs the committed
 * bundle against it exactly as the runner would (main step, then post step),
 * and prints the step's log, its outputs and its job summary.
 */
import { FakeAgentApi } from '../test/fake-api/server.ts'
import { runPostStep, runStep, type StepResult } from '../test/e2e/harness.ts'

const DEMO_KEY = 'demo-key-not-a-secret'

function section(title: string, body: string): void {
  console.log(`\n━━ ${title} ${'━'.repeat(Math.max(0, 70 - title.length))}\n${body.trimEnd()}`)
}

function show(result: StepResult): string {
  return result.stdout + (result.stderr ? `\n[stderr]\n${result.stderr}` : '')
}

const api = await FakeAgentApi.start({
  apiKey: DEMO_KEY,
  script: (_create, runId) => [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 800, patch: { session_id: `sess_${runId}` } },
    {
      state: 'SUCCEEDED',
      afterMs: 2_500,
      patch: {
        session_link: `https://app.example.test/sessions/${runId}`,
        run_time: 'PT2.5S',
      },
    },
  ],
})

try {
  const inputs = {
    api_key: DEMO_KEY,
    base_url: api.baseUrl,
    prompt: 'Review this pull request and flag risky changes',
    title: 'Demo: review a pull request',
    environment_id: 'env_demo',
    skill_spec: 'octo-org/skills:review',
    poll_interval: '500ms',
  }
  console.log(`Fake Cloud Agent Runs API listening at ${api.baseUrl}`)
  console.log('Running dist/main.js as the runner would (main step)…')
  const main = await runStep({ inputs, target: 'bundle' })
  section('Main step log', show(main))
  section('Outputs (GITHUB_OUTPUT)', JSON.stringify(main.outputs, null, 2))
  section('Job summary (GITHUB_STEP_SUMMARY)', main.summary)

  const post = await runPostStep(main, { inputs, target: 'bundle' })
  section('Post step log', show(post))
  section(
    'Requests the fake API received',
    api.requests.map((request) => `${request.method} ${request.path}`).join('\n'),
  )
  console.log(`\nMain step exit code ${main.code}, post step exit code ${post.code}.`)
  process.exitCode = main.code === 0 && post.code === 0 ? 0 : 1
} finally {
  await api.close()
}
