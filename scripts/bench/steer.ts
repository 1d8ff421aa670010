/**
 * `node scripts/bench/steer.ts`: what a pull request with six pushes costs under `previous_run`
 * keep, cancel and steer, side by side in one run: the committed bundle, as the runner runs it,
 * against the fake API and the fake GitHub, on a clock where one minute takes one second.
 *
 * The workflow is review-pull-request.yml's: each push starts a step; with cancel and steer, the
 * concurrency group cancels the step still going (SIGINT), as GitHub does. The usage model: a new
 * run pays a setup charge (a fresh environment and clone, SETUP_CREDITS) and then the fake's
 * per-second charge while it works (its request_usage); a review from scratch takes
 * FULL_REVIEW_MIN, a steered pass over what changed DELTA_REVIEW_MIN. Reported: runs created,
 * credits, and the time from the last push to the final review on the last head.
 */
import { FakeAgentApi, type RunScript } from '../../test/fake-api/server.ts'
import { creditsSpent } from '../../src/agent/cost.ts'
import { FakeGitHub } from '../../test/fake-github/server.ts'
import { DEFAULT_GITHUB_TOKEN, startStep, type RunningStep } from '../../test/e2e/harness.ts'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const KEY = 'sk-bench-steer'
const MINUTE_MS = 1_000
const PUSHES = 6
const PUSH_EVERY_MIN = 2
const SETUP_MIN = 1
const FULL_REVIEW_MIN = 5
const DELTA_REVIEW_MIN = 3
const SETUP_CREDITS = 10
const [OWNER, REPO, PR] = ['octo-org', 'app', 7] as const
const SHAS = Array.from({ length: PUSHES }, (_, i) => String(i + 1).repeat(40))

type Strategy = 'keep' | 'cancel' | 'steer'

/** The runner's view of an event: its name, a payload file, and where GitHub's API is. */
function eventEnvFile(apiUrl: string, name: string, payload: object): Record<string, string> {
  const path = join(mkdtempSync(join(tmpdir(), 'bench-event-')), 'event.json')
  writeFileSync(path, JSON.stringify(payload))
  return { GITHUB_EVENT_NAME: name, GITHUB_EVENT_PATH: path, GITHUB_API_URL: apiUrl }
}

async function pullRequest(strategy: Strategy) {
  const api = await FakeAgentApi.start({
    apiKey: KEY,
    script: (): RunScript => [
      { state: 'QUEUED', afterMs: 0 },
      { state: 'INPROGRESS', afterMs: SETUP_MIN * MINUTE_MS },
      { state: 'SUCCEEDED', afterMs: (SETUP_MIN + FULL_REVIEW_MIN) * MINUTE_MS },
    ],
    followupScript: () => [
      { state: 'INPROGRESS', afterMs: 0 },
      { state: 'SUCCEEDED', afterMs: DELTA_REVIEW_MIN * MINUTE_MS },
    ],
  })
  const gh = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  gh.setHistory(
    OWNER,
    REPO,
    SHAS.map((sha, i) => ({ sha, message: `Push ${i + 1}` })),
  )
  gh.setPullRequest(OWNER, REPO, PR, { headSha: SHAS[0] ?? '' })
  const inputs = {
    api_key: KEY,
    base_url: api.baseUrl,
    prompt: 'Review this pull request',
    name: 'pr-7-review',
    poll_interval: '100ms',
    ...(strategy === 'keep' ? {} : { previous_run: strategy }),
  }
  const steps: RunningStep[] = []
  let lastPushAt = 0
  for (const [i, sha] of SHAS.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, PUSH_EVERY_MIN * MINUTE_MS))
    gh.moveHead(OWNER, REPO, PR, sha)
    lastPushAt = performance.now()
    // The concurrency group cancels the job still going, as GitHub does, except with keep.
    const going = steps.at(-1)
    if (going && strategy !== 'keep') {
      going.child.kill('SIGINT')
      await going.result
    }
    const env = eventEnvFile(gh.apiUrl, 'pull_request', {
      action: 'synchronize',
      pull_request: { number: PR, head: { sha } },
    })
    steps.push(startStep({ inputs, env, target: 'bundle' }))
  }
  const results = await Promise.all(steps.map((step) => step.result))
  const finalMs = performance.now() - lastPushAt
  const last = results.at(-1)
  const runs = api.allRuns()
  // What each run used, as the budgets and the report add it up.
  const usage = runs.reduce((sum, run) => sum + creditsSpent(run), 0)
  await Promise.all([api.close(), gh.close()])
  return {
    strategy,
    runs: runs.length,
    credits: SETUP_CREDITS * runs.length + usage,
    lastReviewMin: finalMs / MINUTE_MS,
    outcome: last?.outputs.outcome,
    steered: results.filter((result) => result.outputs.steered === 'true').length,
  }
}

const rows = []
for (const strategy of ['keep', 'cancel', 'steer'] as const) {
  process.stderr.write(`${strategy}…\n`)
  rows.push(await pullRequest(strategy))
}
const cancel = rows.find((row) => row.strategy === 'cancel')?.credits ?? NaN
console.log(
  [
    `${PUSHES} pushes ${PUSH_EVERY_MIN} min apart; a new run's setup ${SETUP_MIN} min and ${SETUP_CREDITS} credits, a full review ${FULL_REVIEW_MIN} min, a steered pass ${DELTA_REVIEW_MIN} min (1 min = 1 s):`,
    '',
    '| previous_run | runs created | steps that steered | credits | vs cancel | last push → final review | last step |',
    '| --- | --: | --: | --: | --: | --: | --- |',
    ...rows.map(
      (row) =>
        `| ${row.strategy} | ${row.runs} | ${row.steered} | ${row.credits.toFixed(1)} | ${(row.credits / cancel).toFixed(2)}× | ${row.lastReviewMin.toFixed(1)} min | ${row.outcome} |`,
    ),
  ].join('\n'),
)
