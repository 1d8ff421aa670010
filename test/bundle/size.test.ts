/**
 * dist/ without its source maps stays within 2 MB (issue 26, item 8), readable (unminified)
 * and with the GitHub client, the schema checker, YAML and picomatch in chunks that load only when a
 * step needs them. The sources' comments stay in the sources and the maps (tsconfig's
 * removeComments, which the bundler's compile follows): they were a quarter of the bundle,
 * and 1.3's dollars took it past 2 MB. It was 2.77 MB, 0.94 MB of it undici, which the action does not use (see
 * vendor/no-undici/README.md).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../e2e/harness.ts'

const DIST = join(ROOT, 'dist')
const LIMIT_BYTES = 2_000_000

const files = readdirSync(DIST).filter((file) => !file.endsWith('.map'))
const sizeOf = (file: string) => statSync(join(DIST, file)).size

describe('dist/', () => {
  it('weighs at most 2 MB without its source maps', () => {
    const sizes = Object.fromEntries(files.map((file) => [file, sizeOf(file)]))
    const total = Object.values(sizes).reduce((sum, size) => sum + size, 0)
    expect(total, JSON.stringify(sizes, null, 2)).toBeLessThanOrEqual(LIMIT_BYTES)
  })

  it('bundles no undici', () => {
    const undici = files.filter((file) =>
      /node_modules\/undici\/|undici-actual/.test(readFileSync(join(DIST, file), 'utf8')),
    )
    expect(undici).toEqual([])
    expect(files.filter((file) => file.endsWith('.cjs'))).toEqual([])
  })

  it('is readable: not minified, one statement a line', () => {
    const index = readFileSync(join(DIST, 'index.js'), 'utf8').split('\n')
    const long = index.filter((line) => line.length > 1_000)
    expect(long.length / index.length).toBeLessThan(0.001)
  })

  it('is ASCII, so that Node decodes and compiles each chunk as a one-byte string', () => {
    const wide = files.filter((file) =>
      /[\u0080-\uffff]/.test(readFileSync(join(DIST, file), 'utf8')),
    )
    expect(wide.filter((file) => file.endsWith('.js'))).toEqual([])
  })

  it('loads the GitHub client, the schema checker, RE2, YAML and picomatch lazily, each from a chunk', () => {
    const holding = (marker: string) =>
      files.filter((file) => readFileSync(join(DIST, file), 'utf8').includes(marker))
    for (const marker of [
      'octokit-core.js', // @octokit/core's user agent
      'class Ajv2020 extends',
      'class RE2JS',
      'class YAMLParseError',
      'POSIX_REGEX_SOURCE', // picomatch's, for download_artifacts
    ]) {
      const [file, ...more] = holding(marker)
      expect({ marker, file, more }).toEqual({
        marker,
        file: expect.stringMatching(/^\d+\.index\.js$/),
        more: [],
      })
    }
  })
})
