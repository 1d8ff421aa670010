import { describe, expect, it } from 'vitest'
import { parseConversation } from '../../src/agent/conversation.ts'
import {
  describeProgress,
  Heartbeat,
  newSessionLink,
  ProgressReadSchedule,
  ProgressTracker,
} from '../../src/agent/progress.ts'
import { HEARTBEAT_INTERVAL_MS, PROGRESS_READ_INTERVAL_MS } from '../../src/timing.ts'

const action = (id: string, category: string, name: string) => ({
  type: 'action',
  id,
  category,
  name,
  input: { command: 'echo SECRET-INPUT' },
})
const result = (id: string) => ({
  type: 'action_result',
  action_id: id,
  category: 'command',
  name: 'run',
  state: 'completed',
  output: { stdout: 'SECRET-OUTPUT' },
})

describe('ProgressTracker', () => {
  const first = parseConversation({
    steps: [
      {
        id: 's1',
        summary: 'Read the failing test',
        completed_at: '2026-01-01T10:00:00Z',
        messages: [
          { role: 'assistant', content: [action('a1', 'files', 'read_file'), result('a1')] },
        ],
        steps: [],
      },
      {
        id: 's2',
        summary: 'Fixing it',
        messages: [{ role: 'assistant', content: [action('a2', 'command', 'run_tests')] }],
        steps: [],
      },
    ],
  })
  /** The same conversation later: step s2 done, with one more action. */
  const second = parseConversation({
    steps: [
      {
        id: 's1',
        summary: 'Read the failing test',
        completed_at: '2026-01-01T10:00:00Z',
        messages: [{ role: 'assistant', content: [action('a1', 'files', 'read_file')] }],
        steps: [],
      },
      {
        id: 's2',
        summary: 'Fixing it',
        completed_at: '2026-01-01T10:05:00Z',
        messages: [
          {
            role: 'assistant',
            content: [action('a2', 'command', 'run_tests'), action('a3', 'search', 'grep')],
          },
        ],
        steps: [],
      },
    ],
  })

  it('reports each action and each completed step once, across reads', () => {
    const tracker = new ProgressTracker()
    expect(tracker.update(first).map(describeProgress)).toEqual([
      'Agent action: files read_file',
      'Agent step done: Read the failing test',
      'Agent action: command run_tests',
    ])
    expect(tracker.update(second).map(describeProgress)).toEqual([
      'Agent action: search grep',
      'Agent step done: Fixing it',
    ])
    expect(tracker.update(second)).toEqual([])
  })

  it("never shows an action's input or output", () => {
    const lines = new ProgressTracker().update(first).map(describeProgress).join('\n')
    expect(lines).not.toContain('SECRET')
  })

  it('reports nested steps, and steps without ids by position', () => {
    const conversation = parseConversation({
      steps: [
        {
          messages: [],
          completed_at: 'x',
          summary: 'outer',
          steps: [
            {
              messages: [
                {
                  role: 'assistant',
                  content: [{ type: 'action', category: 'review', name: 'comment' }],
                },
              ],
              steps: [],
              completed_at: 'y',
              summary: 'inner',
            },
          ],
        },
      ],
    })
    const tracker = new ProgressTracker()
    expect(tracker.update(conversation).map(describeProgress)).toEqual([
      'Agent action: review comment',
      'Agent step done: inner',
      'Agent step done: outer',
    ])
    expect(tracker.update(conversation)).toEqual([])
  })

  it('survives garbage', () => {
    const tracker = new ProgressTracker()
    for (const body of [
      null,
      'x',
      { steps: [null, { messages: [{ content: [{ type: 'action' }] }] }] },
    ]) {
      expect(() => tracker.update(parseConversation(body))).not.toThrow()
    }
  })
})

describe('ProgressReadSchedule', () => {
  it('reads at the start, then every 30 s, and at state changes', () => {
    const schedule = new ProgressReadSchedule(0)
    expect(schedule.isDue(0, false)).toBe(true)
    schedule.recordRead(0)
    expect(schedule.isDue(10_000, false)).toBe(false)
    expect(schedule.isDue(PROGRESS_READ_INTERVAL_MS, false)).toBe(true)
    schedule.recordRead(PROGRESS_READ_INTERVAL_MS)
    expect(schedule.isDue(50_000, true)).toBe(false) // budget spent: 2 reads in 50 s
    expect(schedule.isDue(60_000, true)).toBe(true)
  })

  it('stays within 120 reads an hour however often the state changes', () => {
    const schedule = new ProgressReadSchedule(0)
    let reads = 0
    for (let now = 0; now <= 3_600_000; now += 1_000) {
      if (schedule.isDue(now, true)) {
        schedule.recordRead(now)
        reads += 1
      }
    }
    expect(reads).toBeLessThanOrEqual(121)
    expect(reads).toBeGreaterThanOrEqual(120)
  })
})

describe('Heartbeat', () => {
  it('owes a line after four minutes of silence, and says how long to sleep', () => {
    const heartbeat = new Heartbeat(0)
    expect(heartbeat.isDue(HEARTBEAT_INTERVAL_MS - 1)).toBe(false)
    expect(heartbeat.msUntilDue(60_000)).toBe(HEARTBEAT_INTERVAL_MS - 60_000)
    expect(heartbeat.isDue(HEARTBEAT_INTERVAL_MS)).toBe(true)
    heartbeat.noteLine(HEARTBEAT_INTERVAL_MS)
    expect(heartbeat.isDue(HEARTBEAT_INTERVAL_MS + 1)).toBe(false)
    expect(heartbeat.msUntilDue(10 * HEARTBEAT_INTERVAL_MS)).toBe(0)
    expect(HEARTBEAT_INTERVAL_MS).toBeLessThan(5 * 60_000)
  })
})

describe('newSessionLink', () => {
  it('announces a link the first time, and again only when it changes', () => {
    const run = { run_id: 'r', state: 'INPROGRESS', session_link: 'https://app.example.com/s/1' }
    expect(newSessionLink(undefined, { run_id: 'r', state: 'QUEUED' })).toBeUndefined()
    expect(newSessionLink(undefined, run)).toBe('https://app.example.com/s/1')
    expect(newSessionLink('https://app.example.com/s/1', run)).toBeUndefined()
  })

  it('ignores links that are not http(s), and garbage', () => {
    for (const link of ['javascript:alert(1)', 'not a url', 42, null]) {
      expect(newSessionLink(undefined, { session_link: link })).toBeUndefined()
    }
    expect(newSessionLink(undefined, null)).toBeUndefined()
  })
})
