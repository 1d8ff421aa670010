'use strict'
// @actions/http-client imports undici at the top for a proxy dispatcher that only
// fetch-based clients use, so evaluating it costs every step ~20 ms (bundled) to
// ~65 ms (from node_modules) for nothing. This module stands in for undici and
// evaluates the real one on first use.
let undici
const load = () => (undici ??= require('undici-actual'))

/**
 * A stand-in for one export, a class or a function: Node's ESM import of this module
 * reads each export named below as soon as the importer loads, before anyone calls
 * it, so reading must not load undici; calling, constructing or inspecting it does.
 */
const lazyExport = (name) =>
  new Proxy(function () {}, {
    apply: (_, self, args) => Reflect.apply(load()[name], self, args),
    construct: (_, args, newTarget) => Reflect.construct(load()[name], args, newTarget),
    get: (_, key) => load()[name][key],
    has: (_, key) => key in load()[name],
    getPrototypeOf: () => Reflect.getPrototypeOf(load()[name]),
  })

const lazyExports = new Map([
  ['ProxyAgent', lazyExport('ProxyAgent')],
  ['fetch', lazyExport('fetch')],
])

module.exports = new Proxy(
  {},
  {
    get: (_, name) => (lazyExports.has(name) ? lazyExports.get(name) : load()[name]),
    has: (_, name) => lazyExports.has(name) || name in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    // Node asks whether each named export is an own property before it reads it.
    getOwnPropertyDescriptor: (_, name) =>
      lazyExports.has(name)
        ? { value: lazyExports.get(name), writable: false, enumerable: true, configurable: true }
        : Object.getOwnPropertyDescriptor(load(), name),
  },
)

// Never runs; it names the exports for Node's CommonJS lexer, so that native ESM
// imports of { ProxyAgent } and { fetch } (the only ones the @actions packages use)
// resolve. Node reads them when the importer loads, which is why both are lazyExport()s.
// eslint-disable-next-line no-constant-binary-expression, @typescript-eslint/no-unused-expressions -- the lexer's idiom
0 && (module.exports = { ProxyAgent: null, fetch: null })
