import { describe, expect, it } from 'vitest'
import { nextPollDelayMs } from '../../src/run/schedule.ts'
import { MAX_TIMER_MS, POLL_INTERVAL } from '../../src/timing.ts'

const SECOND = 1_000
const MINUTE = 60 * SECOND

/**
 * The times (ms after the wait began) at which a poll loop driven by
 * nextPollDelayMs polls, on a fake clock, up to and including the first poll
 * at or after `untilMs`.
 */
function pollTimes(untilMs: number, pollIntervalMs: number): number[] {
  const polls: number[] = []
  let now = 0
  while (polls.length === 0 || now < untilMs) {
    const delay = nextPollDelayMs(now, pollIntervalMs)
    if (!(delay > 0)) throw new Error(`non-positive delay ${delay} at ${now} ms`)
    now += delay
    polls.push(now)
  }
  return polls
}

/**
 * For a state change at each sampled time t in (0, runMs], how long until a
 * poll sees it. Samples every 250 ms and 1 ms after every poll (the worst case).
 */
function detectionDelays(polls: number[], runMs: number): Array<{ t: number; delay: number }> {
  const times = new Set<number>()
  for (let t = 1; t <= runMs; t += 250) times.add(t)
  for (const poll of polls) if (poll + 1 <= runMs) times.add(poll + 1)
  const sorted = [...times].sort((a, b) => a - b)
  const delays: Array<{ t: number; delay: number }> = []
  let next = 0
  for (const t of sorted) {
    while ((polls[next] ?? Infinity) < t) next += 1
    const seenAt = polls[next]
    if (seenAt === undefined) throw new Error(`no poll after ${t} ms`)
    delays.push({ t, delay: seenAt - t })
  }
  return delays
}

describe('nextPollDelayMs at the default interval', () => {
  const interval = POLL_INTERVAL.defaultMs

  it('polls at the default interval first, so a short run is seen within it', () => {
    expect(nextPollDelayMs(0, interval)).toBe(interval)
    const polls = pollTimes(1 * MINUTE, interval)
    expect(polls[0]).toBe(interval)
    expect((polls.at(-1) ?? Infinity) - 1 * MINUTE).toBeLessThanOrEqual(interval)
  })

  it('polls at most 12 times in the first minute', () => {
    const polls = pollTimes(60 * MINUTE, interval)
    expect(polls.filter((t) => t <= 1 * MINUTE).length).toBeLessThanOrEqual(12)
  })

  it.each([
    [1, 12],
    [10, 60],
    [60, 180],
    [240, 540],
  ])('keeps a %i-minute run within %i polls', (minutes, budget) => {
    const polls = pollTimes(minutes * MINUTE, interval)
    expect(polls.length).toBeLessThanOrEqual(budget)
  })

  it.each([1, 10, 60, 240])(
    'sees a change at any time t of a %i-minute run within max(interval, 5% of t), and within 30 s',
    (minutes) => {
      const runMs = minutes * MINUTE
      const delays = detectionDelays(pollTimes(runMs, interval), runMs)
      expect(delays.length).toBeGreaterThan(minutes * 200)
      const late = delays.filter(
        ({ t, delay }) => delay > Math.max(interval, 0.05 * t) || delay > 30 * SECOND,
      )
      expect(late).toEqual([])
    },
  )

  it('spaces polls out as the run ages, up to 30 s apart', () => {
    const polls = pollTimes(240 * MINUTE, interval)
    const gaps = polls.map((t, i) => t - (polls[i - 1] ?? 0))
    const shrinks = gaps.filter((gap, i) => i > 0 && gap < (gaps[i - 1] ?? 0))
    expect(shrinks).toEqual([])
    expect(Math.min(...gaps)).toBe(interval)
    expect(Math.max(...gaps)).toBe(30 * SECOND)
  })
})

describe('nextPollDelayMs with a chosen interval', () => {
  it('honours an interval above 30 s for the whole run', () => {
    const polls = pollTimes(240 * MINUTE, 45 * SECOND)
    const gaps = polls.map((t, i) => t - (polls[i - 1] ?? 0))
    expect(new Set(gaps)).toEqual(new Set([45 * SECOND]))
  })

  it('never polls faster than a short chosen interval, and still grows later', () => {
    expect(nextPollDelayMs(0, 500)).toBe(500)
    expect(nextPollDelayMs(10 * SECOND, 500)).toBe(500)
    expect(nextPollDelayMs(100 * SECOND, 500)).toBe(5 * SECOND)
    expect(nextPollDelayMs(4 * 60 * MINUTE, 500)).toBe(30 * SECOND)
  })

  it('treats a negative elapsed time (a clock step back) as zero', () => {
    expect(nextPollDelayMs(-10 * MINUTE, 2 * SECOND)).toBe(2 * SECOND)
  })
})

describe('poll delays a timer can hold', () => {
  it('clamps an interval past 2^31-1 ms instead of letting the timer overflow', () => {
    expect(nextPollDelayMs(0, 600 * 3_600_000)).toBe(MAX_TIMER_MS)
    expect(nextPollDelayMs(10 ** 12, 10 ** 15)).toBe(2 ** 31 - 1)
  })
})
