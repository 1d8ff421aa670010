'use strict'
// @actions/http-client imports undici at the top for a proxy dispatcher that only
// fetch-based clients use, so evaluating it costs every step ~20 ms for nothing.
// This module stands in for undici and evaluates the real one on first use.
let undici
const load = () => (undici ??= require('undici-actual'))

module.exports = new Proxy(
  {},
  {
    get: (_, name) => load()[name],
    has: (_, name) => name in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_, name) => Object.getOwnPropertyDescriptor(load(), name),
  },
)

// Never runs; it names the exports for Node's CommonJS lexer, so that native ESM
// imports of { ProxyAgent } and { fetch } (the only ones the @actions packages use)
// resolve. Node reads them at import time, which loads undici there; the bundle
// reads them only when used.
// eslint-disable-next-line no-constant-binary-expression, @typescript-eslint/no-unused-expressions -- the lexer's idiom
0 && (module.exports = { ProxyAgent: null, fetch: null })
