/** The error that names a bad input: the inputs' readers throw it, and the output schema's compiler. */

/** A bad input value. The message names the input and the rule, never the key. */
export class InputError extends Error {
  override name = 'InputError'
  readonly input: string
  /** What is wrong, after the input's name: each door names the input its own way. */
  readonly detail: string

  constructor(input: string, message: string) {
    super(`Input "${input}" ${message}`)
    this.input = input
    this.detail = message
  }
}
