/**
 * The step's limits, carried by each run it makes (v1.5: "the step's ending, not only the
 * service's state"): when the step's `timeout` ends and what the run may spend (`max_credits`,
 * or what a budget had left). The service records a run the step stopped as CANCELLED; with
 * these, the report tells a timeout and an overrun from a person's cancel. One metadata key,
 * `gh_limits`, so the action's tags leave room within the service's 20. Pure.
 */
import type { RunCost } from '../agent/cost.ts'
import type { RunItem } from '../api/types.ts'

export const LIMITS_KEY = 'gh_limits'

export interface StepLimits {
  /** When the step's timeout ends (ISO 8601); undefined for a run the step does not await. */
  readonly deadline?: string
  /** The credits the run may use before the step stops it. */
  readonly cap?: number
  /** The US dollars the run may use before the step stops it. */
  readonly capUsd?: number
}

/** The limits as their tag: `deadline=2026-12-02T04:00:00.000Z;cap=50;cap_usd=5`; none when empty. */
export function limitsTag(limits: StepLimits): Record<string, string> {
  const parts = [
    ...(limits.deadline ? [`deadline=${limits.deadline}`] : []),
    ...(limits.cap !== undefined ? [`cap=${limits.cap}`] : []),
    ...(limits.capUsd !== undefined ? [`cap_usd=${limits.capUsd}`] : []),
  ]
  return parts.length > 0 ? { [LIMITS_KEY]: parts.join(';') } : {}
}

/** The limits a run's tag names; nothing for a run tagged before the key (or by hand). Linear. */
export function readLimits(metadata: unknown): StepLimits {
  const text =
    typeof metadata === 'object' && metadata !== null
      ? (metadata as Record<string, unknown>)[LIMITS_KEY]
      : undefined
  if (typeof text !== 'string') return {}
  let deadline: string | undefined
  let cap: number | undefined
  let capUsd: number | undefined
  for (const part of text.split(';')) {
    const [name, value = ''] = part.split('=', 2)
    const number = /^\d+(\.\d+)?$/.test(value) ? Number(value) : undefined
    if (name === 'deadline' && Number.isFinite(Date.parse(value))) deadline = value
    if (name === 'cap' && number !== undefined) cap = number
    if (name === 'cap_usd' && number !== undefined) capUsd = number
  }
  return {
    ...(deadline ? { deadline } : {}),
    ...(cap !== undefined ? { cap } : {}),
    ...(capUsd !== undefined ? { capUsd } : {}),
  }
}

/**
 * How a CANCELLED run ended, by its step's limits: `timed_out` when it ended at or past its
 * deadline, `over_budget` when its spend reached its cap, else `cancelled` (a person, a newer
 * step, a closed pull request).
 */
export function cancelledEnding(
  run: Pick<RunItem, 'metadata' | 'updated_at'>,
  cost: RunCost,
): 'timed_out' | 'over_budget' | 'cancelled' {
  const { deadline, cap, capUsd } = readLimits(run.metadata)
  const ended = Date.parse(run.updated_at ?? '')
  if (deadline && Number.isFinite(ended) && ended >= Date.parse(deadline)) return 'timed_out'
  if (cap !== undefined && (cost.credits ?? 0) >= cap) return 'over_budget'
  // A dollar cap stops a run that reports no dollars too: it could not be counted.
  if (
    capUsd !== undefined &&
    (cost.usd === undefined ? (cost.credits ?? 0) > 0 : cost.usd >= capUsd)
  ) {
    return 'over_budget'
  }
  return 'cancelled'
}
