import { describe, expect, it } from 'vitest'
import { parseConversation, type Conversation } from '../../src/agent/conversation.ts'
import { HEARTBEAT_INTERVAL_MS } from '../../src/timing.ts'
import type { RunItem } from '../../src/api/types.ts'
import { RunWatcher, type WatchSettings } from '../../src/run/watch.ts'

const SETTINGS: WatchSettings = {
  showProgress: false,
  onBlocked: 'wait',
  continueRun: false,
}

const conversationSaying = (text: string, actions: string[] = []): Conversation =>
  parseConversation({
    steps: [
      {
        id: 's1',
        messages: [
          {
            role: 'assistant',
            content: [
              { type: 'text', text },
              ...actions.map((name, i) => ({
                type: 'action',
                id: `a${i}`,
                category: 'command',
                name,
                input: {},
              })),
            ],
          },
        ],
        steps: [],
      },
    ],
  })

function harness(settings: Partial<WatchSettings> = {}, conversation?: Conversation) {
  let now = 0
  const lines: string[] = []
  const links: string[] = []
  let reads = 0
  const deadlines: number[] = []
  const watcher = new RunWatcher(
    { ...SETTINGS, ...settings },
    {
      now: () => now,
      log: {
        info: (message) => lines.push(`info: ${message}`),
        warning: (message) => lines.push(`warning: ${message}`),
        debug: () => undefined,
      },
      safeForLog: (value) => String(value).replace(/\n/g, ' '),
      readConversation: async (_signal, deadline) => {
        reads += 1
        deadlines.push(deadline)
        return conversation
      },
      onSessionLink: (link) => links.push(link),
    },
  )
  const signal = new AbortController().signal
  return {
    watcher,
    lines,
    links,
    reads: () => reads,
    deadlines,
    advance: (ms: number) => (now += ms),
    poll: (run: Partial<RunItem>, stateChanged = false) =>
      watcher.afterPoll(
        { run_id: 'run-1', state: 'INPROGRESS', ...run },
        stateChanged,
        signal,
        WAIT_DEADLINE,
      ),
  }
}

/** When the wait ends, on the harness's clock. */
const WAIT_DEADLINE = 600_000

describe('RunWatcher', () => {
  it("bounds every conversation read by the wait's deadline (progress and BLOCKED alike)", async () => {
    const progress = harness({ showProgress: true })
    await progress.poll({ state: 'INPROGRESS' }, true)
    const blocked = harness({ onBlocked: 'fail' })
    await blocked.poll({ state: 'BLOCKED' }, true)
    expect(progress.deadlines).toEqual([WAIT_DEADLINE])
    expect(blocked.deadlines).toEqual([WAIT_DEADLINE])
  })

  it('logs the session link once, the first time it appears, and reports it', async () => {
    const h = harness()
    await h.poll({ state: 'QUEUED' })
    await h.poll({ session_link: 'https://app.example.com/s/1' })
    await h.poll({ session_link: 'https://app.example.com/s/1' })
    expect(h.lines.filter((line) => line.includes('Session:'))).toEqual([
      'info: Session: https://app.example.com/s/1',
    ])
    expect(h.links).toEqual(['https://app.example.com/s/1'])
  })

  it('is never silent for five minutes', async () => {
    const h = harness()
    expect(h.watcher.msUntilHeartbeat()).toBe(HEARTBEAT_INTERVAL_MS)
    h.advance(HEARTBEAT_INTERVAL_MS - 1)
    await h.poll({})
    expect(h.lines).toEqual([])
    h.advance(1)
    await h.poll({})
    expect(h.lines).toEqual(['info: Still waiting: run run-1 is INPROGRESS after 4m 0s.'])
    expect(h.watcher.msUntilHeartbeat()).toBe(HEARTBEAT_INTERVAL_MS)
  })

  it('counts any line the wait writes as a sign of life', async () => {
    const h = harness()
    h.advance(HEARTBEAT_INTERVAL_MS - 1000)
    h.watcher.log.info('Run run-1 is INPROGRESS (after 3m 59s).')
    h.advance(1000)
    await h.poll({})
    expect(h.lines).toHaveLength(1)
  })

  describe('BLOCKED', () => {
    it('with on_blocked wait: says what it waits for and how to answer, and waits on', async () => {
      const h = harness({ onBlocked: 'wait', continueRun: true })
      await h.poll({ session_link: 'https://app/s/1' })
      const verdict = await h.poll(
        { state: 'BLOCKED', status_message: { message: 'Approve the migration?' } },
        true,
      )
      expect(verdict).toEqual({ kind: 'continue' })
      expect(h.lines.at(-1)).toBe(
        'warning: Run run-1 is BLOCKED: it needs a person. It waits for: Approve the migration? ' +
          'To move it on, answer in the session (https://app/s/1), or reply with a comment on this pull request or issue; continue_run passes it on. ' +
          'This step waits on, until its timeout (on_blocked: wait).',
      )
    })

    it('with on_blocked fail or pass: hands the run over, quoting the agent when the status says nothing', async () => {
      for (const [onBlocked, passes] of [
        ['fail', false],
        ['pass', true],
      ] as const) {
        const h = harness({ onBlocked }, conversationSaying('Which database should I migrate?'))
        const verdict = await h.poll({ state: 'BLOCKED' }, true)
        expect(verdict).toEqual({
          kind: 'blocked',
          passes,
          question: 'Which database should I migrate?',
        })
        expect(h.lines.at(-1)).toContain(`hands the run over and ${passes ? 'passes' : 'fails'}`)
      }
    })

    it('says so when nothing tells what it waits for', async () => {
      const h = harness({ onBlocked: 'fail' })
      expect(await h.poll({ state: 'BLOCKED' }, true)).toEqual({
        kind: 'blocked',
        passes: false,
        question: undefined,
      })
      expect(h.lines.at(-1)).toContain('The service does not say what it waits for.')
    })
  })

  describe('show_progress', () => {
    it('logs actions by category and name, and reads at most once per 30 s besides state changes', async () => {
      const h = harness({ showProgress: true }, conversationSaying('working', ['run_tests']))
      await h.poll({}, true)
      expect(h.lines).toEqual(['info: Agent action: command run_tests'])
      for (let i = 0; i < 10; i += 1) {
        h.advance(2_000)
        await h.poll({})
      }
      expect(h.reads()).toBe(1)
      h.advance(10_000)
      await h.poll({})
      expect(h.reads()).toBe(2)
      expect(h.lines).toHaveLength(1)
    })

    it('reads nothing before a worker has the run, so the first read is there for its start', async () => {
      const h = harness({ showProgress: true }, conversationSaying('working', ['run_tests']))
      await h.poll({ state: 'QUEUED' }, true)
      h.advance(1_000)
      await h.poll({ state: 'PENDING' }, true)
      expect(h.reads()).toBe(0)
      h.advance(1_000)
      await h.poll({ state: 'INPROGRESS' }, true)
      expect(h.reads()).toBe(1)
      expect(h.lines).toEqual(['info: Agent action: command run_tests'])
    })

    it('reads nothing when it is off', async () => {
      const h = harness({ showProgress: false }, conversationSaying('x', ['a']))
      await h.poll({}, true)
      h.advance(60_000)
      await h.poll({})
      expect(h.reads()).toBe(0)
    })
  })
})
