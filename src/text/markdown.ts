/**
 * Agent text (its final answer, its step summaries) shown as Markdown.
 *
 * Agents write Markdown, so it is kept: emphasis, lists, tables, links, code.
 * But the text is untrusted, and the output must hold these properties
 * wherever GitHub renders it (job summary, pull request comment):
 * - no raw HTML: a `<` that could open a tag, comment or autolink is an entity
 *   outside code, and code cannot be mistaken for anything else;
 * - no @-mention notifies anyone;
 * - no comment marker (`<!-- cloud-agent-run: … -->`) appears in the source;
 * - nothing stays open at the end (a fenced block is closed), so the text
 *   cannot swallow what follows it, such as the `</details>` it sits in.
 *
 * Code is recognised conservatively: a fence only at column 0, a code span
 * only within one line. A fence-like line with leading white space (which
 * could close a fence inside a list item that this function does not track)
 * is made plain text. When in doubt the text is escaped, which costs looks,
 * never safety.
 */

import { cut } from './plain.ts'

/** Zero-width joiner: keeps `@name` readable while GitHub no longer sees a mention. */
const MENTION_BREAK = '\u200d'
/** Zero-width space: breaks `<!--` inside code, where entities would show as typed. */
const COMMENT_BREAK = '\u200b'

const INDENTED_FENCE = /^([ \t]+)([`~]{3})/

export function agentMarkdown(text: unknown): string {
  if (typeof text !== 'string') return ''
  const lines = normalize(text).split('\n')
  const out: string[] = []
  let fence: { char: string; length: number } | undefined
  for (const line of lines) {
    if (fence) {
      if (closesFence(line, fence)) fence = undefined
      out.push(fence ? defuseCode(line) : line)
      continue
    }
    const marker = fenceMarker(line)
    const info = line.slice(marker.length)
    // A backtick fence's info string cannot hold a backtick; such a line is not a fence.
    if (marker && !(marker.startsWith('`') && info.includes('`'))) {
      fence = { char: marker.charAt(0), length: marker.length }
      out.push(`${marker}${escapeInline(info)}`)
      continue
    }
    out.push(
      escapeLine(
        line.replace(INDENTED_FENCE, (_all, indent: string, run: string) => `${indent}\\${run}`),
      ),
    )
  }
  if (fence) out.push(fence.char.repeat(fence.length))
  return out.join('\n').trim() === '' ? '' : out.join('\n')
}

/**
 * The agent's Markdown inside a collapsible block. The blank lines around it
 * let GitHub render Markdown inside the HTML block; `summary` is plain text.
 */
export function agentDetails(summary: string, text: unknown, open = false): string {
  const body = agentMarkdown(text)
  return [
    `<details${open ? ' open' : ''}><summary>${escapeInline(plainLine(summary))}</summary>`,
    '',
    body || '_(empty)_',
    '',
    '</details>',
  ].join('\n')
}

/**
 * The run of three or more backticks or tildes that opens a fence at the start of `line`, or ''.
 * Counted, not matched: `/^(`{3,})(.*)$/` retries every shorter run when the rest is no match.
 */
function fenceMarker(line: string): string {
  const char = line.charAt(0)
  if (char !== '`' && char !== '~') return ''
  let end = 1
  while (line.charAt(end) === char) end += 1
  return end >= 3 ? line.slice(0, end) : ''
}

function plainLine(text: string): string {
  // White space around a line break becomes one space; `\s*\n\s*` would rescan long runs.
  return normalize(text)
    .replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run))
    .trim()
}

function normalize(text: string): string {
  return (
    text
      .replace(/\r\n?/g, '\n')
      // Control characters, and the bidirectional overrides that make text read other than it is.
      // eslint-disable-next-line no-control-regex -- removing control characters is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '')
  )
}

function closesFence(line: string, fence: { char: string; length: number }): boolean {
  const match = /^ {0,3}([`~]+)[ \t]*$/.exec(line)
  const run = match?.[1] ?? ''
  return run.length >= fence.length && [...run].every((char) => char === fence.char)
}

/** Inside code nothing renders, but the raw source must still hold no comment marker. */
function defuseCode(text: string): string {
  return text.replace(/<!--/g, `<!${COMMENT_BREAK}--`)
}

/**
 * One line outside fenced code: code spans are kept when they open and close
 * on this line (and hold no `|`, which a table would split on first); every
 * other backtick is escaped, so the spans in the output are exactly these.
 */
function escapeLine(line: string): string {
  const closers = new RunIndex(line)
  let out = ''
  let text = ''
  let i = 0
  while (i < line.length) {
    const char = line.charAt(i)
    if (char === '\\' && i + 1 < line.length && isAsciiPunctuation(line.charAt(i + 1))) {
      text += line.slice(i, i + 2)
      i += 2
      continue
    }
    if (char !== '`') {
      text += char
      i += 1
      continue
    }
    const run = backtickRun(line, i)
    const close = closers.next(run, i + run)
    const content = close === -1 ? '' : line.slice(i + run, close)
    if (close === -1 || content.includes('|')) {
      text += '\\`'.repeat(run)
      i += run
      continue
    }
    const delimiter = '`'.repeat(run)
    out += escapeInline(text) + delimiter + defuseCode(content) + delimiter
    text = ''
    i = close + run
  }
  return out + escapeInline(text)
}

/** Text outside code: no tag, comment or autolink can open, and no mention notifies. */
function escapeInline(text: string): string {
  return text
    .replace(/\\[!-/:-@[-`{-~]|</g, (match) => (match === '<' || match === '\\<' ? '&lt;' : match))
    .replace(MENTION, `$1@${MENTION_BREAK}`)
}

/** An @ that GitHub would read as the start of a mention. */
const MENTION = /(^|[^A-Za-z0-9_])@(?=[A-Za-z0-9])/g

function backtickRun(line: string, start: number): number {
  let end = start
  while (line.charAt(end) === '`') end += 1
  return end - start
}

/**
 * The maximal backtick runs of a line, by length, so that finding a span's
 * closing run is linear in the line, not quadratic (agent text can be long).
 */
class RunIndex {
  readonly #starts = new Map<number, number[]>()
  readonly #cursor = new Map<number, number>()

  constructor(line: string) {
    let i = 0
    while (i < line.length) {
      if (line.charAt(i) !== '`') {
        i += 1
        continue
      }
      const run = backtickRun(line, i)
      const starts = this.#starts.get(run) ?? []
      starts.push(i)
      this.#starts.set(run, starts)
      i += run
    }
  }

  /** The start of the first run of exactly `length` backticks at or after `from`, or -1. */
  next(length: number, from: number): number {
    const starts = this.#starts.get(length) ?? []
    let cursor = this.#cursor.get(length) ?? 0
    while (cursor < starts.length && (starts[cursor] ?? 0) < from) cursor += 1
    this.#cursor.set(length, cursor)
    return cursor < starts.length ? (starts[cursor] ?? -1) : -1
  }
}

function isAsciiPunctuation(char: string): boolean {
  return /^[!-/:-@[-`{-~]$/.test(char)
}

/**
 * Makes API text inert in a Markdown table cell: HTML cannot open, a pipe
 * cannot end the cell, a line break cannot end the row, and Markdown syntax
 * (links, emphasis, code) shows as typed.
 */
export function escapeMarkdown(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- stripping control characters is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
      .replace(/[&<>"'|\\`*_[\]()#!~$]/g, (char) => `&#${char.charCodeAt(0)};`)
      .replace(/\r?\n/g, '<br>')
  )
}

/**
 * Service text as inert Markdown, on a line or in a table cell: nothing renders or
 * notifies, and a URL in it stays one link (escaped, its parentheses would break it).
 */
export function inlineText(text: string): string {
  let out = ''
  let last = 0
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const url = trimUrl(match[0])
    const href = linkTarget(url)
    out += inert(text.slice(last, match.index))
    out += href ? `[${inert(url)}](<${href}>)` : inert(url)
    last = match.index + url.length
  }
  return out + inert(text.slice(last))
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/g

/** The URL without what GitHub's autolinks leave out: trailing punctuation, an unmatched `)`. */
function trimUrl(url: string): string {
  // One pass from the end, counting once: a URL ending in thousands of `.` or `)` stays linear.
  let open = 0
  let close = 0
  for (const char of url) {
    if (char === '(') open += 1
    else if (char === ')') close += 1
  }
  let end = url.length
  for (;;) {
    while (end > 0 && TRAILING_PUNCTUATION.has(url.charAt(end - 1))) end -= 1
    if (url.charAt(end - 1) !== ')' || close <= open) return url.slice(0, end)
    end -= 1
    close -= 1
  }
}

const TRAILING_PUNCTUATION = new Set('.,:;!?*_~\'"')

/**
 * The destination of a link written `[label](<destination>)`: only `<`, `>`,
 * a backslash or a line break could end or bend it, and a `|` the table cell it
 * stands in; they are percent-encoded. Parentheses stay as the author wrote them.
 */
export function linkTarget(url: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined
  return parsed.href.replace(/[<>\\\s|]/g, (char) => `%${hex(char)}`)
}

function inert(text: string): string {
  return escapeMarkdown(text).replace(MENTION, `$1@${MENTION_BREAK}`)
}

/** The URL if it is http(s), percent-encoded so that it cannot break out of a Markdown link. */
export function safeHttpUrl(value: string | undefined): string | undefined {
  if (!value) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
  return url.href.replace(/[()<>"'\s|\\[\]`]/g, (char) => `%${hex(char)}`)
}

function hex(char: string): string {
  return char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')
}

/** The answer cut to `max` characters before it is made safe, so the cut cannot open a block. */
export function clipAnswer(answer: string, max: number): string {
  if (answer.length <= max) return answer
  return `${cut(answer, max)}\n\n_(The answer is cut here; the whole of it is in the result output and the session.)_`
}

/**
 * Text shown exactly as it is, in a code span: a run ID, a state. The span's
 * backticks outnumber any in the text, so it cannot close early; mentions and
 * HTML do nothing inside one.
 */
export function codeSpan(text: string): string {
  const flat = text
    // eslint-disable-next-line no-control-regex -- a code span is one line, without control characters
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/<!--/g, '<!\u200b--')
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((run) => run[0].length))
  const fence = '`'.repeat(longest + 1)
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${flat}${pad}${fence}`
}
