// Preloaded into a step (NODE_OPTIONS=--import): on exit, writes to UNDICI_PROBE_FILE
// whether undici was evaluated. Evaluating undici sets its global dispatcher
// (undici/lib/global.js), and nothing else in a step does: the action never calls
// the global fetch. Plain JavaScript, so that Node 20 can preload it too.
import { writeFileSync } from 'node:fs'

process.on('exit', () => {
  const evaluated = globalThis[Symbol.for('undici.globalDispatcher.1')] !== undefined
  writeFileSync(process.env.UNDICI_PROBE_FILE, String(evaluated))
})
