/** scripts/build/lazy-builtins.ts: built-in modules a start does not need, required at first use. */
import { describe, expect, it } from 'vitest'
import { lazyBuiltins } from '../../scripts/build/lazy-builtins.ts'

const FIRST = 'import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";'
const external = (id: number, name: string) =>
  [
    `/***/ ${id}:`,
    '/***/ ((module) => {',
    '',
    `module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)(${JSON.stringify(name)});`,
    '',
    '/***/ }),',
  ].join('\n')

/** A bundle as ncc writes one, with what each rewrite looks for. */
const BUNDLE = [
  FIRST,
  external(1, 'assert'),
  external(2, 'https'),
  external(3, 'tls'),
  external(4, 'http'),
  'var external_http_ = __nccwpck_require__(4);',
  'var external_http_namespaceObject = /*#__PURE__*/__nccwpck_require__.t(external_http_, 2);',
  'var external_https_ = __nccwpck_require__(2);',
  'var external_https_namespaceObject = /*#__PURE__*/__nccwpck_require__.t(external_https_, 2);',
  'const promises_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs/promises");',
  'const { access, appendFile, writeFile } = external_fs_namespaceObject.promises;',
  'const external_node_v8_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:v8");',
  '',
].join('\n')

describe('lazyBuiltins', () => {
  it('requires https, tls, assert, fs/promises and v8 through the stand-in, and no other module', () => {
    const { code } = lazyBuiltins(BUNDLE, undefined)
    const lines = code.split('\n')
    expect(lines[0]?.startsWith(`${FIRST} const __lazyBuiltin = `)).toBe(true)
    for (const name of ['assert', 'https', 'tls', 'node:fs/promises', 'node:v8']) {
      expect(code).toContain(`__lazyBuiltin(${JSON.stringify(name)})`)
    }
    expect(code).toContain(
      'module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("http");',
    )
    expect(code).toContain('/*#__PURE__*/__nccwpck_require__.t(external_http_, 2);')
    expect(code).toContain('var external_https_namespaceObject = __lazyBuiltin("https", true);')
    expect(code).toContain(
      'const access = (...args) => external_fs_namespaceObject.promises.access(...args), ' +
        'appendFile = (...args) => external_fs_namespaceObject.promises.appendFile(...args), ' +
        'writeFile = (...args) => external_fs_namespaceObject.promises.writeFile(...args);',
    )
    // No line moves: the source map's lines stay where they were.
    expect(lines).toHaveLength(BUNDLE.split('\n').length)
  })

  it('makes a stand-in that requires its module at the first property read, once', () => {
    const { code } = lazyBuiltins(BUNDLE, undefined)
    const standIn = (code.split('\n')[0] ?? '')
      .slice(FIRST.length)
      .replace('import.meta.url', 'url')
    const required: string[] = []
    const createRequire = () => (name: string) => {
      required.push(name)
      return { request: () => `${name} request` }
    }
    const lazy = new Function(
      '__WEBPACK_EXTERNAL_createRequire',
      'url',
      `${standIn} return __lazyBuiltin`,
    )(createRequire, 'file:///dist/index.js') as (
      name: string,
      namespace?: boolean,
    ) => Record<string, () => string>
    const https = lazy('https')
    const namespace = lazy('https', true)
    expect(required).toEqual([])
    expect(https.request?.()).toBe('https request')
    expect(https.request?.()).toBe('https request')
    expect(required).toEqual(['https'])
    expect((namespace.default as unknown as { request: () => string }).request()).toBe(
      'https request',
    )
  })

  it('moves the source map columns after a rewrite on its line', () => {
    // Line 2: a segment at column 0, and one at column 64 (the "y"), after the require (columns 4 to 61).
    const code = `${FIRST}\nx = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("https"); y\n${BUNDLE.split('\n').slice(1).join('\n')}`
    const map = JSON.stringify({
      version: 3,
      sources: ['x.ts'],
      names: [],
      mappings: ';AAAA,gEAAC',
    })
    const { code: out, map: moved } = lazyBuiltins(code, map)
    const line = out.split('\n')[1] ?? ''
    expect(line).toBe('x = __lazyBuiltin("https"); y')
    // The "y" is now at column 28 (64 - 58 + 22): '4B' in base64 VLQ.
    const mappings = (JSON.parse(moved ?? '{}') as { mappings: string }).mappings.split(';')
    expect(mappings[1]).toBe('AAAA,4BAAC')
  })

  it('fails the build when a package no longer takes a module as it rewrites', () => {
    expect(() => lazyBuiltins(BUNDLE.replace('("tls")', '("node:tls")'), undefined)).toThrow(
      'found no require of tls',
    )
    expect(() =>
      lazyBuiltins(BUNDLE.replace('= external_fs_namespaceObject.promises', '= fs'), undefined),
    ).toThrow("@actions/core's fs.promises")
    expect(() => lazyBuiltins(BUNDLE.slice(FIRST.length + 1), undefined)).toThrow(
      'does not start with',
    )
  })
})
