/**
 * `npm run demo`: the action end to end, with no key and no network. It starts
 * the fake Cloud Agent Runs API on a free loopback port, runs the committed
 * bundle against it exactly as the runner would (main step, then post step),
 * and prints the step's log, its outputs and its job summary.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { conversationStep, FakeAgentApi } from '../test/fake-api/server.ts'
import { runPostStep, runStep, type StepResult } from '../test/e2e/harness.ts'

const DEMO_KEY = 'demo-key-not-a-secret'

// The steps' folders (their runner temp, outputs and summary) go into one scratch folder, which
// the demo removes when it ends: a demo leaves nothing behind.
const scratch = mkdtempSync(join(tmpdir(), 'cloud-agent-demo-'))
process.env.TMPDIR = scratch

function section(title: string, body: string): void {
  console.log(`\n━━ ${title} ${'━'.repeat(Math.max(0, 70 - title.length))}\n${body.trimEnd()}`)
}

function show(result: StepResult): string {
  return result.stdout + (result.stderr ? `\n[stderr]\n${result.stderr}` : '')
}

/** What the demo agent says at the end: the result output, the summary's answer. */
const ANSWER = [
  '## Review',
  '',
  '**Verdict: approve**, with one suggestion.',
  '',
  '- `src/parse.ts`: the new `splitLines()` handles `\\r\\n`; a test for a lone `\\r` would pin it.',
  '- No risky changes: no new dependencies, no workflow edits.',
  '',
  'The verdict is also in `review.json`.',
].join('\n')

const api = await FakeAgentApi.start({
  apiKey: DEMO_KEY,
  script: (_create, runId) => [
    { state: 'QUEUED', afterMs: 0 },
    {
      state: 'INPROGRESS',
      afterMs: 800,
      patch: {
        session_id: `sess_${runId}`,
        session_link: `https://app.example.test/sessions/${runId}`,
      },
      conversation: [
        conversationStep('step_1', [
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Reading the diff.' },
              { type: 'action', id: 'a1', category: 'files', name: 'read_file', input: {} },
              { type: 'action', id: 'a2', category: 'command', name: 'run_tests', input: {} },
            ],
          },
        ]),
      ],
    },
    {
      state: 'SUCCEEDED',
      afterMs: 2_500,
      patch: {
        run_time: 'PT2.5S',
        artifacts: [
          {
            artifact_type: 'FILE',
            created_at: new Date().toISOString(),
            data: {
              artifact_uid: 'art_review',
              filepath: 'review.json',
              filename: 'review.json',
              mime_type: 'application/json',
            },
          },
        ],
      },
      conversation: [
        conversationStep('step_2', [
          { role: 'assistant', content: [{ type: 'text', text: ANSWER }] },
        ]),
      ],
    },
  ],
})
api.setArtifactContent('art_review', '{"verdict": "approve", "suggestions": 1}\n')

try {
  const inputs = {
    api_key: DEMO_KEY,
    base_url: api.baseUrl,
    prompt: 'Review this pull request and flag risky changes',
    title: 'Demo: review a pull request',
    environment_id: 'env_demo',
    skill_spec: 'octo-org/skills:review',
    poll_interval: '500ms',
    show_progress: 'true',
    download_artifacts: 'review.json',
  }
  console.log(`Fake Cloud Agent Runs API listening at ${api.baseUrl}`)
  console.log('Running dist/main.js as the runner would (main step)…')
  const main = await runStep({ inputs, target: 'bundle' })
  section('Main step log', show(main))
  section("The agent's answer (the result output)", main.outputs.result ?? '(none)')
  const otherOutputs = Object.entries(main.outputs).filter(([name]) => name !== 'result')
  section(
    'Other outputs (GITHUB_OUTPUT)',
    JSON.stringify(Object.fromEntries(otherOutputs), null, 2),
  )
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
  rmSync(scratch, { recursive: true, force: true })
}
