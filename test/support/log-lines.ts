import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

/**
 * The warning and error lines the action can print, read from src/ with TypeScript's parser
 * and checker: each message as its source writes it, fixed words and the holes the run fills.
 */

export const HOLE = Symbol('…')

/** One piece of a line: fixed text, or a hole for what the run fills in (shown as `…`). */
export type Part = string | typeof HOLE

/** A warning or error line the action can print. */
export interface LogLine {
  /** Where it is written, `src/…ts:line`. */
  readonly at: string
  /** How: `log.warning`, `core.setFailed`, `new InputError`, `new Error`, `failure`, … */
  readonly via: string
  /** Fixed text and holes: `Run ${id} ended` is ['Run ', HOLE, ' ended']. */
  readonly parts: readonly Part[]
}

/** A call that logs a message it does not write itself, e.g. `log.warning(message)`. */
export interface Relay {
  readonly at: string
  /** The argument's source text, e.g. `message` or `safeForLog(verdict.failure)`. */
  readonly argument: string
}

/**
 * A call that makes a logged line without being a log call, e.g. the reconcile pass's
 * `rowOf(run, 'failed', why)`, whose row is logged as a warning `Run <id>: failed: <why>`.
 */
export interface ExtraSink {
  /** The called function's name. */
  readonly callee: string
  /** Whether this call makes a line: e.g. its second argument is 'failed'. */
  readonly when: (args: readonly ts.Expression[]) => boolean
  /** The argument that holds the message. */
  readonly message: number
  /** The fixed words and holes the line starts with. */
  readonly prefix: readonly Part[]
}

/** A line made elsewhere than at a log call: a property or a table of messages. */
export interface Source {
  /** The file, `src/…ts`. */
  readonly file: string
  /** A property (`message: …`) or constant (`const failure = …`) holding a line. */
  readonly property?: string
  /** A constant object whose every value is a line, e.g. the API errors' hints. */
  readonly table?: string
  /** The fixed words and holes the line starts with. */
  readonly prefix?: readonly Part[]
}

/** Where to look beyond the log calls, the errors constructed and thrown. */
export interface Sources {
  readonly sinks?: readonly ExtraSink[]
  readonly values?: readonly Source[]
}

export function shown(parts: readonly Part[]): string {
  return parts.map((part) => (part === HOLE ? '…' : part)).join('')
}

/** The log calls: a method of this name on anything (core, log, deps.log, this.#log, …). */
const SINKS = new Set(['warning', 'error', 'setFailed'])

/** Calls that pass their first argument's text on, clipped or made safe for the log. */
const PASS_THROUGH = new Set(['safeForLog', 'clip', 'String', 'errorMessage'])

/** How deep the reading follows constants, functions and constructors. */
const MAX_DEPTH = 6

function sourceFiles(root: string): string[] {
  const files: string[] = []
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.gen.ts')) files.push(path)
    }
  }
  walk(join(root, 'src'))
  return files.sort()
}

/** What a parameter stands for at a call being read: the argument, read where it was written. */
type Bindings = ReadonlyMap<ts.Declaration, { expression: ts.Expression; bindings: Bindings }>

const NONE: Bindings = new Map()

export function collectLogLines(
  root: string,
  sources: Sources = {},
): { lines: LogLine[]; relays: Relay[] } {
  const extras = sources.sinks ?? []
  const files = sourceFiles(root)
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
    lib: ['lib.es2023.d.ts'],
    types: [],
  }
  // The lines are written in src/: a package's types (Octokit's alone are 11 MB) hold none,
  // and parsing them was most of this reading's time.
  const host = ts.createCompilerHost(options)
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, compilerOptions) =>
    literals.map(({ text }) =>
      text.startsWith('.')
        ? ts.resolveModuleName(text, containingFile, compilerOptions, host, undefined, redirected)
        : { resolvedModule: undefined },
    )
  const program = ts.createProgram(files, options, host)
  const checker = program.getTypeChecker()
  const reader = new Reader(checker)
  const lines: LogLine[] = []
  const relays: Relay[] = []

  for (const path of files) {
    const source = program.getSourceFile(path)
    if (!source) continue
    const file = relative(root, path).replaceAll('\\', '/')
    const at = (node: ts.Node) =>
      `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`
    const values = (sources.values ?? []).filter((value) => value.file === file)
    const add = (
      node: ts.Node,
      via: string,
      read: Part[][],
      argument: ts.Node,
      prefix: readonly Part[] = [],
    ) => {
      for (const parts of read) {
        const whole = merged([...prefix, ...parts])
        if (hasWords(whole)) lines.push({ at: at(node), via, parts: whole })
        else relays.push({ at: at(node), argument: argument.getText(source) })
      }
    }
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const [first] = node.arguments
        const sink = sinkOf(node.expression, checker)
        if (sink && first) add(node, sink, reader.read(first, NONE, 0), first)
        const name = calleeName(node.expression)
        for (const extra of extras) {
          const argument = node.arguments[extra.message]
          if (name === extra.callee && argument && extra.when(node.arguments)) {
            add(node, name, reader.read(argument, NONE, 0), argument, extra.prefix)
          }
        }
      }
      if (ts.isClassDeclaration(node)) {
        const name = node.name?.text ?? 'class'
        add(node, `${name}: this.message +=`, reader.appended(node), node)
      }
      if (ts.isNewExpression(node)) {
        const read = reader.errorMessage(node, NONE, 0)
        if (read) add(node, `new ${node.expression.getText(source)}`, read, node)
      }
      if ((ts.isPropertyAssignment(node) || ts.isVariableDeclaration(node)) && node.initializer) {
        const name = node.name.getText(source)
        for (const value of values) {
          if (value.property === name) {
            // `failure: passes ? undefined : '…'` has one line, not a relay.
            const read = reader.read(node.initializer, NONE, 0).filter(hasWords)
            add(node, name, read, node.initializer, value.prefix)
          }
          if (
            value.table === name &&
            ts.isVariableDeclaration(node) &&
            ts.isObjectLiteralExpression(node.initializer)
          ) {
            for (const entry of node.initializer.properties) {
              if (!ts.isPropertyAssignment(entry)) continue
              const read = reader.read(entry.initializer, NONE, 0)
              add(entry, `${name}[${entry.name.getText(source)}]`, read, entry, value.prefix)
            }
          }
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return { lines, relays }
}

/** Whether a call logs: a `warning`, `error` or `setFailed` method, or a constant holding one. */
function sinkOf(callee: ts.Expression, checker: ts.TypeChecker): string | undefined {
  if (ts.isPropertyAccessExpression(callee) && SINKS.has(callee.name.text)) return callee.getText()
  if (ts.isIdentifier(callee)) {
    // `const log = failed ? deps.log.warning : deps.log.info; log(…)`
    const declaration = declarationOf(callee, checker)
    if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer) {
      let found: string | undefined
      const look = (node: ts.Node): void => {
        if (ts.isPropertyAccessExpression(node) && SINKS.has(node.name.text)) found = node.getText()
        ts.forEachChild(node, look)
      }
      look(declaration.initializer)
      return found
    }
  }
  return undefined
}

function calleeName(callee: ts.Expression): string | undefined {
  if (ts.isIdentifier(callee)) return callee.text
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text
  return undefined
}

/** Whether a line says something of its own: two words, not only `Run …: …`. */
function hasWords(parts: readonly Part[]): boolean {
  const fixed = parts.filter((part) => typeof part === 'string').join(' ')
  return (fixed.match(/\p{L}{3,}/gu) ?? []).length >= 2
}

function merged(parts: readonly Part[]): Part[] {
  const out: Part[] = []
  for (const part of parts) {
    const last = out.at(-1)
    if (part === '' || (part === HOLE && last === HOLE)) continue
    if (typeof part === 'string' && typeof last === 'string') out[out.length - 1] = last + part
    else out.push(part)
  }
  return out
}

function declarationOf(expression: ts.Node, checker: ts.TypeChecker): ts.Declaration | undefined {
  let symbol = checker.getSymbolAtLocation(expression)
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol)
  return symbol?.declarations?.[0]
}

class Reader {
  readonly #checker: ts.TypeChecker

  constructor(checker: ts.TypeChecker) {
    this.#checker = checker
  }

  /** The ways an expression's text can read, each as fixed text and holes. */
  read(e: ts.Expression, bindings: Bindings, depth: number): Part[][] {
    if (depth > MAX_DEPTH) return [[HOLE]]
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [[e.text]]
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) {
      return this.read(e.expression, bindings, depth)
    }
    if (ts.isTemplateExpression(e)) {
      let ways: Part[][] = [[e.head.text]]
      for (const span of e.templateSpans) {
        const inner = this.substitution(span.expression, bindings, depth)
        ways = ways.flatMap((way) => inner.map((part) => [...way, ...part, span.literal.text]))
      }
      return ways
    }
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = this.read(e.left, bindings, depth)
      const right = this.read(e.right, bindings, depth)
      return left.flatMap((l) => right.map((r) => [...l, ...r]))
    }
    if (ts.isConditionalExpression(e)) {
      return [...this.read(e.whenTrue, bindings, depth), ...this.read(e.whenFalse, bindings, depth)]
    }
    if (ts.isCallExpression(e)) {
      const name = ts.isIdentifier(e.expression) ? e.expression.text : undefined
      const [first] = e.arguments
      if (name && PASS_THROUGH.has(name) && first) return this.read(first, bindings, depth)
      const fn = this.#functionOf(e.expression)
      if (fn) {
        const returned = returnsOf(fn)
        if (returned.length > 0) {
          const inner = bind(fn.parameters, e.arguments, bindings)
          return returned.flatMap((r) => this.read(r, inner, depth + 1))
        }
      }
      return [[HOLE]]
    }
    if (ts.isIdentifier(e)) {
      const declaration = declarationOf(e, this.#checker)
      const bound = declaration && bindings.get(declaration)
      if (bound) return this.read(bound.expression, bound.bindings, depth + 1)
      if (
        declaration &&
        ts.isVariableDeclaration(declaration) &&
        declaration.initializer &&
        ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const
      ) {
        return this.read(declaration.initializer, bindings, depth + 1)
      }
    }
    return [[HOLE]]
  }

  /**
   * A constructed error's message, when its class is an Error of src/ (or Error itself):
   * its constructor's arguments read through the constructors up to Error's.
   */
  errorMessage(e: ts.NewExpression, bindings: Bindings, depth: number): Part[][] | undefined {
    if (depth > MAX_DEPTH) return undefined
    const args = e.arguments ?? []
    if (ts.isIdentifier(e.expression) && e.expression.text === 'Error') {
      return args[0] ? this.read(args[0], bindings, depth) : undefined
    }
    const declaration = declarationOf(e.expression, this.#checker)
    // `new ErrorClass(…)`, an error class chosen at run time: its message is made elsewhere.
    if (declaration && (ts.isVariableDeclaration(declaration) || ts.isParameter(declaration))) {
      const made = this.#checker.getTypeAtLocation(e).getSymbol()?.declarations?.[0]
      return made && ts.isClassDeclaration(made) && this.#isError(made) ? [[HOLE]] : undefined
    }
    if (!declaration || !ts.isClassDeclaration(declaration)) return undefined
    return this.#classMessage(declaration, args, bindings, depth)
  }

  #isError(cls: ts.ClassDeclaration): boolean {
    const base = cls.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)
      ?.types[0]?.expression
    if (!base) return false
    if (ts.isIdentifier(base) && base.text === 'Error') return true
    const declaration = declarationOf(base, this.#checker)
    return (
      declaration !== undefined && ts.isClassDeclaration(declaration) && this.#isError(declaration)
    )
  }

  /** What a class adds to the message it inherits, `this.message += …`, whoever makes it. */
  appended(cls: ts.ClassDeclaration): Part[][] {
    const constructor = cls.members.find(ts.isConstructorDeclaration)
    return (constructor?.body?.statements ?? []).flatMap((statement): Part[][] => {
      if (!ts.isExpressionStatement(statement)) return []
      const s = statement.expression
      return ts.isBinaryExpression(s) &&
        s.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken &&
        ts.isPropertyAccessExpression(s.left) &&
        s.left.expression.kind === ts.SyntaxKind.ThisKeyword &&
        s.left.name.text === 'message'
        ? this.read(s.right, NONE, 0).map((parts) => [HOLE, ...parts])
        : []
    })
  }

  #classMessage(
    cls: ts.ClassDeclaration,
    args: readonly ts.Expression[],
    bindings: Bindings,
    depth: number,
  ): Part[][] | undefined {
    const base = cls.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)
      ?.types[0]?.expression
    if (!base) return undefined
    const baseMessage = (superArgs: readonly ts.Expression[], inner: Bindings) => {
      if (ts.isIdentifier(base) && base.text === 'Error') {
        return superArgs[0] ? this.read(superArgs[0], inner, depth + 1) : undefined
      }
      const declaration = declarationOf(base, this.#checker)
      return declaration && ts.isClassDeclaration(declaration)
        ? this.#classMessage(declaration, superArgs, inner, depth + 1)
        : undefined
    }
    const constructor = cls.members.find(ts.isConstructorDeclaration)
    if (!constructor?.body) return baseMessage(args, bindings)
    const inner = bind(constructor.parameters, args, bindings)
    // Constants of the constructor are read where they are used (the checker finds them).
    let message: Part[][] | undefined
    for (const statement of constructor.body.statements) {
      if (!ts.isExpressionStatement(statement)) continue
      const s = statement.expression
      if (ts.isCallExpression(s) && s.expression.kind === ts.SyntaxKind.SuperKeyword) {
        message = baseMessage(s.arguments, inner)
      } else if (
        ts.isBinaryExpression(s) &&
        ts.isPropertyAccessExpression(s.left) &&
        s.left.expression.kind === ts.SyntaxKind.ThisKeyword &&
        s.left.name.text === 'message'
      ) {
        const value = this.read(s.right, inner, depth + 1)
        if (s.operatorToken.kind === ts.SyntaxKind.EqualsToken) message = value
        else if (s.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken) {
          message = (message ?? [[HOLE]]).flatMap((m) => value.map((v) => [...m, ...v]))
        }
      }
    }
    return message
  }

  /** A substitution: a constant's or a bound argument's text when it is fixed, else a hole. */
  substitution(e: ts.Expression, bindings: Bindings, depth: number): Part[][] {
    const read = this.read(e, bindings, depth + 1)
    if (read.length === 1) return read
    // Several messages passed in (`new InputError(input, a ? 'needs …' : 'cannot …')`) are
    // several lines; a sentence or a detail within the line (`${cancel}`, `${a ? ' (x)' : ''}`)
    // is a hole, so that the page need not quote each way of it.
    const declaration = ts.isIdentifier(e) ? declarationOf(e, this.#checker) : undefined
    return declaration && bindings.has(declaration) && read.every(hasWords) ? read : [[HOLE]]
  }

  #functionOf(
    callee: ts.Expression,
  ): ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression | undefined {
    const declaration = declarationOf(callee, this.#checker)
    if (!declaration) return undefined
    if (ts.isFunctionDeclaration(declaration)) return declaration
    if (
      ts.isVariableDeclaration(declaration) &&
      declaration.initializer &&
      (ts.isArrowFunction(declaration.initializer) ||
        ts.isFunctionExpression(declaration.initializer))
    ) {
      return declaration.initializer
    }
    return undefined
  }
}

function bind(
  parameters: ts.NodeArray<ts.ParameterDeclaration>,
  args: readonly ts.Expression[],
  outer: Bindings,
): Bindings {
  const inner = new Map(outer)
  parameters.forEach((parameter, index) => {
    const argument = args[index]
    if (argument && ts.isIdentifier(parameter.name)) {
      inner.set(parameter, { expression: argument, bindings: outer })
    }
  })
  return inner
}

function returnsOf(fn: ts.FunctionLikeDeclaration): ts.Expression[] {
  if (!fn.body) return []
  if (!ts.isBlock(fn.body)) return [fn.body]
  const found: ts.Expression[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) return
    if (ts.isReturnStatement(node) && node.expression) found.push(node.expression)
    ts.forEachChild(node, visit)
  }
  ts.forEachChild(fn.body, visit)
  return found
}

/** A character of a line, or a stretch of any text: a hole, or a `…` of the page. */
const ANY = 0

/** How many characters in a row a quote must share with a line's fixed words. */
const SHARED_RUN = 8

/** How many of a line's fixed characters a quote must give: all of them, if fewer. */
const ENOUGH_FIXED = 30

function tokens(parts: readonly Part[]): (string | typeof ANY)[] {
  const out: (string | typeof ANY)[] = []
  for (const part of parts) {
    if (part === HOLE) out.push(ANY)
    else for (const char of part.replace(/\s+/g, ' ')) out.push(char)
  }
  return out
}

/** A page's quote as parts: `…` and a placeholder such as `<name>` stand for any text. */
export function quoteParts(quote: string): Part[] {
  return merged(
    quote.split(/…|<[a-z_ ]+>/).flatMap((text, index) => (index === 0 ? [text] : [HOLE, text])),
  )
}

/**
 * Whether a page's quote is the line: the two can read the same, each `…` of the quote and
 * each hole of the line standing for any text (an example value, or words left out), and the
 * quote gives enough of the line's fixed words: at least 30 of its characters (all, when it
 * has fewer), among them 8 in a row.
 */
export function quotes(quote: string, line: readonly Part[]): boolean {
  return quotedBy(quoteOnPage(quote), quotableLine(line))
}

/** A line made ready to meet many quotes: its runs of 8 fixed characters, its tokens, its need. */
export interface QuotableLine {
  readonly runs: ReadonlySet<string> | undefined
  readonly tokens: readonly (string | typeof ANY)[]
  readonly need: number
}

export function quotableLine(line: readonly Part[]): QuotableLine {
  const fixed = line.filter((part): part is string => typeof part === 'string')
  const longest = Math.max(...fixed.map((text) => text.length))
  const runs =
    longest >= SHARED_RUN
      ? new Set(
          fixed.flatMap((text) =>
            Array.from({ length: Math.max(0, text.length - SHARED_RUN + 1) }, (_, i) =>
              text.slice(i, i + SHARED_RUN),
            ),
          ),
        )
      : undefined
  const need = Math.min(ENOUGH_FIXED, fixed.join('').replace(/\s/g, '').length)
  return { runs, tokens: tokens(line), need }
}

/** A page's quote made ready to meet many lines: its text and its tokens. */
export interface QuoteOnPage {
  readonly text: string
  readonly tokens: readonly (string | typeof ANY)[]
}

export function quoteOnPage(quote: string): QuoteOnPage {
  return { text: quote, tokens: tokens(quoteParts(quote)) }
}

/** `quotes`, for a quote and a line each made ready once (the page's every quote, every line). */
export function quotedBy(quote: QuoteOnPage, line: QuotableLine): boolean {
  if (line.runs && !sharesRun(quote.text, line.runs)) return false
  return sharedFixed(line.tokens, quote.tokens) >= line.need
}

/** Whether `text` holds one of the line's runs of 8 fixed characters. */
function sharesRun(text: string, runs: ReadonlySet<string>): boolean {
  for (let i = 0; i + SHARED_RUN <= text.length; i += 1) {
    if (runs.has(text.slice(i, i + SHARED_RUN))) return true
  }
  return false
}

/**
 * The most fixed characters of the line that the quote gives, over every way the two read
 * the same; -1 when they cannot. Each step moves on in one or both, so one pass in order
 * visits every way.
 */
function sharedFixed(
  line: readonly (string | typeof ANY)[],
  quote: readonly (string | typeof ANY)[],
): number {
  const width = quote.length + 1
  const best = new Int32Array((line.length + 1) * width).fill(-1)
  best[0] = 0
  const reach = (i: number, j: number, score: number) => {
    const k = i * width + j
    if (score > (best[k] ?? -1)) best[k] = score
  }
  for (let i = 0; i <= line.length; i++) {
    for (let j = 0; j <= quote.length; j++) {
      const score = best[i * width + j] ?? -1
      if (score < 0) continue
      const a = line[i]
      const b = quote[j]
      // A stretch ends, or takes one more character of the other side.
      if (a === ANY) {
        reach(i + 1, j, score)
        if (b !== undefined && b !== ANY) reach(i, j + 1, score)
      }
      if (b === ANY) {
        reach(i, j + 1, score)
        if (a !== undefined && a !== ANY) reach(i + 1, j, score)
      }
      if (a !== undefined && a !== ANY && a === b) reach(i + 1, j + 1, score + (a === ' ' ? 0 : 1))
    }
  }
  return best[line.length * width + quote.length] ?? -1
}
