/**
 * What a CI job keeps of the command, in the folder `CLOUD_AGENT_RUN_DIR` names (the GitLab
 * component sets `.cloud-agent-run`, under the job's CI_PROJECT_DIR, kept as the job's
 * artifacts): `state.json`, what the command started, written as it goes, so that
 * `cloud-agent-run cleanup` in `after_script` finds it when the script was killed hard;
 * `outputs.env`, the outputs as a dotenv report later jobs read; `annotations.json`, a link to
 * the session on the job's page; and the agent's downloaded files. Every write is synchronous
 * (a SIGKILL may come next) and none is fatal: a failure is one line.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { safeHttpUrl } from '../text/markdown.ts'
import { errorMessage } from '../text/plain.ts'

/** The variable that names the folder, relative to the working directory. */
export const JOB_DIR_VARIABLE = 'CLOUD_AGENT_RUN_DIR'

/** What `cleanup` needs besides the saved state: the API, the key's name, steering. */
export interface JobFacts {
  readonly baseUrl: string
  readonly name: string
  readonly steer: boolean
}

/** The folder's `state.json`, as `cleanup` reads it. */
export interface SavedJob extends JobFacts {
  readonly state: Readonly<Record<string, string>>
}

/** The job's folder, when the job names one. */
export function jobDirOf(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const dir = env[JOB_DIR_VARIABLE]?.trim()
  return dir ? resolve(cwd, dir) : undefined
}

export class JobFiles {
  readonly #dir: string
  readonly #facts: JobFacts
  readonly #say: (line: string) => void
  #failed = false

  constructor(dir: string, facts: JobFacts, say: (line: string) => void) {
    this.#dir = dir
    this.#facts = facts
    this.#say = say
  }

  /** Writes what the command started so far (the saved state), replacing the last. */
  saveState(state: ReadonlyMap<string, string>): void {
    const saved: SavedJob = { ...this.#facts, state: Object.fromEntries(state) }
    this.#write('state.json', `${JSON.stringify(saved)}\n`, true)
  }

  /** What the job started is all cancelled: `state.json` is kept as `state.cleaned.json`. */
  cleaned(): void {
    try {
      renameSync(join(this.#dir, 'state.json'), join(this.#dir, 'state.cleaned.json'))
    } catch {
      // Gone already: nothing left to clean up either way.
    }
  }

  /** The outputs as a dotenv report, and the session's link as an annotation. */
  finish(outputs: Readonly<Record<string, string>>): void {
    this.#write('outputs.env', dotenv(outputs))
    const link = safeHttpUrl(outputs.session_link)
    const annotations = link
      ? { 'cloud-agent-run': [{ external_link: { label: 'Cloud agent session', url: link } }] }
      : { 'cloud-agent-run': [] }
    this.#write('annotations.json', `${JSON.stringify(annotations)}\n`)
  }

  #write(name: string, text: string, atomic = false): void {
    try {
      mkdirSync(this.#dir, { recursive: true })
      const path = join(this.#dir, name)
      if (!atomic) return writeFileSync(path, text)
      writeFileSync(`${path}.tmp`, text)
      renameSync(`${path}.tmp`, path)
    } catch (error) {
      if (this.#failed) return
      this.#failed = true
      this.#say(
        `warning: ${JOB_DIR_VARIABLE}: ${name} could not be written in ${this.#dir} (${errorMessage(error)}); the run is not affected.\n`,
      )
    }
  }
}

/** The most characters a dotenv value carries: GitLab's report is small, one line a variable. */
const DOTENV_VALUE_CHARS = 1_000

/**
 * The outputs as GitLab's dotenv report: `CLOUD_AGENT_<NAME>=value`, one line each; a value on
 * more than one line, or longer than DOTENV_VALUE_CHARS, is left out (the JSON has it).
 */
export function dotenv(outputs: Readonly<Record<string, string>>): string {
  const lines: string[] = []
  for (const [name, value] of Object.entries(outputs)) {
    if (/[\r\n]/.test(value) || value.length > DOTENV_VALUE_CHARS) continue
    lines.push(`CLOUD_AGENT_${name.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}=${value}`)
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : ''
}
