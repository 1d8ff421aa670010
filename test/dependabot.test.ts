/**
 * .github/dependabot.yml against SchemaStore's dependabot-2.0 schema, as the TypeScript
 * types generated from it (@schemastore/dependabot-2.0), checked by the TypeScript
 * compiler: the workflow validator the examples use knows no dependabot files, and the
 * validators that do fetch the schema at run time, which CI here cannot. The types check
 * every key's values; unlike the schema, they let an unknown key through.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { GitHubDependabotV2Config } from '@schemastore/dependabot-2.0'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from './e2e/harness.ts'

// Only a type for the reading below: whether the file is one is what the compiler is asked.
const CONFIG = parse(
  readFileSync(join(ROOT, '.github', 'dependabot.yml'), 'utf8'),
) as GitHubDependabotV2Config

/**
 * The compiler's complaints about each config as a GitHubDependabotV2Config, by name. One
 * program for all of them.
 */
function schemaProblems(configs: Record<string, unknown>): Record<string, string[]> {
  // In the repository, so that the import resolves from its node_modules. The compiler names
  // files with forward slashes, on Windows too.
  const slashed = (path: string) => path.replaceAll('\\', '/')
  const fileOf = (name: string) => slashed(join(ROOT, `dependabot-check-${name}.ts`))
  const sources = new Map(
    Object.entries(configs).map(([name, config]) => [
      fileOf(name),
      "import type { GitHubDependabotV2Config } from '@schemastore/dependabot-2.0'\n" +
        `export const config: GitHubDependabotV2Config = ${JSON.stringify(config, null, 2)}\n`,
    ]),
  )
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    // Not the default libraries, with the DOM: they were most of the program's second.
    lib: ['lib.es5.d.ts'],
  }
  const host = ts.createCompilerHost(options)
  const { getSourceFile, fileExists, readFile } = host
  host.fileExists = (name) => sources.has(slashed(name)) || fileExists.call(host, name)
  host.readFile = (name) => sources.get(slashed(name)) ?? readFile.call(host, name)
  host.getSourceFile = (name, version, ...rest) => {
    const source = sources.get(slashed(name))
    return source === undefined
      ? getSourceFile.call(host, name, version, ...rest)
      : ts.createSourceFile(name, source, version)
  }
  const program = ts.createProgram([...sources.keys()], options, host)
  return Object.fromEntries(
    Object.keys(configs).map((name) => [
      name,
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(fileOf(name)))
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')),
    ]),
  )
}

const update = (fields: object) => ({ version: 2, updates: [fields] })
const problems = schemaProblems({
  ours: CONFIG,
  ecosystem: update({
    'package-ecosystem': 'npmx',
    directory: '/',
    schedule: { interval: 'weekly' },
  }),
  interval: update({
    'package-ecosystem': 'npm',
    directory: '/',
    schedule: { interval: 'sometimes' },
  }),
})

describe('dependabot.yml', () => {
  it("conforms to SchemaStore's dependabot-2.0 schema", () => {
    expect(problems.ours).toEqual([])
  })

  it('the check flags an unknown ecosystem and an unknown interval', () => {
    expect(problems.ecosystem?.join('\n')).toMatch(/"npmx"/)
    expect(problems.interval?.join('\n')).toMatch(/"sometimes"/)
  })

  it('updates npm and GitHub Actions, and leaves the stand-ins (undici, @actions/exec) to the hand that moves them', () => {
    expect(CONFIG.updates.map((entry) => entry['package-ecosystem']).sort()).toEqual([
      'github-actions',
      'npm',
    ])
    const npm = CONFIG.updates.find((entry) => entry['package-ecosystem'] === 'npm')
    expect(npm?.ignore?.map((rule) => rule['dependency-name'])).toEqual(['undici', '@actions/exec'])
  })
})
