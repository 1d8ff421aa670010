/**
 * templates/cloud-agent-run.yml read as GitLab reads a component: its `spec:` (the inputs),
 * then the job, with each `$[[ inputs.x ]]` replaced by the input's value.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseAllDocuments } from 'yaml'

export const COMPONENT_PATH = join(
  import.meta.dirname,
  '..',
  '..',
  'templates',
  'cloud-agent-run.yml',
)
export const COMPONENT_TEXT = readFileSync(COMPONENT_PATH, 'utf8')

export interface ComponentInput {
  description?: string
  default?: unknown
  type?: 'string' | 'boolean' | 'number' | 'array'
}

export interface ComponentJob {
  stage: string
  image: string
  timeout: string
  interruptible: boolean | string
  rules: unknown
  variables: Record<string, string>
  script: string[]
  artifacts: { when: string; paths: string[] }
}

export const COMPONENT_DOCUMENTS = parseAllDocuments(COMPONENT_TEXT)
const header = COMPONENT_DOCUMENTS[0]?.toJS() as {
  spec: { inputs: Record<string, ComponentInput> }
}
export const COMPONENT_HEADER: unknown = header
export const COMPONENT_BODY = COMPONENT_DOCUMENTS[1]?.toJS() as Record<string, ComponentJob>
export const COMPONENT_INPUTS = header.spec.inputs

const INTERPOLATION = /\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*\]\]/g

/** The names of the inputs a text uses, `$[[ inputs.x ]]`, in order. */
export function referencedInputs(text: string): string[] {
  return [...text.matchAll(INTERPOLATION)].map((m) => m[1] ?? '')
}

/**
 * The job as GitLab makes it from the component: each `$[[ inputs.x ]]` replaced by the
 * input's value, given or default; a value that is only an interpolation keeps its type.
 */
export function componentJob(given: Record<string, unknown> = {}): [string, ComponentJob] {
  const value = (name: string) => {
    if (!(name in COMPONENT_INPUTS)) throw new Error(`unknown input ${name}`)
    return name in given ? given[name] : COMPONENT_INPUTS[name]?.default
  }
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = /^\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*\]\]$/.exec(node)
      if (whole?.[1]) return value(whole[1])
      return node.replace(INTERPOLATION, (_, name: string) => String(value(name)))
    }
    if (Array.isArray(node)) return node.map(walk)
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [walk(k), walk(v)]))
    }
    return node
  }
  const jobs = Object.entries(walk(COMPONENT_BODY) as Record<string, ComponentJob>)
  if (jobs.length !== 1) throw new Error(`the component has ${jobs.length} jobs, not one`)
  return jobs[0] as [string, ComponentJob]
}
