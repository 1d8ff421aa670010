import { WORKFLOW_WORDS } from '../../src/door-words.ts'
import { Interruption } from '../../src/run/interruption.ts'

/** An interruption no signal ever reaches: for runs driven in-process, stopped by their own signal. */
export function noSignals(): Interruption {
  return new Interruption({
    log: { info: () => undefined, warning: () => undefined, debug: () => undefined },
    onSignal: () => () => undefined,
    exit: () => undefined,
    words: WORKFLOW_WORDS,
  })
}
