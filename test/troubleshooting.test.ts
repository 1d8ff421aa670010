import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import MarkdownIt from 'markdown-it'
import { describe, expect, it } from 'vitest'
import {
  collectLogLines,
  HOLE,
  quotableLine,
  quotedBy,
  quoteOnPage,
  quotes,
  shown,
  type LogLine,
  type Sources,
} from './support/log-lines.ts'

/**
 * docs/troubleshooting.md promises an entry for every error and warning line the action can
 * print. The lines are read from src/ (test/support/log-lines.ts): every `warning`, `error` and
 * `setFailed` call, every error constructed (its message as its class builds it), and the
 * sources below; each line's fixed words must be quoted in the first cell of a row of the
 * page, with `…` (or a placeholder such as `<name>`) for what the run fills in.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PAGE_PATH = join(ROOT, 'docs', 'troubleshooting.md')
const PAGE = readFileSync(PAGE_PATH, 'utf8')

/** Lines made where no log call, error or `new` shows them. */
const SOURCES: Sources = {
  sinks: [
    // The reconcile pass logs a failed row as a warning: `Run <id>: failed: <why>`.
    {
      callee: 'rowOf',
      when: (args) => args[1]?.getText() === "'failed'",
      message: 2,
      prefix: ['Run ', HOLE, ': failed: '],
    },
  ],
  values: [
    // An outcome's error line, the step's annotation when it fails.
    { file: 'src/model/ending.ts', property: 'failure' },
    // A budget reached before the create: the step's annotation.
    { file: 'src/run/budget.ts', property: 'message' },
    // An output cut or left unset: a warning.
    { file: 'src/summary/json-output.ts', property: 'note' },
    // The API errors' hints: `POST /agent/run → 401 …: <detail> <hint>`.
    { file: 'src/api/errors.ts', table: 'HINTS', prefix: [HOLE, ' → ', HOLE, ': ', HOLE, ' '] },
  ],
}

/**
 * Calls that log a message written elsewhere (`file: argument`), and where that message's
 * lines are collected. A new one fails the test until its lines are found and it is listed.
 */
const RELAYS: Readonly<Record<string, string>> = {
  'src/agent/structured-output.ts: new UnsupportedPattern(pattern, errorMessage(error))':
    "RE2's reason, inside the output_schema input error about the pattern",
  'src/agent/work.ts: message': "the downloads' warnings, written in src/agent/download.ts",
  'src/api/transport.ts: new DownloadError(label, status)':
    'a signed download\'s status, inside `Could not download artifact "…": …`',
  'src/api/errors.ts: new ErrorClass(request, status, headers, problem, excerpt(body))':
    'an error status, `<request> → <status> <code>: <detail> <hint>`: the hints (SOURCES), and ' +
    "SessionGoneError's sentence (this.message +=)",
  'src/api/errors.ts: new Error(why)': "a timeout's reason, inside ApiTimeoutError's message",
  'src/github/repository-desk.ts: message': "the GitHub writes' warnings, written in src/github/",
  'src/gitlab/api.ts: new GitLabFailure(`${method} ${path} failed: ${causeOf(error)}`)':
    "the network's error, inside `GitLab: could not write the note on … (…)`",
  'src/gitlab/api.ts: new GitLabFailure(`${method} ${path} → ${safeForLog(shown, 200)}`, status)':
    "GitLab's own error, inside `GitLab: could not write the note on … (…)`",
  'src/github/octokit.ts: new TransientFailure(error, attempt)':
    "GitHub's own error, inside the GitHub warnings",
  'src/run/step-runs.ts: error.message': 'RunMayExistError, collected where it is constructed',
  'src/model/cancel.ts: message': "describeCancel's lines, with a set's task name before them",
  'src/summary/json-output.ts: safeForLog(output.note)': "the notes (SOURCES: json-output's note)",
  'src/summary/publish.ts: safeForLog(verdict.failure)': "the outcomes' failure (SOURCES)",
  'src/summary/publish.ts: safeForLog(message)':
    "the budget's message (SOURCES), and the errors constructed in src/",
  "src/run/lifecycle.ts: `${this.#spec.name ?? 'The run'}: ${safeForLog(record.createError)}`":
    "a task's create error: the errors constructed in src/, after the task's name",
  'src/run/gather.ts: message': "the agent's work's lines, written in src/agent/",
  'src/inputs/main-step.ts: new InputError(asked.input, asked.message)':
    "continue_from's input errors, written in src/inputs/surface.ts (an input error's row)",
  'src/inputs/run-target.ts: new InputError(surface.input, surface.message)':
    "harness's and worker_host's input errors, written in src/inputs/surface.ts (an input error's row)",
  'src/run/watch.ts: message': "the wait's warnings, written in src/run/",
  'src/log.ts: named(message)':
    "a task's lines (its wait's, its result check's), after the task's name",
  'src/runner.ts: message': "the engine's lines, passed on by the runner's port (StepIo)",
  'src/cli/step-io.ts: message': "the engine's lines, passed on by the command line's port",
  "src/reconcile/walk.ts: `Run ${safeForLog(row.runId)}: ${pass.dryRun ? 'dry run, ' : ''}${row.action}: ${row.why}`":
    "a pass's rows, GitHub's and GitLab's: the failed ones are collected from rowOf(run, 'failed', …) (SOURCES)",
  'src/cli/reconcile.ts: failure':
    "the service's error that ended `cloud-agent-run reconcile`: the errors constructed in src/",
}

/**
 * Error messages that never reach the log alone: a part of a line the page quotes, or a
 * guard against a bug. Keyed by the line as shown (`…` for a hole).
 */
const NOT_LINES: Readonly<Record<string, string>> = {
  'GitLab did not list the pipelines in time':
    'inside `Could not tell whether a newer step for this thread has started (…); …`',
  'has a control character in the pattern "…".': 'inside `Input "download_artifacts" …`',
  'cannot exclude with "!" ("…"); list the files to download.':
    'inside `Input "download_artifacts" …`',
  '… is outside the workspace and RUNNER_TEMP, where files may go':
    'inside `Not downloading artifact "…": …`',
  '… is inside .git, where no file may go': 'inside `Not downloading artifact "…": …`',
  '… is not a plain folder (a link or a file); nothing was written':
    'inside `Could not download artifacts into …: …`',
  'the service gave no download URL for it': 'inside `Could not download artifact "…": …`',
  'The download URL the service gave does not parse': 'inside `Could not download artifact "…": …`',
  'Refusing to download from …//…: it is this machine, and base_url is not':
    'inside `Could not download artifact "…": …`',
  'Refusing to download from …//…: only https is allowed':
    'inside `Could not download artifact "…": …`',
  'the connection went idle': 'inside `… failed: cannot reach the service (…)`',
  'An artifact UID is required': 'a guard: artifacts come from the service with their UIDs',
  '… is not a run ID': 'a guard: run_id is checked as an input, and IDs the service gives are used',
  'Refusing to send the key to …': 'a guard: every request goes to base_url',
  'unreachable: readStepSettings reads the target': 'a guard of the inputs reading',
  'Unhandled run state …': 'a guard: meaningOf knows every state',
  '… … was aborted': 'the step was cancelled: its outcome says so, not this',
  'GET /user answered no user ID': 'inside `GitLab: could not write the note on … (…)`',
  'the new note came back without an ID': 'inside `GitLab: could not write the note on … (…)`',
  '… … had no answer within …': 'inside `GitLab: could not write the note on … (…)`',
  '… … answered … with a redirect to …, which is not followed so the token stays with CI_API_V4_URL':
    'inside `GitLab: could not write the note on … (…)`',
  'Run …: failed: Run … was cancelled.': 'a pass fails a sweep only for a cancel that did not land',
}

interface Row {
  /** The section's bold words, e.g. "Before any request." */
  readonly section: string
  /** The code spans of the row's first cell. */
  readonly quotes: readonly string[]
}

/** The quotes of the page's tables: the code spans of each body row's first cell. */
function rowsOf(page: string): Row[] {
  const tokens = new MarkdownIt().parse(page, {})
  const rows: Row[] = []
  let section = ''
  let inBody = false
  let cell = 0
  for (const [i, token] of tokens.entries()) {
    if (token.type === 'paragraph_open') {
      const bold = /^\*\*(.+?)\*\*/.exec(tokens[i + 1]?.content ?? '')
      if (bold?.[1]) section = bold[1]
    }
    if (token.type === 'tbody_open') inBody = true
    if (token.type === 'tbody_close') inBody = false
    if (token.type === 'tr_open') cell = 0
    if (inBody && token.type === 'td_open') {
      cell++
      const inline = tokens[i + 1]
      if (cell === 1 && inline?.type === 'inline') {
        const spans = (inline.children ?? []).filter((child) => child.type === 'code_inline')
        rows.push({ section, quotes: spans.map((span) => span.content) })
      }
    }
  }
  return rows
}

/** A row that covers every input error: its quote is `Input "<name>" …`. */
const ANY_INPUT_ERROR = 'Input "<name>" …'

function missingFrom(page: string, lines: readonly LogLine[]): string[] {
  const all = rowsOf(page).flatMap((row) => row.quotes)
  const anyInput = all.includes(ANY_INPUT_ERROR)
  // Each quote and each line made ready once, not once for every pair of them.
  const onPage = all.map(quoteOnPage)
  return lines
    .filter((line) => !(shown(line.parts) in NOT_LINES))
    .filter((line) => !(anyInput && line.via === 'new InputError'))
    .filter((line) => {
      const quotable = quotableLine(line.parts)
      return !onPage.some((quote) => quotedBy(quote, quotable))
    })
    .map((line) => `${line.at}  ${shown(line.parts)}`)
}

const collected = collectLogLines(ROOT, SOURCES)

describe('docs/troubleshooting.md', () => {
  it('has a row for every error and warning line the action can print', () => {
    const missing = [...new Set(missingFrom(PAGE, collected.lines))]
    expect(
      missing,
      'These lines have no row in docs/troubleshooting.md. Add one to the table of when it ' +
        'happens, quoting the line in its first cell with `…` for what the run fills in, and ' +
        'say what to do:\n' +
        missing.join('\n'),
    ).toEqual([])
  })

  it('knows where each message that a log call passes on is written', () => {
    const unknown = collected.relays
      .map((relay) => `${relay.at.replace(/:\d+$/, '')}: ${relay.argument}`)
      .filter((key) => !(key in RELAYS))
    expect(
      unknown,
      'These calls log a message written elsewhere: make sure the test collects its lines ' +
        '(an error constructed, a log call, or SOURCES), then say where in RELAYS',
    ).toEqual([])
    const seen = new Set(collected.relays.map((r) => `${r.at.replace(/:\d+$/, '')}: ${r.argument}`))
    expect(
      Object.keys(RELAYS).filter((key) => !seen.has(key)),
      'RELAYS no longer in src/',
    ).toEqual([])
  })

  it('leaves out only messages that are still in src/', () => {
    const seen = new Set(collected.lines.map((line) => shown(line.parts)))
    expect(Object.keys(NOT_LINES).filter((key) => !seen.has(key))).toEqual([])
  })

  it('says that a row covers every input error, which is what lets them go without one each', () => {
    const rows = rowsOf(PAGE)
    expect(rows.find((row) => row.quotes.includes(ANY_INPUT_ERROR))?.section).toBe(
      'Before any request.',
    )
  })

  it('reads every kind of line from src/', () => {
    const vias = new Set(collected.lines.map((line) => line.via))
    const has = (via: string, text: string) =>
      collected.lines.some((line) => line.via === via && shown(line.parts).includes(text))
    expect([...vias].length).toBeGreaterThan(20)
    expect(has('log.warning', 'Poll … of … allowed in a row failed')).toBe(true)
    expect(has('this.#log.warning', 'GitHub: could not create the check run')).toBe(true)
    expect(has('io.setFailed', 'The reconcile pass could do nothing')).toBe(true)
    expect(has('new InputError', 'Input "tasks" is an empty list')).toBe(true)
    expect(has('new LostContactError', 'Lost contact with the service: … polls in a row')).toBe(
      true,
    )
    expect(has('new ApiTlsError', "the service's TLS certificate cannot be verified")).toBe(true)
    expect(has('failure', 'did not validate against')).toBe(true)
    expect(has('message', 'which has reached the')).toBe(true)
    expect(has("HINTS['401']", 'Check the api_key input')).toBe(true)
    expect(has('rowOf', 'Run …: failed: GitHub could not be read: …')).toBe(true)
    expect(has('SessionGoneError: this.message +=', "The run's session is gone")).toBe(true)
  })

  it('names a warning added to src/, with its file and line, until the page quotes it', () => {
    const root = mkdtempSync(join(tmpdir(), 'log-lines-'))
    try {
      mkdirSync(join(root, 'src'))
      writeFileSync(
        join(root, 'src', 'new.ts'),
        [
          "import type { Log } from './log.ts'",
          'export function warn(log: Log, runId: string): void {',
          '  log.warning(`Run ${runId} sent a new warning; nothing was lost.`)',
          '}',
        ].join('\n'),
      )
      const { lines } = collectLogLines(root)
      expect(missingFrom(PAGE, lines)).toEqual([
        'src/new.ts:3  Run … sent a new warning; nothing was lost.',
      ])
      // A row in the table of when it happens (any table will do for the test).
      const quoted = PAGE.replace(
        /^\| `Lost contact with the service.*$/m,
        (row) => `${row}\n| \`Run … sent a new warning; nothing was lost.\` | Nothing to do. |`,
      )
      expect(missingFrom(quoted, lines)).toEqual([])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('names a line whose row is gone, with its file and line', () => {
    const without = PAGE.split('\n')
      .filter((line) => !line.includes('Lost contact with the service'))
      .join('\n')
    const missing = missingFrom(without, collected.lines)
    expect(missing).toContainEqual(
      expect.stringMatching(
        /^src\/run\/scheduler\.ts:\d+ {2}Lost contact with the service: … polls/,
      ),
    )
  })
})

describe('a quote on the page', () => {
  const line = [
    'Run ',
    HOLE,
    ' did not finish within the timeout input (',
    HOLE,
    '); it was ',
    HOLE,
    '.',
  ] as const

  it('may show a hole as `…` or as an example, and leave out the end with `…`', () => {
    expect(
      quotes('Run … did not finish within the timeout input (…); it was INPROGRESS.', line),
    ).toBe(true)
    expect(quotes('Run … did not finish within the timeout input (30m) …', line)).toBe(true)
  })

  it('must give the fixed words it shows as the line has them', () => {
    expect(quotes('Run … did not end within the timeout input (…); it was INPROGRESS.', line)).toBe(
      false,
    )
  })

  it('must give enough of them: a `…` that stands for the whole line is no quote', () => {
    expect(quotes('Run … did not finish …', line)).toBe(false)
    expect(quotes('Run …: left: …', ['', HOLE, ': could not post the review'])).toBe(false)
  })
})
