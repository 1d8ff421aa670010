/**
 * Runs that outlive their step (issue 19): what a detached step costs the runner, what a
 * reconcile pass over 200 runs costs the service and GitHub, and the runner-minutes of a day
 * awaited against detached plus a five-minute reconcile schedule. The bundle runs (dist/main.js,
 * dist/reconcile.js) against the fake API and the fake GitHub.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RunItem } from '../../src/api/types.ts'
import { renderComment } from '../../src/github/comment.ts'
import type { Marker } from '../../src/github/run-marker.ts'
import { handoffMetadata } from '../../src/model/handoff.ts'
import { endingOf } from '../../src/model/ending.ts'
import { FakeAgentApi } from '../../test/fake-api/server.ts'
import { FakeGitHub } from '../../test/fake-github/server.ts'
import { DEFAULT_GITHUB_TOKEN, ROOT, prepareStepEnvironment } from '../../test/e2e/harness.ts'
import { median, round } from './stats.ts'
import { spawnPrepared } from './step.ts'

const KEY = 'bench-key-not-a-secret'
const OWNER = 'octo-org'
const REPO = 'app'
const WORKFLOW_RUN = '9876543210'

export interface OutliveFigures {
  detachedStepMs: { median: number; samples: number[] }
  passes: PassFigures[]
  minutes: MinutesRow[]
  /** The job overhead assumed on top of a step's own time, in seconds. */
  jobOverheadSeconds: number
}

export interface PassFigures {
  label: string
  runs: number
  changed: number
  serviceRequests: number
  listRequests: number
  githubReads: number
  githubWrites: number
  finalized: number
  ms: number
}

export interface MinutesRow {
  runsPerDay: number
  runMinutes: number
  awaited: number
  detachedPlusReconcile: number
}

function eventFile(payload: object): string {
  const path = join(mkdtempSync(join(tmpdir(), 'bench-event-')), 'event.json')
  writeFileSync(path, JSON.stringify(payload))
  return path
}

function githubEnv(gh: FakeGitHub, name: string, payload: object): Record<string, string> {
  return {
    GITHUB_EVENT_NAME: name,
    GITHUB_EVENT_PATH: eventFile(payload),
    GITHUB_API_URL: gh.apiUrl,
  }
}

/** Spawn to exit of a detached review step: wait false, a comment and a commit status. */
async function detachedStep(samples: number): Promise<number[]> {
  const api = await FakeAgentApi.start({ apiKey: KEY })
  const gh = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  const times: number[] = []
  try {
    for (let i = 0; i < samples + 1; i += 1) {
      const number = 100 + i
      const step = prepareStepEnvironment({
        inputs: {
          api_key: KEY,
          base_url: api.baseUrl,
          prompt: 'Review this pull request',
          wait: 'false',
          comment: 'true',
          commit_status: 'true',
        },
        env: githubEnv(gh, 'pull_request', {
          pull_request: { number, head: { sha: sha(number) } },
        }),
      })
      const spawned = spawnPrepared(step)
      const finished = await spawned.done
      if (finished.code !== 0) throw new Error(`the detached step failed:\n${finished.stdout}`)
      // The first is a warm-up: the file cache, Node's own start.
      if (i > 0) times.push(performance.now() - spawned.spawnedAt)
    }
    return times
  } finally {
    await Promise.all([api.close(), gh.close()])
  }
}

function sha(n: number): string {
  return n.toString(16).padStart(40, '0')
}

/**
 * 200 ended, detached runs, each on its own pull request and commit (GitHub's worst case: no
 * thread or commit shared), of which `changed` still show "started"; the rest were finished by
 * an earlier pass. Then two passes: the first finishes the changed ones, the second finds
 * nothing to do.
 */
async function reconcilePasses(total: number, changed: number): Promise<PassFigures[]> {
  const api = await FakeAgentApi.start({ apiKey: KEY })
  const gh = await FakeGitHub.start({ token: DEFAULT_GITHUB_TOKEN })
  try {
    for (let i = 0; i < total; i += 1) {
      const number = 1000 + i
      const key = `review-${number}`
      const seeded = api.seedRun(
        {
          prompt: `Review #${number}`,
          title: `Review of PR #${number}`,
          metadata: {
            gh_repository: `${OWNER}/${REPO}`,
            gh_run_id: WORKFLOW_RUN,
            gh_run_attempt: '1',
            gh_head_sha: sha(number),
            ...handoffMetadata({
              thread: number,
              key,
              wait: false,
              comment: true,
              commitStatus: true,
            }),
          },
        },
        {
          script: [
            {
              state: 'SUCCEEDED',
              afterMs: 0,
              patch: {
                session_link: `https://app.example.test/sessions/${number}`,
                run_time: 'PT12M',
                request_usage: { inference_cost: 42 },
              },
            },
          ],
        },
      )
      const stillStarted = i < changed
      await seedWhatTheStepLeft(gh, seeded as RunItem, number, key, stillStarted)
    }
    const passes: PassFigures[] = []
    for (const label of [`first pass (${changed} changed)`, 'second pass (nothing changed)']) {
      const serviceBefore = api.requests.length
      const githubBefore = gh.requests.length
      const step = prepareStepEnvironment({
        action: 'reconcile',
        inputs: { api_key: KEY, base_url: api.baseUrl },
        env: githubEnv(gh, 'schedule', {}),
      })
      const spawned = spawnPrepared(step, { script: join(ROOT, 'dist', 'reconcile.js') })
      const finished = await spawned.done
      const ms = performance.now() - spawned.spawnedAt
      if (finished.code !== 0) throw new Error(`the pass failed:\n${finished.stdout}`)
      const service = api.requests.slice(serviceBefore)
      const github = gh.requests.slice(githubBefore)
      passes.push({
        label,
        runs: total,
        changed: label.startsWith('first') ? changed : 0,
        serviceRequests: service.length,
        listRequests: service.filter((r) => r.method === 'GET' && r.path.endsWith('/agent/runs'))
          .length,
        githubReads: github.filter((r) => r.method === 'GET').length,
        githubWrites: github.filter((r) => r.method !== 'GET').length,
        finalized: (JSON.parse(finished.outputs.finalized ?? '[]') as unknown[]).length,
        ms,
      })
    }
    return passes
  } finally {
    await Promise.all([api.close(), gh.close()])
  }
}

/** The comment and status a detached step left: "started", or already finished by a pass. */
async function seedWhatTheStepLeft(
  gh: FakeGitHub,
  run: RunItem,
  number: number,
  key: string,
  stillStarted: boolean,
): Promise<void> {
  const shown = stillStarted ? { ...run, state: 'QUEUED' } : run
  const ending = endingOf(
    stillStarted ? { kind: 'started', run: shown } : { kind: 'finished', run, elapsedMs: 0 },
  )
  const marker: Marker = {
    runId: run.run_id,
    step: 'review/agent',
    key,
    runs: [
      {
        runId: run.run_id,
        state: shown.state,
        outcome: stillStarted ? 'started' : 'succeeded',
        startedAt: new Date().toISOString(),
      },
    ],
  }
  gh.addComment(
    OWNER,
    REPO,
    number,
    renderComment(shown, marker, { outcome: { ending } }),
    'github-actions[bot]',
  )
  const response = await fetch(`${gh.apiUrl}/repos/${OWNER}/${REPO}/statuses/${sha(number)}`, {
    method: 'POST',
    headers: { authorization: `token ${DEFAULT_GITHUB_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(
      stillStarted
        ? {
            state: 'pending',
            context: `cloud-agent/${key}`,
            description: `Started (run ${run.run_id}); this step does not wait for it`,
          }
        : { state: 'success', context: `cloud-agent/${key}`, description: 'Succeeded' },
    ),
  })
  if (!response.ok) throw new Error(`seeding a status: ${response.status}`)
}

/**
 * Billed runner-minutes of a day: GitHub rounds each job up to the minute. Awaited, a job lasts
 * the run plus the job's overhead; detached, the step's own time plus the overhead, and the
 * reconcile schedule adds one job every five minutes (288 a day) of about a pass plus overhead.
 */
function minutesTable(
  detachedSeconds: number,
  passSeconds: number,
  overhead: number,
): MinutesRow[] {
  const rows: MinutesRow[] = []
  const reconcileJobs = 24 * 12
  const reconcileMinutes = reconcileJobs * Math.ceil((passSeconds + overhead) / 60)
  for (const runsPerDay of [10, 50, 200]) {
    for (const runMinutes of [5, 15, 60]) {
      rows.push({
        runsPerDay,
        runMinutes,
        awaited: runsPerDay * Math.ceil(runMinutes + overhead / 60),
        detachedPlusReconcile:
          runsPerDay * Math.ceil((detachedSeconds + overhead) / 60) + reconcileMinutes,
      })
    }
  }
  return rows
}

/** Setting up and completing a hosted job, besides its steps: an assumption, stated. */
const JOB_OVERHEAD_SECONDS = 15

export async function outliveFigures(): Promise<OutliveFigures> {
  const samples = await detachedStep(7)
  const passes = await reconcilePasses(200, 10)
  const detachedMedian = median(samples)
  const slowestPass = Math.max(...passes.map((pass) => pass.ms))
  return {
    detachedStepMs: { median: round(detachedMedian, 1), samples: samples.map((v) => round(v, 1)) },
    passes: passes.map((pass) => ({ ...pass, ms: round(pass.ms, 1) })),
    minutes: minutesTable(detachedMedian / 1000, slowestPass / 1000, JOB_OVERHEAD_SECONDS),
    jobOverheadSeconds: JOB_OVERHEAD_SECONDS,
  }
}
