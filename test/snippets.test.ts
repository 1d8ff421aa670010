/**
 * Every YAML block in the README and docs/ that uses the action works as copied: each step that
 * gives the agent work names its environment, and a whole workflow grants its token what its
 * steps' inputs need (docs/permissions.md), as the examples must (test/examples.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  ACTION_REF,
  permissionsNeeded,
  RECONCILE_REF,
  REPORT_REF,
  type Step,
} from './support/workflow-rules.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const PAGES = [
  'README.md',
  ...readdirSync(`${root}docs`)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

interface Snippet {
  where: string
  text: string
}

/** The YAML blocks of a page that use the action. */
function snippetsOf(page: string): Snippet[] {
  const text = readFileSync(`${root}${page}`, 'utf8')
  const snippets: Snippet[] = []
  for (const match of text.matchAll(/```ya?ml\n([\s\S]*?)```/g)) {
    const body = match[1] ?? ''
    if (!/cloud-agent-run-action/.test(body)) continue
    const line = text.slice(0, match.index).split('\n').length
    snippets.push({ where: `${page}:${line}`, text: body })
  }
  return snippets
}

/** The steps a snippet holds: a whole workflow's, a list of steps, or one step. */
function stepsOf(parsed: unknown): Step[] {
  if (Array.isArray(parsed)) return parsed as Step[]
  if (typeof parsed !== 'object' || parsed === null) return []
  const record = parsed as Record<string, unknown>
  if (record.jobs && typeof record.jobs === 'object') {
    return Object.values(record.jobs as Record<string, { steps?: Step[] }>).flatMap(
      (job) => job.steps ?? [],
    )
  }
  if (Array.isArray(record.steps)) return record.steps as Step[]
  return typeof record.uses === 'string' ? [record as Step] : []
}

const ALL = PAGES.flatMap(snippetsOf)

describe('the snippets in the README and docs/', () => {
  it('are found: every page that shows the action in YAML is read', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(9)
  })

  it.each(ALL.map((snippet) => [snippet.where, snippet] as const))(
    '%s works as copied',
    (_, snippet) => {
      const parsed: unknown = parse(snippet.text)
      const steps = stepsOf(parsed)
      for (const step of steps) {
        if (
          !ACTION_REF.test(step.uses ?? '') ||
          RECONCILE_REF.test(step.uses ?? '') ||
          REPORT_REF.test(step.uses ?? '')
        )
          continue
        const w = step.with ?? {}
        const givesWork = ['prompt', 'prompt_file', 'tasks', 'skill_spec'].some((input) =>
          Boolean(w[input]),
        )
        if (givesWork) expect(w['environment_id'], `${snippet.where}: environment_id`).toBeTruthy()
      }
      // A whole workflow grants what its steps need.
      const workflow = parsed as {
        jobs?: Record<string, { permissions?: Record<string, string> }>
        permissions?: Record<string, string>
      }
      if (!workflow || typeof workflow !== 'object' || !workflow.jobs) return
      for (const [jobId, job] of Object.entries(workflow.jobs)) {
        const granted = job.permissions ?? workflow.permissions ?? {}
        const needed: Record<string, string> = {}
        for (const step of (job as { steps?: Step[] }).steps ?? [])
          Object.assign(needed, permissionsNeeded(step))
        for (const [permission, level] of Object.entries(needed)) {
          const has = granted[permission]
          expect(
            has === level || has === 'write',
            `${snippet.where}, job ${jobId}: needs ${permission}: ${level}`,
          ).toBe(true)
        }
      }
    },
  )
})
