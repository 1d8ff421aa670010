/**
 * The report's period, from its input: a duration back from now (`24h`, `7d`, `30d`), a
 * calendar month (`2026-11`), or `last-month` (the month before now's, for a monthly report on
 * a schedule), in UTC. Pure.
 */

export interface Period {
  /** The first instant in the period, epoch ms. */
  readonly from: number
  /** The instant just past it, epoch ms (now, for a duration). */
  readonly to: number
  /** How a person reads it: "the last 7 days", "November 2026". */
  readonly label: string
}

const DAY_MS = 24 * 60 * 60_000
const HOUR_MS = 60 * 60_000
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/** The period `text` names at `now`; undefined when it names none. */
export function parsePeriod(text: string, now: number): Period | undefined {
  const duration = /^(\d{1,4})([hd])$/.exec(text)
  if (duration) {
    const count = Number(duration[1])
    const unit = duration[2] === 'h' ? HOUR_MS : DAY_MS
    if (count < 1 || count * unit > 366 * DAY_MS) return undefined
    const noun = duration[2] === 'h' ? 'hour' : 'day'
    return {
      from: now - count * unit,
      to: now,
      label: count === 1 ? `the last ${noun}` : `the last ${count} ${noun}s`,
    }
  }
  if (text === 'last-month') {
    const today = new Date(now)
    const from = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1)
    return monthOf(new Date(from).getUTCFullYear(), new Date(from).getUTCMonth())
  }
  const month = /^(\d{4})-(\d{2})$/.exec(text)
  if (month) {
    const year = Number(month[1])
    const index = Number(month[2]) - 1
    if (index < 0 || index > 11) return undefined
    if (Date.UTC(year, index, 1) > now) return undefined
    return monthOf(year, index)
  }
  return undefined
}

/** The calendar month `index` (0 for January) of `year`, in UTC. */
function monthOf(year: number, index: number): Period {
  const from = Date.UTC(year, index, 1)
  return { from, to: Date.UTC(year, index + 1, 1), label: `${MONTHS[index]} ${year}` }
}

/** Every UTC day the period touches, `YYYY-MM-DD`, oldest first. */
export function daysOf(period: Period): string[] {
  const days: string[] = []
  const first = Math.floor(period.from / DAY_MS) * DAY_MS
  for (let day = first; day < period.to; day += DAY_MS) {
    days.push(new Date(day).toISOString().slice(0, 10))
  }
  return days
}
