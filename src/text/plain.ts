/** Plain-text helpers every layer shares: a thrown value's message, and text cut to a length. */

/** What a thrown value says: its message when it is an Error, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * `text` cut to at most `max` UTF-16 units, by whole characters (code points):
 * never between the two halves of a surrogate pair, which GitHub and the log
 * would show as a broken character (U+FFFD) once written as UTF-8. Not by
 * grapheme: Intl.Segmenter would load ICU on the step's start-up path, and an
 * emoji sequence cut between its parts still shows as its first emoji.
 * Constant time.
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text
  const end = Math.max(0, max)
  return isHighSurrogate(text.charCodeAt(end - 1)) ? text.slice(0, end - 1) : text.slice(0, end)
}

/** `text` cut to `max` characters (see `cut`), with an ellipsis when anything was cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${cut(text, max)}…` : text
}

/**
 * `text` as one sentence: trailing space and dangling punctuation (`:`, `;`, `,`, `-`) gone,
 * and a full stop added unless it already ends as a sentence does. Linear.
 */
export function asSentence(text: string): string {
  let end = text.length
  while (end > 0 && /[\s:;,-]/.test(text.charAt(end - 1))) end -= 1
  const body = text.slice(0, end)
  return body === '' || /[.!?]$/.test(body) ? body : `${body}.`
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
