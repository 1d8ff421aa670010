/**
 * The runs the fake plays for a person trying the command by hand (`npm run fake-api`): the
 * prompt's first word picks one, so a signal, `--timeout`, `--max-credits`, `--on-blocked`,
 * `--continue-from` and `--output-schema` can each be tried from docs/cli.md's own lines. Any
 * other prompt succeeds in 0.6 s.
 */
import type { CreateRunRequest } from '../../src/api/types.ts'
import { HANDOFF_KEYS, STEP_KEYS } from '../../src/model/handoff.ts'
import { FORGE_KEY } from '../../src/model/home.ts'
import { leastDocument, schemaInPrompt } from './json-answer.ts'
import { conversationStep, defaultScript, type RunScript, type ScriptFactory } from './store.ts'

/** How long a long run works: longer than anyone waits for it by hand. */
const LONG_MS = 60 * 60_000

/** The plays, by the word a prompt starts with (`long: review the code`). */
export const PLAYS = {
  long: 'works for an hour: try Ctrl-C, or --timeout 10s',
  fail: 'ends FAILED after 2 s, with a status message',
  block: 'works 1 s, then waits BLOCKED for a person: try --on-blocked fail or pass',
  costly: 'spends 5 credits a second: try --max-credits 20',
  spawn:
    'starts 3 child runs (spawn:N for N, at most 9) that work 1 to 2 s each: one run, its children with it',
  pr: 'opens its merge or pull request (a PULL_REQUEST artifact) in 1 s: then --continue-from pull_request',
  json: 'answers in 1 s with the least JSON document its --output-schema asks for',
} as const satisfies Record<string, string>

type Play = keyof typeof PLAYS

/** The play a prompt asks for, by its first word (`fail:`), or undefined. */
export function playOf(create: CreateRunRequest): Play | undefined {
  const word = /^\s*(\w+):/.exec(create.prompt ?? '')?.[1]?.toLowerCase()
  return word !== undefined && word in PLAYS ? (word as Play) : undefined
}

/** A run's script: the play its prompt asks for, else the default 0.6 s success. */
export const playedScript: ScriptFactory = (create, runId) => {
  const play = playOf(create)
  if (play === undefined) return defaultScript(create, runId)
  const said = (text: string) => [
    conversationStep('step_1', [{ role: 'assistant', content: [{ type: 'text', text }] }]),
  ]
  switch (play) {
    case 'long':
      return [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 200, conversation: said('Working on it.') },
        { state: 'SUCCEEDED', afterMs: LONG_MS, conversation: said('Done, at last.') },
      ]
    case 'fail':
      return [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 200 },
        {
          state: 'FAILED',
          afterMs: 2_000,
          patch: { status_message: { message: 'The tests do not build.' } },
          conversation: said('The build fails; I stopped.'),
        },
      ]
    case 'block':
      return [
        { state: 'QUEUED', afterMs: 0 },
        { state: 'INPROGRESS', afterMs: 200 },
        {
          state: 'BLOCKED',
          afterMs: 1_000,
          patch: { status_message: { message: 'May I delete the old migrations?' } },
          conversation: said('May I delete the old migrations?'),
        },
      ]
    case 'costly':
      return costlySteps()
    case 'spawn':
      return orchestratingSteps(
        Number(/^\s*spawn:(\d)/i.exec(create.prompt ?? '')?.[1] ?? 3),
        runId,
      )
    case 'pr':
      return pullRequestSteps(create.metadata ?? {})
    case 'json':
      return jsonSteps(create.prompt ?? '')
  }
}

/**
 * An agent that opens a pull request: working at 200 ms, it succeeds at 1 s with a PULL_REQUEST
 * artifact naming the merge or pull request of the run's own tags (the project and thread the
 * command gives it: a GitLab merge request pipeline's `!7`), or `#1` of `octo-org/app`. So a next
 * run of that thread with `continue_from: pull_request` finds it. A follow-up replays it.
 */
export function pullRequestSteps(metadata: Readonly<Record<string, string>>): RunScript {
  const url = pullRequestUrl(metadata)
  const said = (text: string) => [
    conversationStep('step_1', [{ role: 'assistant', content: [{ type: 'text', text }] }]),
  ]
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 200, conversation: said('Fixing it on a branch.') },
    {
      state: 'SUCCEEDED',
      afterMs: 1_000,
      patch: {
        artifacts: [
          {
            artifact_type: 'PULL_REQUEST',
            created_at: new Date().toISOString(),
            data: { url, branch: 'agent/fix' },
          },
        ],
      },
      conversation: said(`I opened ${url} from the branch agent/fix.`),
    },
  ]
}

/** The merge or pull request a `pr:` run opens, by its tags. */
function pullRequestUrl(metadata: Readonly<Record<string, string>>): string {
  const project = metadata[STEP_KEYS.repository] || 'octo-org/app'
  const thread = metadata[HANDOFF_KEYS.thread] ?? ''
  const number = /^[1-9]\d{0,15}$/.test(thread) ? thread : '1'
  return metadata[FORGE_KEY] === 'gitlab'
    ? `https://gitlab.example.test/${project}/-/merge_requests/${number}`
    : `https://github.com/${project}/pull/${number}`
}

/**
 * An agent that answers with data: working at 200 ms, it succeeds at 1 s, its final message
 * ending with the least JSON document the schema in its prompt asks for (`output_schema`), in
 * a json fence, as the command's instruction asks; `{"ok": true}` with no schema.
 */
export function jsonSteps(prompt: string): RunScript {
  const schema = schemaInPrompt(prompt)
  const document = schema === undefined ? { ok: true } : leastDocument(schema)
  const said = (text: string) => [
    conversationStep('step_1', [{ role: 'assistant', content: [{ type: 'text', text }] }]),
  ]
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 200, conversation: said('Working out the answer.') },
    {
      state: 'SUCCEEDED',
      afterMs: 1_000,
      conversation: said(
        `Here is the result.\n\n\`\`\`json\n${JSON.stringify(document, null, 2)}\n\`\`\``,
      ),
    },
  ]
}

/**
 * An agent that orchestrates: working at 200 ms, it starts `children` child runs at 300 ms, each
 * working 1 s more than the one before (1 s, 2 s, …, its own usage); it succeeds once they are done.
 */
export function orchestratingSteps(children: number, runId: string): RunScript {
  const session = `sess_${runId.replace(/^run_/, '')}`
  const said = (text: string) => [
    conversationStep('step_1', [{ role: 'assistant', content: [{ type: 'text', text }] }]),
  ]
  const spawn = Array.from({ length: children }, (_, index) => ({
    prompt: `Worker ${index + 1} of ${children}`,
    script: (childId: string) => childSteps(1_000 * (index + 1), childId),
  }))
  return [
    { state: 'QUEUED', afterMs: 0 },
    { state: 'INPROGRESS', afterMs: 200, patch: { session_id: session } },
    {
      state: 'INPROGRESS',
      afterMs: 300,
      spawn,
      conversation: said(`Started ${children} workers.`),
    },
    {
      state: 'SUCCEEDED',
      afterMs: 300 + 1_000 * children + 200,
      patch: { session_link: `https://app.example.test/sessions/${session}` },
      conversation: said('My workers are done.'),
    },
  ]
}

/** A child's life: working at 100 ms (its session linked), ended `workMs` later. */
export function childSteps(
  workMs: number,
  runId: string,
  end: 'SUCCEEDED' | 'FAILED' = 'SUCCEEDED',
): RunScript {
  const session = `sess_${runId.replace(/^run_/, '')}`
  return [
    { state: 'QUEUED', afterMs: 0 },
    {
      state: 'INPROGRESS',
      afterMs: 100,
      patch: { session_id: session, session_link: `https://app.example.test/sessions/${session}` },
    },
    { state: end, afterMs: 100 + workMs },
  ]
}

/** Working for an hour, 5 more credits of inference each second. */
function costlySteps(): RunScript {
  const steps: RunScript = [{ state: 'QUEUED', afterMs: 0 }]
  for (let second = 0; second * 1000 < LONG_MS; second += 1) {
    const inference_cost = 5 * second
    steps.push({
      state: 'INPROGRESS',
      afterMs: 200 + second * 1000,
      patch: { request_usage: { inference_cost } },
    })
  }
  return steps
}
