/** The error that names a bad input, and an input as the door names it. */
import type { InputSource } from '../step-io.ts'

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

/** An input as the door names it: see InputSource.nameOf. */
export function inputNamed(source: InputSource, input: string, value?: string): string {
  if (source.nameOf) return source.nameOf(input, value)
  return value === undefined ? input : `${input}: ${value}`
}
