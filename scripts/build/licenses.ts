/**
 * dist/licenses.txt: the license of every production dependency the bundle may
 * carry. ncc's own `--license` output misses most packages once the bundle has
 * files loaded lazily, so the list is made here from the dependency tree.
 */
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'

interface Manifest {
  name: string
  version: string
  license?: string
  private?: boolean
  dependencies?: Record<string, string>
}

const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest

/** Where `name` resolves from `fromDir`, as Node resolves it: the nearest node_modules up the tree. */
function resolvePackage(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return candidate
    if (dir === dirname(dir)) throw new Error(`Cannot resolve ${name} from ${fromDir}`)
  }
}

function licenseText(dir: string): string {
  const file = readdirSync(dir).find((entry) => /^(licen[cs]e|copying)(\.|$)/i.test(entry))
  return file ? readFileSync(join(dir, file), 'utf8').trim() : ''
}

/**
 * The packages the sources import (bare specifiers, statically or lazily): what the bundle
 * carries. The published package has no dependencies of its own (dist/ is all it runs), so
 * they are found here rather than in package.json.
 */
function importedPackages(srcDir: string): string[] {
  const names = new Set<string>()
  for (const file of readdirSync(srcDir, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue
    const text = readFileSync(join(srcDir, file), 'utf8')
    for (const match of text.matchAll(/(?:\bfrom|\bimport\()\s*'([^'./][^']*)'/g)) {
      const specifier = match[1] ?? ''
      if (specifier.startsWith('node:')) continue
      const parts = specifier.split('/')
      names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? ''))
    }
  }
  return [...names].sort()
}

/**
 * The packages whose code is in the bundle, by name, from its source maps' sources (a package
 * imported only for its types, such as @octokit/openapi-types, carries none).
 */
export function bundledPackages(maps: readonly string[]): Set<string> {
  const names = new Set<string>()
  for (const map of maps) {
    const { sources } = JSON.parse(map) as { sources: string[] }
    for (const source of sources) {
      const path = source.split('node_modules/').at(-1) ?? ''
      if (path === source) continue
      const parts = path.split('/')
      names.add(path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? ''))
    }
  }
  return names
}

/**
 * The notices for the packages the bundle of the package at `root` carries: of the sources'
 * imports and their dependencies, those whose code `bundled` names.
 */
export function licenses(
  root: string,
  bundled: ReadonlySet<string>,
): { text: string; count: number } {
  // Keyed by folder, not name: a package may be installed twice, in two versions.
  const visited = new Set<string>([root])
  const queue = [root]
  const packages = new Map<string, { manifest: Manifest; dir: string }>()
  const entry = importedPackages(join(root, 'src'))
  while (queue.length > 0) {
    const dir = queue.shift() ?? root
    const names = dir === root ? entry : Object.keys(readManifest(dir).dependencies ?? {})
    for (const name of names) {
      const depDir = realpathSync(resolvePackage(name, dir))
      if (visited.has(depDir)) continue
      visited.add(depDir)
      queue.push(depDir)
      const manifest = readManifest(depDir)
      // Our own packages (the root, vendor/) need no third-party notice; a package whose code
      // the bundle does not carry (types only) needs none either.
      if (!manifest.private && bundled.has(manifest.name))
        packages.set(`${manifest.name}@${manifest.version}`, { manifest, dir: depDir })
    }
  }

  const sections = [...packages.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, { manifest, dir }]) =>
      [key, manifest.license ?? 'UNKNOWN', licenseText(dir)].filter(Boolean).join('\n'),
    )
  return { text: `${sections.join('\n\n')}\n`, count: sections.length }
}
