/**
 * The one function that makes text from the API (or an agent) safe for the
 * step's log, and the one that keeps the API key out of any text.
 *
 * The runner reads a log line that starts with `::` as a workflow command, so
 * a line break followed by `::stop-commands::x` in a run's state would silence
 * the step's own annotations. Every API-supplied string that reaches the log
 * goes through `safeForLog`.
 */

import { clip } from './plain.ts'

/** Longer log text is cut: a log line is for people, the full text is in the summary. */
export const MAX_LOG_TEXT = 4_000

// Line breaks the runner (or a log viewer) may split on: CR, LF, VT, FF, NEL, LS, PS.
// eslint-disable-next-line no-control-regex -- matching line-break controls is the point
const LINE_BREAKS = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g
// Other C0 and C1 controls (escape sequences could rewrite what a person sees).
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g

/**
 * `value` as one inert line: line breaks become spaces, control characters go,
 * and `::` cannot start a workflow command. Anything that is not a string (the
 * API may send any type) is shown as JSON.
 */
export function safeForLog(value: unknown, max = MAX_LOG_TEXT): string {
  const text = typeof value === 'string' ? value : describeValue(value)
  const flat = text
    .replace(LINE_BREAKS, ' ')
    .replace(CONTROLS, '')
    // `::` where a word starts: the text may end up first on a line, where the runner reads
    // it as a command. Inside a word (`[::1]`, `a::b`) it cannot start a line: left as it is.
    .replace(/(^|\s)::/g, '$1: :')
  return clip(flat, max)
}

/**
 * `text` with every occurrence of `secret` replaced by `***`. Applied before
 * any truncation, escaping or encoding, because the runner's own masking only
 * matches the whole key: a key cut in half, or escaped, would show.
 */
export function redactSecret(text: string, secret: string): string {
  if (secret === '' || !text.includes(secret)) return text
  return text.split(secret).join('***')
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'symbol' || typeof value === 'function') return `[${typeof value}]`
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}
