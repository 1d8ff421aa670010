/**
 * `node scripts/bench/continue.ts`: what three CI failures on a pull request an agent run made
 * cost, when each goes to a fresh run (fix-failing-check.yml before issue 39) and when each
 * continues the run that made the pull request (`continue_from: pull_request`), side by side: the
 * committed bundle, as the runner runs it, against the fake API, on a clock where one minute
 * takes one second. A third column: continuing a run whose session is gone (410), which carries
 * its conversation into a new run.
 *
 * The usage model: a new run pays the fake's per-run setup cost (`setupCredits`: its sandbox and
 * clone) once it starts, then the fake's per-second charge while it works (its request_usage).
 * A fresh run of a fix rebuilds the context (reads the issue, the code, the pull request:
 * CONTEXT_MIN) before the fix itself (FIX_MIN); a follow-up to the run that made the pull request
 * only fixes; a new run carrying a conversation pays the setup, but not the context. Reported:
 * runs created for the three fixes, their credits, and the time from each failure to its fix.
 */
import { FakeAgentApi, type RunScript } from '../../test/fake-api/server.ts'
import { FakeGitHub } from '../../test/fake-github/server.ts'
import { DEFAULT_GITHUB_TOKEN, runStep } from '../../test/e2e/harness.ts'
import type { CreateRunRequest, RunItem } from '../../src/api/types.ts'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const KEY = 'sk-bench-continue'
const MINUTE_MS = 1_000
const FAILURES = 3
const SETUP_MIN = 1
const BUILD_MIN = 6
const CONTEXT_MIN = 4
const FIX_MIN = 2
const SETUP_CREDITS = 10
const PR = 7
const PR_URL = `https://github.com/octo-org/app/pull/${PR}`

type Strategy = 'fresh' | 'continue' | 'continue, session gone'

const at = (min: number) => min * MINUTE_MS

/** How a new run works: the one that makes the pull request, a fix from scratch, or one carrying a conversation. */
function scriptFor(create: CreateRunRequest, sessionGone: boolean): RunScript {
  if (create.prompt?.startsWith('Fix issue')) {
    const artifacts = [
      {
        artifact_type: 'PULL_REQUEST' as const,
        created_at: new Date().toISOString(),
        data: { url: PR_URL, branch: 'agent/fix-3' },
      },
    ]
    return [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: at(SETUP_MIN) },
      {
        state: 'SUCCEEDED',
        afterMs: at(SETUP_MIN + BUILD_MIN),
        patch: { artifacts },
        ...(sessionGone ? { sessionGone: true } : {}),
      },
    ]
  }
  const work = create.conversation_id ? FIX_MIN : CONTEXT_MIN + FIX_MIN
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: at(SETUP_MIN) },
    { state: 'SUCCEEDED', afterMs: at(SETUP_MIN + work) },
  ]
}

const creditsOf = (run: RunItem | undefined): number => {
  const usage = run?.request_usage
  return (usage?.inference_cost ?? 0) + (usage?.compute_cost ?? 0) + (usage?.platform_cost ?? 0)
}

async function threeFailures(strategy: Strategy) {
  const api = await FakeAgentApi.start({
    apiKey: KEY,
    setupCredits: SETUP_CREDITS,
    script: (create) => scriptFor(create, strategy === 'continue, session gone'),
    followupScript: () => [
      { state: 'INPROGRESS', afterMs: 0 },
      { state: 'SUCCEEDED', afterMs: at(FIX_MIN) },
    ],
  })
  const gh = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  const base = { api_key: KEY, base_url: api.baseUrl, poll_interval: '100ms' }
  // The issue's step: the run that makes the pull request.
  const made = await runStep({ inputs: { ...base, prompt: 'Fix issue 3' }, target: 'bundle' })
  const madeRun = made.outputs.run_id ?? ''
  const before = creditsOf(api.run(madeRun))
  const fixMinutes: number[] = []
  const outcomes: string[] = []
  for (let failure = 1; failure <= FAILURES; failure += 1) {
    const path = join(mkdtempSync(join(tmpdir(), 'bench-event-')), 'event.json')
    const payload = { workflow_run: { conclusion: 'failure', pull_requests: [{ number: PR }] } }
    writeFileSync(path, JSON.stringify(payload))
    const env = { GITHUB_EVENT_NAME: 'workflow_run', GITHUB_EVENT_PATH: path }
    const inputs = {
      ...base,
      prompt: `CI failed (failure ${failure}): fix it`,
      name: 'fix-ci-agent-fix-3',
      ...(strategy === 'fresh' ? {} : { continue_from: 'pull_request' }),
    }
    const startedAt = performance.now()
    const fix = await runStep({
      inputs,
      env: { ...env, GITHUB_API_URL: gh.apiUrl },
      target: 'bundle',
    })
    fixMinutes.push((performance.now() - startedAt) / MINUTE_MS)
    outcomes.push(fix.outputs.outcome ?? fix.stdout.slice(-300))
  }
  const runs = api.allRuns()
  const credits = runs.reduce((sum, run) => sum + creditsOf(run), 0) - before
  await Promise.all([api.close(), gh.close()])
  return { strategy, runs: runs.length - 1, credits, fixMinutes, outcomes }
}

const rows = []
for (const strategy of ['fresh', 'continue', 'continue, session gone'] as const) {
  process.stderr.write(`${strategy}…\n`)
  rows.push(await threeFailures(strategy))
}
const fresh = rows.find((row) => row.strategy === 'fresh')?.credits ?? NaN
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
console.log(
  [
    `A pull request made by a run (setup ${SETUP_MIN} min, work ${BUILD_MIN} min), then ${FAILURES} CI failures; a new run's setup ${SETUP_CREDITS} credits and ${SETUP_MIN} min, a fresh fix rebuilds the context (${CONTEXT_MIN} min) before fixing (${FIX_MIN} min), a follow-up only fixes (1 min = 1 s):`,
    '',
    '| fix rounds go to | runs created | credits (3 rounds) | vs fresh | failure → fix, each | mean | outcomes |',
    '| --- | --: | --: | --: | --- | --: | --- |',
    ...rows.map(
      (row) =>
        `| ${row.strategy} | ${row.runs} | ${row.credits.toFixed(1)} | ${(row.credits / fresh).toFixed(2)}× | ${row.fixMinutes.map((m) => `${m.toFixed(1)}`).join(', ')} min | ${mean(row.fixMinutes).toFixed(1)} min | ${[...new Set(row.outcomes)].join(', ')} |`,
    ),
  ].join('\n'),
)
