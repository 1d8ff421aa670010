/**
 * `npm run build`: writes dist/, what the runner runs. It holds
 * - index.js (+ its lazily loaded chunks): both steps' code, unminified, with source maps;
 * - main.js and post.js, the entries action.yml names, and reconcile.js, the one
 *   reconcile/action.yml names, which only call their step's run();
 * - licenses.txt, the notices of everything bundled.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ncc from '@vercel/ncc'
import { parse } from 'yaml'
import { asciiChunk } from './build/ascii.ts'
import { lazyBuiltins } from './build/lazy-builtins.ts'
import { bundledPackages, licenses } from './build/licenses.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DIST = join(ROOT, 'dist')

/**
 * A source map with its sources' paths in one form, `.././<path from the root>`: ncc writes a
 * lazily loaded chunk's paths with one `../` more now and then, so that the same sources could
 * build a different dist/, which CI takes for a stale one.
 */
function canonicalMap(text: string): string {
  const map = JSON.parse(text) as { sources?: string[] }
  map.sources = map.sources?.map((source) => source.replace(/^(?:\.\.\/)+\.\//, '.././'))
  return JSON.stringify(map)
}

function write(file: string, content: string | Buffer): void {
  mkdirSync(dirname(join(DIST, file)), { recursive: true })
  writeFileSync(join(DIST, file), content)
}

rmSync(DIST, { recursive: true, force: true })

const bundle = await ncc(join(ROOT, 'src', 'index.ts'), {
  sourceMap: true,
  // Node's own source maps serve debug runs instead (see the entries below).
  sourceMapRegister: false,
  quiet: true,
})
// Every chunk in ASCII, its map to match (scripts/build/ascii.ts): a start decodes and compiles
// it as a one-byte string.
const files = new Map<string, string | Buffer>([['index.js', bundle.code]])
for (const [file, asset] of Object.entries(bundle.assets)) files.set(file, asset.source)
// The built-in modules a start does not need, required at their first use instead
// (scripts/build/lazy-builtins.ts).
const lazy = lazyBuiltins(bundle.code, files.get('index.js.map')?.toString())
files.set('index.js', lazy.code)
if (lazy.map !== undefined) files.set('index.js.map', lazy.map)
for (const [file, content] of files) {
  if (!file.endsWith('.js')) continue
  const map = files.get(`${file}.map`)
  const ascii = asciiChunk(content.toString(), map?.toString())
  files.set(file, ascii.code)
  if (ascii.map !== undefined) files.set(`${file}.map`, ascii.map)
}
for (const [file, content] of files) {
  write(file, file.endsWith('.map') ? canonicalMap(content.toString()) : content)
}

// Node reads dist/index.js.map only in debug runs: reading and mapping the map cost a step
// ~50 ms whenever a stack was formed (1.6 MB, when undici was bundled), and only debug output
// shows stacks. Node applies a map only to modules loaded after it is enabled, hence the
// dynamic import.
for (const [file, run] of [
  ['main.js', 'runMain'],
  ['post.js', 'runPost'],
  // reconcile/action.yml's entry: a second action from the same bundle.
  ['reconcile.js', 'runReconcile'],
  // report/action.yml's entry: a third action from the same bundle.
  ['report.js', 'runReport'],
] as const) {
  write(
    file,
    [
      `if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)`,
      `const { ${run}, keepYoungGenerationSmall } = await import('./index.js')`,
      // A process-wide setting (src/heap.ts), so an entry's, never the steps' run in a test; made
      // once the step's first turn is over, in which the main step has sent its create unless it
      // waited on something before: node:v8 is required then (scripts/build/lazy-builtins.ts),
      // not as the start's 5 ms.
      `setImmediate(keepYoungGenerationSmall)`,
      // The entry reads the process and hands it in: nothing below it reads `process` itself.
      `await ${run}(process)`,
      '',
    ].join('\n'),
  )
}

// The command line (package.json's bin): the same bundle behind a second door. Its flags are
// action.yml's inputs, written here as JSON with the package's version (inputs.json), so that a
// start of the command parses no YAML.
write(
  'cli.js',
  [
    '#!/usr/bin/env node',
    `import * as nodeModule from 'node:module'`,
    // Node 22.1 and later cache the bundle's compiled code on disk (in the system's temp folder):
    // a later start of the command skips compiling its 0.8 MB. Node 20 has no such cache.
    `nodeModule.enableCompileCache?.()`,
    `const { commandIo, keepYoungGenerationSmall, runCli } = await import('./index.js')`,
    `setImmediate(keepYoungGenerationSmall)`,
    `process.exitCode = await runCli(process.argv.slice(2), new URL('./inputs.json', import.meta.url), commandIo(process))`,
    '',
  ].join('\n'),
)
const inputsOf = (file: string) =>
  (parse(readFileSync(join(ROOT, file), 'utf8')) as { inputs: unknown }).inputs
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string
}
const manifest = { version, inputs: inputsOf('action.yml'), report: inputsOf('report/action.yml') }
write('inputs.json', `${JSON.stringify(manifest)}\n`)

const maps = readdirSync(DIST)
  .filter((file) => file.endsWith('.map'))
  .map((file) => readFileSync(join(DIST, file), 'utf8'))
const notices = licenses(ROOT, bundledPackages(maps))
write('licenses.txt', notices.text)

console.log(`dist/: ${readdirSync(DIST).join(', ')}; licenses.txt names ${notices.count} packages`)
