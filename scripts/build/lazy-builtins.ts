/**
 * dist/index.js with the Node built-in modules a step needs only after its start required at
 * their first use, rather than as the bundle is evaluated (issue 46): `https` and `tls`, which
 * `@actions/http-client` and `tunnel` take at their top but use only for an `https:` URL or a
 * proxy; `assert`, which `tunnel` takes and never calls; `fs/promises` (with the readline and
 * REPL modules Node loads under it), which `@actions/core`'s summary takes at its top and the
 * steps use only when they write a file; and `v8`, for the entries' setting of the heap
 * (src/heap.ts), made once the step's first turn is over. The packages stay as they are: the
 * bundle's lines that take these modules become a stand-in that requires the module on its
 * first property read. Each rewrite must find what it rewrites, so that a new version of a
 * package that takes them otherwise fails the build rather than loading them at the start again
 * unnoticed. The source map's columns move to match.
 */
import { moveColumns } from './ascii.ts'

/** The built-in modules a start leaves to their first use, as the bundle requires them. */
const LAZY_BUILTINS = ['https', 'tls', 'assert', 'node:fs/promises', 'node:v8'] as const

/**
 * The stand-in, on the bundle's first line (where `__WEBPACK_EXTERNAL_createRequire` is
 * imported), so that no line below it moves: a module's property, read through it, requires
 * the module then; with `namespace`, as webpack's namespace object of it (`default` is the
 * module itself).
 */
const STAND_IN =
  ' const __lazyBuiltin = (name, namespace) => { let loaded;' +
  ' const load = () => (loaded ??= __WEBPACK_EXTERNAL_createRequire(import.meta.url)(name));' +
  " return new Proxy({}, { get: (_, key) => (namespace && key === 'default' ? load() : load()[key]) }) };"

const FIRST_LINE = 'import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";'

interface Rewrite {
  /** What it is for, in the build's error when it finds nothing. */
  readonly what: string
  readonly pattern: RegExp
  readonly replace: (match: RegExpExecArray) => string
}

/** A `require` of one of the modules, as webpack writes an external. */
function externalRequire(name: string): Rewrite {
  const quoted = JSON.stringify(name)
  return {
    what: `require of ${name}`,
    pattern: new RegExp(
      `__WEBPACK_EXTERNAL_createRequire\\(import\\.meta\\.url\\)\\(${escape(quoted)}\\)`,
      'g',
    ),
    replace: () => `__lazyBuiltin(${quoted})`,
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/**
 * Rewrites `code` (dist/index.js) and `map` (its source map's JSON) so that the modules of
 * LAZY_BUILTINS are required at their first use; throws when a rewrite finds nothing.
 */
export function lazyBuiltins(
  code: string,
  map: string | undefined,
): { code: string; map?: string } {
  const lines = code.split('\n')
  if (lines[0] !== FIRST_LINE) throw new Error(`dist/index.js does not start with ${FIRST_LINE}`)
  const mapped = map === undefined ? undefined : (JSON.parse(map) as { mappings: string })
  const mappings = mapped?.mappings.split(';')
  lines[0] += STAND_IN

  /** Each line's text with `rewrite` applied, its mappings' columns moved; how many it found. */
  const apply = (rewrite: Rewrite): number => {
    let found = 0
    lines.forEach((line, index) => {
      const moves: { at: number; end: number; by: number }[] = []
      let out = ''
      let last = 0
      for (const match of line.matchAll(rewrite.pattern)) {
        const replacement = rewrite.replace(match)
        out += line.slice(last, match.index) + replacement
        last = match.index + match[0].length
        moves.push({ at: match.index, end: last, by: replacement.length - match[0].length })
      }
      if (moves.length === 0) return
      found += moves.length
      lines[index] = out + line.slice(last)
      if (mappings?.[index] === undefined) return
      // A column after a rewrite moves by what it added; one inside it, to where it starts.
      mappings[index] = moveColumns(mappings[index], (column) => {
        let by = 0
        for (const move of moves) {
          if (column >= move.end) by += move.by
          else if (column > move.at) return move.at + by
        }
        return column + by
      })
    })
    return found
  }

  // Webpack's namespace object of an external (`import * as https from 'https'`) reads every
  // property of the module as it is made: the stand-in's namespace reads them when they are used.
  const namespaces: Rewrite = {
    what: 'the namespace objects of https',
    pattern: /\/\*#__PURE__\*\/__nccwpck_require__\.t\((\w+), 2\)/g,
    replace: (match) => {
      const variable = match[1] ?? ''
      const name = requiredAs(lines, variable)
      return name === undefined ? match[0] : `__lazyBuiltin(${JSON.stringify(name)}, true)`
    },
  }
  // @actions/core's summary takes its three functions of `fs.promises` at its top.
  const destructured: Rewrite = {
    what: "@actions/core's fs.promises",
    pattern: /^const \{ ((?:\w+, )*\w+) \} = (\w+)\.promises;$/g,
    replace: (match) => {
      const names = (match[1] ?? '').split(', ')
      const fs = match[2] ?? ''
      return `const ${names.map((name) => `${name} = (...args) => ${fs}.promises.${name}(...args)`).join(', ')};`
    },
  }
  const rewrites = [...LAZY_BUILTINS.map(externalRequire), destructured]
  for (const rewrite of rewrites) {
    if (apply(rewrite) === 0)
      throw new Error(`lazyBuiltins: found no ${rewrite.what} in dist/index.js`)
  }
  // After the requires: a namespace object is of an external that now requires lazily.
  if (apply(namespaces) === 0) throw new Error(`lazyBuiltins: found no ${namespaces.what}`)
  const result = lines.join('\n')
  if (!result.includes('__lazyBuiltin("https", true)')) {
    throw new Error(`lazyBuiltins: found no ${namespaces.what} in dist/index.js`)
  }
  if (!mapped || !mappings) return { code: result }
  return { code: result, map: JSON.stringify({ ...mapped, mappings: mappings.join(';') }) }
}

/**
 * The lazily required module that `variable` holds in `lines`: `var variable =
 * __nccwpck_require__(id)`, where module `id` is `module.exports = __lazyBuiltin(name)`.
 */
function requiredAs(lines: readonly string[], variable: string): string | undefined {
  const assigned = new RegExp(`^var ${variable} = __nccwpck_require__\\((\\d+)\\);$`)
  const id = lines.map((line) => assigned.exec(line)?.[1]).find((found) => found !== undefined)
  if (id === undefined) return undefined
  const start = lines.indexOf(`/***/ ${id}:`)
  const body = lines.slice(start, start + 6).join('\n')
  return start < 0
    ? undefined
    : /module\.exports = __lazyBuiltin\(("[^"]+")\);/.exec(body)?.[1]?.slice(1, -1)
}
