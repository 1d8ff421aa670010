import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse, parseDocument } from 'yaml'
import { endMarker, generateReadme, spliceTables, startMarker } from '../scripts/docs/tables.ts'
import { MAX_ANSWER_BYTES, MAX_PROMPT_BYTES } from '../src/api/answers.ts'
import { GITHUB_CALL_DEADLINE_MS, REQUEST_RETRIES } from '../src/timing.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The page that holds the generated tables (its variables keep their old names: README). */
const README_PATH = join(ROOT, 'docs', 'inputs.md')
const README = readFileSync(README_PATH, 'utf8')
const ACTION_YML = readFileSync(join(ROOT, 'action.yml'), 'utf8')

/** action.yml with one more input, as a change to it would add. */
function withInput(name: string, input: Record<string, unknown>): string {
  const document = parseDocument(ACTION_YML)
  document.setIn(['inputs', name], input)
  return document.toString()
}

describe('the inputs and outputs tables of docs/inputs.md', () => {
  it('are what `npm run docs` makes from action.yml (run it and commit docs/inputs.md if not)', async () => {
    expect(await generateReadme(README, ACTION_YML, README_PATH)).toBe(README)
  })

  it('pick up an input added to action.yml, so the check above fails until README is rerun', () => {
    const changed = withInput('example_mode', {
      description: 'What to do when the run is BLOCKED: wait, fail or pass.',
      required: false,
      default: 'wait',
    })
    const generated = spliceTables(README, changed)

    expect(generated).not.toBe(spliceTables(README, ACTION_YML))
    expect(generated).toMatch(
      /^\| `example_mode` +\| `wait` +\| What to do when the run is BLOCKED: wait, fail or pass\. +\|$/m,
    )
  })

  it('keep a description with Markdown syntax inside its cell', () => {
    const changed = withInput('example_patterns', {
      description: 'Patterns, such as a|b, *.log or **/out, matched against <filepath>.',
      required: false,
      default: '',
    })
    const row = spliceTables(README, changed)
      .split('\n')
      .find((line) => /^\| `example_patterns` +\|/.test(line))

    expect(row).toMatch(/a\\\|b, \\\*\.log or \\\*\\\*\/out, matched against &lt;filepath&gt;\./)
    // Four unescaped pipes: three cells.
    expect(row?.match(/(?<!\\)\|/g)).toHaveLength(4)
  })

  it('refuse a README that lost its markers, rather than leave stale tables', () => {
    const withoutMarkers = README.replace(startMarker('outputs'), '')

    expect(() => spliceTables(withoutMarkers, ACTION_YML)).toThrow(
      `needs exactly one "${startMarker('outputs')}" followed by one "${endMarker('outputs')}"`,
    )
  })
})

/** The pages a workflow author reads: the README and docs/. */
const USER_DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

/** Lines of prose: not in a code block, a table or HTML. */
function proseLines(markdown: string): Array<[number, string]> {
  let fenced = false
  return markdown.split('\n').flatMap((line, index): Array<[number, string]> => {
    if (line.startsWith('```')) fenced = !fenced
    if (
      fenced ||
      line.startsWith('```') ||
      line.startsWith('|') ||
      line.trimStart().startsWith('<')
    )
      return []
    return [[index + 1, line]]
  })
}

describe('the user docs', () => {
  it('README.md is read in five minutes: at most 15 KB', () => {
    expect(Buffer.byteLength(readFileSync(join(ROOT, 'README.md')))).toBeLessThanOrEqual(15_000)
  })

  it("README.md's first screen has a whole workflow, the pictures and the quick start", () => {
    const firstScreen = readFileSync(join(ROOT, 'README.md'), 'utf8')
      .split('\n')
      .slice(0, 40)
      .join('\n')
    // A complete workflow to copy: its trigger, its token's permissions, a job and the step.
    const workflow = /```yaml\n([\s\S]*?)```/.exec(firstScreen)?.[1] ?? ''
    for (const key of [/^on:$/m, /^permissions:$/m, /^jobs:$/m, /^ {4}runs-on: /m]) {
      expect(workflow).toMatch(key)
    }
    expect(workflow).toMatch(/- uses: [\w.-]+\/[\w.-]+@v\d+\n/)
    expect(workflow).toContain('api_key: ${{ secrets.WARP_API_KEY }}')
    expect(workflow).toContain('environment_id: ${{ vars.WARP_ENVIRONMENT_ID }}')
    expect(firstScreen.match(/<img src="docs\/images\/[\w-]+\.png"/g)).toHaveLength(2)
    expect(firstScreen).toContain('## Quick start')
  })

  it.each(USER_DOCS)('%s has no line of prose over 120 characters', (path) => {
    const long = proseLines(readFileSync(join(ROOT, path), 'utf8')).filter(
      ([, line]) => line.length > 120,
    )
    expect(long.map(([number, line]) => `${path}:${number}: ${line.slice(0, 60)}…`)).toEqual([])
  })

  it.each(USER_DOCS)('%s names no test file', (path) => {
    expect(readFileSync(join(ROOT, path), 'utf8')).not.toMatch(/\.test\.ts|\btest\/[\w-]+\//)
  })

  it.each(USER_DOCS)('%s links only to files that exist', (path) => {
    const text = readFileSync(join(ROOT, path), 'utf8')
    const targets = [...text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)].map((m) => m[1])
    for (const target of targets) {
      expect(existsSync(join(ROOT, dirname(path), target ?? '')), `${path} → ${target}`).toBe(true)
    }
  })

  it('say the caps and deadlines the code enforces, from the constants (security.md, CHANGELOG)', () => {
    const MiB = 1024 * 1024
    const security = readFileSync(join(ROOT, 'docs', 'security.md'), 'utf8').replace(/\s+/g, ' ')
    expect(security).toContain(`Every request has a ${REQUEST_RETRIES.attemptMs / 1000} s deadline`)
    expect(security).toContain(`larger than ${MAX_ANSWER_BYTES / MiB} MiB is refused unread`)
    expect(security).toContain(`A prompt over ${MAX_PROMPT_BYTES / MiB} MiB is refused`)
    expect(security).toContain(
      `Every GitHub call has an ${GITHUB_CALL_DEADLINE_MS / 1000} s deadline`,
    )
    // The release notes say the cap in force now, once.
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8').replace(/\s+/g, ' ')
    expect(changelog.split(`${MAX_ANSWER_BYTES / MiB} MiB cap on response bodies`)).toHaveLength(2)
  })

  it("CHANGELOG.md names every input and output of both actions, and its newest release is package.json's version", () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')
    for (const file of ['action.yml', 'reconcile/action.yml']) {
      const action = parseDocument(readFileSync(join(ROOT, file), 'utf8')).toJS() as {
        inputs?: Record<string, unknown>
        outputs?: Record<string, unknown>
      }
      for (const name of [
        ...Object.keys(action.inputs ?? {}),
        ...Object.keys(action.outputs ?? {}),
      ]) {
        expect(changelog, `${file}: ${name}`).toContain(`\`${name}\``)
      }
    }
    const version = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    ).version
    expect(changelog).toMatch(
      new RegExp(`^## ${version.replace(/\./g, '\\.')} \\(\\d{4}-\\d{2}-\\d{2}\\)$`, 'm'),
    )
    const [newest] = changelog.match(/^## \d+\.\d+\.\d+/m) ?? []
    expect(newest).toBe(`## ${version}`)
  })

  it('finds a long prose line, and skips code, tables and HTML', () => {
    const long = 'x'.repeat(121)
    const text = ['# T', long, '```', long, '```', `| ${long} |`, `<img alt="${long}">`].join('\n')
    expect(proseLines(text).map(([number]) => number)).toEqual([1, 2])
  })
})

describe("the README's outputs", () => {
  it('What a step gives back names every output of action.yml: one list, held to the file', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const start = readme.indexOf('## What a step gives back')
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1))
    const action = parse(readFileSync(new URL('../action.yml', import.meta.url), 'utf8')) as {
      outputs: Record<string, unknown>
    }
    const missing = Object.keys(action.outputs).filter((name) => !section.includes(`\`${name}\``))
    expect(missing).toEqual([])
  })
})

describe('images on every page', () => {
  it('resolve from the page that shows them, as GitHub resolves a relative src', () => {
    const root = fileURLToPath(new URL('..', import.meta.url))
    const pages = [
      'README.md',
      ...readdirSync(join(root, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ]
    const broken: string[] = []
    for (const page of pages) {
      const text = readFileSync(join(root, page), 'utf8')
      for (const match of text.matchAll(/<img src="([^"]+)"|!\[[^\]]*\]\(([^)\s]+)\)/g)) {
        const src = match[1] ?? match[2] ?? ''
        if (/^https?:/.test(src)) continue
        if (!existsSync(join(root, dirname(page), src))) broken.push(`${page}: ${src}`)
      }
    }
    expect(broken).toEqual([])
  })
})
