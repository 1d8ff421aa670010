/** Plain-text helpers every layer shares: a thrown value's message, and text cut to a length. */

/** What a thrown value says: its message when it is an Error, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** `text` cut to `max` characters, with an ellipsis when anything was cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}
