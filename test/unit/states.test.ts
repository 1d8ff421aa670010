import { describe, expect, it } from 'vitest'
import { KNOWN_RUN_STATES } from '../../src/api/types.ts'
import { isKnownState, isTerminal, meaningOf, type StateMeaning } from '../../src/model/states.ts'

const MEANINGS: Record<(typeof KNOWN_RUN_STATES)[number], StateMeaning> = {
  QUEUED: 'active',
  PENDING: 'active',
  CLAIMED: 'active',
  INPROGRESS: 'active',
  BLOCKED: 'blocked',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  ERROR: 'failed',
  CANCELLED: 'failed',
}

const UNKNOWN = ['PAUSED', 'ARCHIVED', 'RESUMING', '', 'toString', 'constructor', '__proto__']

describe('run states', () => {
  it('knows exactly the states the service documents', () => {
    expect([...KNOWN_RUN_STATES].sort()).toEqual(Object.keys(MEANINGS).sort())
  })

  it.each(Object.entries(MEANINGS))('%s means %s', (state, meaning) => {
    expect(isKnownState(state)).toBe(true)
    expect(meaningOf(state)).toBe(meaning)
  })

  it.each(UNKNOWN)('treats %j as unknown and not terminal', (state) => {
    expect(isKnownState(state)).toBe(false)
    expect(meaningOf(state)).toBe('unknown')
    expect(isTerminal(state)).toBe(false)
  })

  it('has exactly SUCCEEDED, FAILED, ERROR and CANCELLED as terminal states', () => {
    const terminal = [...KNOWN_RUN_STATES, ...UNKNOWN].filter((state) => isTerminal(state))
    expect(terminal.sort()).toEqual(['CANCELLED', 'ERROR', 'FAILED', 'SUCCEEDED'])
  })

  it('keeps waiting on BLOCKED', () => {
    expect(isTerminal('BLOCKED')).toBe(false)
  })
})
