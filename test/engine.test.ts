/**
 * The engine reads nothing of the process (CONTRIBUTING.md, "Layers"): below
 * the doors (the entries, the steps' run(), src/runner.ts), no module names
 * `process` (its environment, working directory, signals, exit), takes the
 * process's environment, or reads a runner variable such as GITHUB_EVENT_PATH.
 * A door reads its world once (src/world.ts) and hands it down. ESLint says the
 * same of `process` as the code is written (`npm run lint`); this test names
 * every file at fault, and holds @actions/core (the runner's workflow and file
 * commands: the log, outputs, the summary, state, the step's failure) to the
 * Action's door, src/runner.ts: every other module writes through the StepIo
 * port its door hands down (src/step-io.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')

/**
 * The doors, which read their world (the process its entry hands in) and hand it down: the
 * entries, the Action's (src/runner.ts) and the command's (src/cli/door.ts, src/cli/). Every other
 * file of src/ is the engine and the steps, and is scanned.
 */
const DOORS = [/^src\/entries\//, /^src\/runner\.ts$/, /^src\/cli\//]

/** Folders the scan must reach (a check that the walk works, not the list it scans). */
const ENGINE = [
  'run',
  'model',
  'agent',
  'api',
  'summary',
  'github',
  'gitlab',
  'text',
  'report',
  'reconcile',
]

/** The one module that speaks to the runner through @actions/core: the Action's door. */
const RUNNER_DOORS = ['src/runner.ts']

const PROCESS_MODULES = new Set(['process', 'node:process'])
const RUNNER_VARIABLE = /^(GITHUB|RUNNER|INPUT|STATE)_[A-Z_]+$/

/** What a module reads of the process, one line each; and whether it imports @actions/core. */
function problemsIn(file: string, text: string): { problems: string[]; importsCore: boolean } {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const problems: string[] = []
  let importsCore = false
  const at = (node: ts.Node, what: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
    problems.push(`${file}:${line + 1}: ${what}`)
  }
  const moduleOf = (node: ts.Node): string | undefined => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const spec = node.moduleSpecifier
      return spec && ts.isStringLiteral(spec) ? spec.text : undefined
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [spec] = node.arguments
      return spec && ts.isStringLiteralLike(spec) ? spec.text : undefined
    }
    return undefined
  }
  const visit = (node: ts.Node): void => {
    const module = moduleOf(node)
    if (module === '@actions/core') importsCore = true
    if (module !== undefined && PROCESS_MODULES.has(module)) at(node, `imports ${module}`)
    if (ts.isIdentifier(node) && node.text === 'process' && namesTheGlobal(node)) {
      const parent = node.parent
      const member =
        ts.isPropertyAccessExpression(parent) && parent.expression === node
          ? `process.${parent.name.text}`
          : 'process'
      at(node, `uses ${member}`)
    }
    if (ts.isQualifiedName(node) && node.getText(source) === 'NodeJS.ProcessEnv') {
      at(node, "takes the process's environment (NodeJS.ProcessEnv)")
    }
    const variable = runnerVariableRead(node)
    if (variable) at(node, `reads the runner's variable ${variable}`)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return { problems, importsCore }
}

/** `process` as the global, not a property's or a declaration's name. */
function namesTheGlobal(node: ts.Identifier): boolean {
  const parent = node.parent
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false
  if (ts.isQualifiedName(parent) && parent.right === node) return false
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name === node)
    return false
  if (ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent)) return false
  return true
}

/** `env.GITHUB_SHA`, `env['GITHUB_SHA']`, `{ GITHUB_SHA: … }`: a runner variable, by name. */
function runnerVariableRead(node: ts.Node): string | undefined {
  const name = ts.isPropertyAccessExpression(node)
    ? node.name
    : ts.isElementAccessExpression(node)
      ? node.argumentExpression
      : ts.isBindingElement(node)
        ? (node.propertyName ?? node.name)
        : ts.isPropertyAssignment(node)
          ? node.name
          : undefined
  const text = name && (ts.isIdentifier(name) || ts.isStringLiteralLike(name)) ? name.text : ''
  return RUNNER_VARIABLE.test(text) ? text : undefined
}

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) =>
      relative(ROOT, join(ROOT, folder, name))
        .split('\\')
        .join('/'),
    )
}

function engineFiles(): string[] {
  return filesUnder('src').filter((file) => !DOORS.some((door) => door.test(file)))
}

describe('the engine reads nothing of the process', () => {
  const files = engineFiles()
  // Every file of src/ read once: the doors for @actions/core, the engine for all of it.
  const everyFile = filesUnder('src').map((file) => ({
    file,
    ...problemsIn(file, readFileSync(join(ROOT, file), 'utf8')),
  }))
  const scanned = everyFile.filter(({ file }) => files.includes(file))

  it('scans all of src/ but the doors: every folder, and the steps at its top', () => {
    for (const folder of ENGINE) {
      expect(files.some((file) => file.startsWith(`src/${folder}/`))).toBe(true)
    }
    expect(files).toEqual(
      expect.arrayContaining(['src/step/main.ts', 'src/step/post.ts', 'src/inputs/main-step.ts']),
    )
    expect(files.filter((file) => DOORS.some((door) => door.test(file)))).toEqual([])
  })

  it('names no process, no process environment and no runner variable below the doors', () => {
    expect(scanned.flatMap((file) => file.problems)).toEqual([])
  })

  it('speaks to the runner through @actions/core only in its door', () => {
    const speakers = everyFile
      .filter(({ importsCore }) => importsCore)
      .map(({ file }) => file)
      .sort()
    expect(speakers).toEqual(RUNNER_DOORS)
  })

  it('would name each way of reading the process, with its file and line', () => {
    const sample = [
      "import { env } from 'node:process'",
      'const sha = process.env.GITHUB_SHA',
      'process.on("SIGTERM", () => undefined)',
      'const cwd = process.cwd()',
      'function tag(env: NodeJS.ProcessEnv) { return env["GITHUB_RUN_ID"] }',
      'const { RUNNER_TEMP: temp } = env',
      'const faked = { GITHUB_REPOSITORY: repo }',
      "const events = await import('process')",
    ].join('\n')
    expect(problemsIn('src/run/x.ts', sample).problems).toEqual([
      'src/run/x.ts:1: imports node:process',
      "src/run/x.ts:2: reads the runner's variable GITHUB_SHA",
      'src/run/x.ts:2: uses process.env',
      'src/run/x.ts:3: uses process.on',
      'src/run/x.ts:4: uses process.cwd',
      "src/run/x.ts:5: takes the process's environment (NodeJS.ProcessEnv)",
      "src/run/x.ts:5: reads the runner's variable GITHUB_RUN_ID",
      "src/run/x.ts:6: reads the runner's variable RUNNER_TEMP",
      "src/run/x.ts:7: reads the runner's variable GITHUB_REPOSITORY",
      'src/run/x.ts:8: imports process',
    ])
    const words = [
      '// process.env is read by the door',
      "const reason = 'the event payload (GITHUB_EVENT_PATH) cannot be read'",
      'const limits = GITHUB_LIMITS.settleMs',
      'const step = { process: 1 }.process',
    ].join('\n')
    expect(problemsIn('src/run/y.ts', words).problems).toEqual([])
    expect(
      problemsIn('src/summary/z.ts', "import * as core from '@actions/core'").importsCore,
    ).toBe(true)
  })
})
