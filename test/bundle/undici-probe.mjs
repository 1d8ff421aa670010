// Preloaded into a step (NODE_OPTIONS=--import): on exit, writes to UNDICI_PROBE_FILE
// whether undici was loaded: the bundle's dist/undici.cjs, or, run from the sources,
// a file of node_modules/undici-actual. Both are CommonJS, so both land in the one
// require cache. (Node's own undici is no sign: Node 24 starts it when node:http is
// imported as ESM.) Plain JavaScript, so that Node 20 can preload it too.
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const UNDICI = /[\\/](undici-actual[\\/].*|undici\.cjs)$/

process.on('exit', () => {
  const loaded = Object.keys(createRequire(import.meta.url).cache).some((file) => UNDICI.test(file))
  writeFileSync(process.env.UNDICI_PROBE_FILE, String(loaded))
})
