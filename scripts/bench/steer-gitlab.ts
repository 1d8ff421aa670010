/**
 * `node scripts/bench/steer-gitlab.ts`: what a merge request with six pushes costs under
 * `--previous-run` keep, cancel and steer, side by side in one run, as scripts/bench/steer.ts
 * measures a pull request: the committed bundle's command (dist/cli.js, a process per job, as
 * the component runs it), against the fake API and the fake GitLab, on a clock where one minute
 * takes one second.
 *
 * Each push makes a merge request pipeline whose job runs the command. With cancel and steer the
 * job is interruptible and GitLab auto-cancels the older pipeline's job (SIGTERM, as the docker
 * executor sends): with steer it sees the newer pipeline going and hands the run over; with
 * cancel it cancels its run. With keep the older jobs run on. The usage model is steer.ts's: a
 * new run pays SETUP_CREDITS and the fake's per-second charge while it works; a review from
 * scratch takes FULL_REVIEW_MIN, a steered pass DELTA_REVIEW_MIN. Reported: runs created,
 * credits, and the time from the last push to the merge request's final note on the last head.
 */
import { spawn } from 'node:child_process'
import { creditsSpent } from '../../src/agent/cost.ts'
import { join } from 'node:path'
import { markerOf } from '../../src/gitlab/note-text.ts'
import { FakeAgentApi, type RunScript } from '../../test/fake-api/server.ts'
import { FakeGitLab } from '../../test/fake-gitlab/server.ts'

const KEY = 'sk-bench-steer-gitlab'
const MINUTE_MS = 1_000
const PUSHES = 6
const PUSH_EVERY_MIN = 2
const SETUP_MIN = 1
const FULL_REVIEW_MIN = 5
const DELTA_REVIEW_MIN = 3
const SETUP_CREDITS = 10
const SHAS = Array.from({ length: PUSHES }, (_, i) => String(i + 1).repeat(40))
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js')

type Strategy = 'keep' | 'cancel' | 'steer'

interface Job {
  readonly done: Promise<{ code: number | null; outputs: Record<string, unknown> }>
  kill(signal: NodeJS.Signals): void
}

function startJob(args: string[], env: Record<string, string>): Job {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.resume()
  const done = new Promise<{ code: number | null; outputs: Record<string, unknown> }>((resolve) =>
    child.on('close', (code) => {
      let outputs: Record<string, unknown> = {}
      try {
        outputs = JSON.parse(stdout) as Record<string, unknown>
      } catch {
        // No JSON: the row shows no outcome.
      }
      resolve({ code, outputs })
    }),
  )
  return { done, kill: (signal) => child.kill(signal) }
}

async function mergeRequest(strategy: Strategy) {
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
  const gitlab = await FakeGitLab.start()
  gitlab.projects.addCommits(
    42,
    SHAS.map((sha, i) => ({
      sha,
      title: `Push ${i + 1}`,
      ...(i > 0 ? { parent: SHAS[i - 1] } : {}),
    })),
  )
  const args = [
    '--base-url',
    api.baseUrl,
    '--poll-interval',
    '100ms',
    '--prompt',
    'Review this merge request',
    '--name',
    'mr-7-review',
    '--json',
    ...(strategy === 'keep' ? [] : ['--previous-run', strategy]),
  ]
  const jobs: Job[] = []
  let lastPushAt = 0
  let lastPipeline = 0
  for (const [i, sha] of SHAS.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, PUSH_EVERY_MIN * MINUTE_MS))
    lastPushAt = performance.now()
    const pipeline = gitlab.projects.addPipeline(42, 7, sha)
    // Auto-cancel redundant pipelines, the job interruptible: the older job gets SIGTERM.
    const going = jobs.at(-1)
    if (going && strategy !== 'keep') {
      gitlab.projects.setPipeline(lastPipeline, 'canceled')
      going.kill('SIGTERM')
      await going.done
    }
    lastPipeline = pipeline.id
    jobs.push(
      startJob(args, {
        WARP_API_KEY: KEY,
        GITLAB_CI: 'true',
        CI_PIPELINE_SOURCE: 'merge_request_event',
        CI_API_V4_URL: gitlab.apiUrl,
        CI_PROJECT_ID: '42',
        CI_PROJECT_PATH: 'group/app',
        CI_MERGE_REQUEST_IID: '7',
        CI_JOB_NAME: 'review',
        CI_JOB_ID: String(9001 + i),
        CI_PIPELINE_ID: String(pipeline.id),
        CI_COMMIT_SHA: sha,
        GITLAB_TOKEN: 'glpat-fake',
      }),
    )
  }
  const results = await Promise.all(jobs.map((job) => job.done))
  const finalMs = performance.now() - lastPushAt
  const notes = gitlab.notes(42, 7)
  const record = markerOf(notes[0]?.body ?? '')?.record
  const runs = api.allRuns()
  // What each run used, as the budgets and the report add it up.
  const usage = runs.reduce((sum, run) => sum + creditsSpent(run), 0)
  await Promise.all([api.close(), gitlab.close()])
  return {
    strategy,
    runs: runs.length,
    credits: SETUP_CREDITS * runs.length + usage,
    lastNoteMin: finalMs / MINUTE_MS,
    outcome: results.at(-1)?.outputs.outcome,
    steered: results.filter((result) => result.outputs.steered === true).length,
    notes: notes.length,
    noteOnLastHead: record?.head === SHAS.at(-1) && record?.ended === true,
  }
}

const rows = []
for (const strategy of ['keep', 'cancel', 'steer'] as const) {
  process.stderr.write(`${strategy}…\n`)
  rows.push(await mergeRequest(strategy))
}
const cancel = rows.find((row) => row.strategy === 'cancel')?.credits ?? NaN
console.log(
  [
    `${PUSHES} pushes to one merge request ${PUSH_EVERY_MIN} min apart; a new run's setup ${SETUP_MIN} min and ${SETUP_CREDITS} credits, a full review ${FULL_REVIEW_MIN} min, a steered pass ${DELTA_REVIEW_MIN} min (1 min = 1 s):`,
    '',
    '| --previous-run | runs created | jobs that steered | credits | vs cancel | last push → final note | notes | final note on the last head | last job |',
    '| --- | --: | --: | --: | --: | --: | --: | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.strategy} | ${row.runs} | ${row.steered} | ${row.credits.toFixed(1)} | ${(row.credits / cancel).toFixed(2)}× | ${row.lastNoteMin.toFixed(1)} min | ${row.notes} | ${row.noteOnLastHead ? 'yes' : 'no'} | ${String(row.outcome)} |`,
    ),
  ].join('\n'),
)
