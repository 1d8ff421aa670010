/**
 * The runs the fake plays for a person trying the command by hand (`npm run fake-api`): the
 * prompt's first word picks one, so a signal, `--timeout`, `--max-credits` and `--on-blocked`
 * can each be tried from docs/cli.md's own lines. Any other prompt succeeds in 0.6 s.
 */
import type { CreateRunRequest } from '../../src/api/types.ts'
import { conversationStep, defaultScript, type RunScript, type ScriptFactory } from './store.ts'

/** How long a long run works: longer than anyone waits for it by hand. */
const LONG_MS = 60 * 60_000

/** The plays, by the word a prompt starts with (`long: review the code`). */
export const PLAYS = {
  long: 'works for an hour: try Ctrl-C, or --timeout 10s',
  fail: 'ends FAILED after 2 s, with a status message',
  block: 'works 1 s, then waits BLOCKED for a person: try --on-blocked fail or pass',
  costly: 'spends 5 credits a second: try --max-credits 20',
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
  }
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
