/**
 * The command in a GitLab merge request pipeline: the merge request's note for its key (one per
 * key, recording the run, the head it works on and the job awaiting it) and, with
 * `--previous-run steer`, what steering reads of GitLab. Read from GitLab CI's variables once.
 */
import { GitLabApi } from '../gitlab/api.ts'
import { mergeRequestFrom, MergeRequestNote, type NoteEntry } from '../gitlab/note.ts'
import type { NoteRecord } from '../gitlab/note-text.ts'
import { mergeRequestSteering } from '../gitlab/steer.ts'
import type { ForgeSteering } from '../model/head.ts'
import { OUTCOMES, type Outcome } from '../model/outcome.ts'
import { isTerminal } from '../model/states.ts'
import { safeHttpUrl } from '../text/markdown.ts'

/** How long the note's last write may hold a command a signal ended: its outputs come first. */
const SIGNALLED_NOTE_MS = 2_000

export class MergeRequestJob {
  readonly #note: MergeRequestNote
  readonly #env: NodeJS.ProcessEnv
  readonly #job: NoteRecord
  readonly #say: (line: string) => void
  /** previous_run: steer's reading of GitLab; undefined unless steer was asked. */
  readonly steering: ForgeSteering | undefined

  private constructor(
    note: MergeRequestNote,
    env: NodeJS.ProcessEnv,
    steering: ForgeSteering | undefined,
    say: (line: string) => void,
  ) {
    this.#say = say
    this.#note = note
    this.#env = env
    this.#job = { head: env.CI_COMMIT_SHA || undefined, job: env.CI_JOB_ID || undefined }
    this.steering = steering
  }

  /**
   * The job's note on its merge request, when it runs in a merge request pipeline with a token;
   * without a token, `say` tells why once, and there is none. `key`: the note's (the `name`
   * flag, else the job's name). `steer`: whether `--previous-run steer` was asked.
   */
  static open(
    env: NodeJS.ProcessEnv,
    options: { key: string | undefined; steer: boolean; say: (line: string) => void },
  ): MergeRequestJob | undefined {
    const found = mergeRequestFrom(env)
    if (!found) return undefined
    if (found.reason !== undefined) {
      options.say(`${found.reason}\n`)
      return undefined
    }
    const key = options.key || env.CI_JOB_NAME || 'cloud-agent-run'
    const log = {
      info: (message: string) => options.say(`${message}\n`),
      warning: (message: string) => options.say(`warning: ${message}\n`),
    }
    const jobUrl = safeHttpUrl(env.CI_JOB_URL)
    const note = new MergeRequestNote(found.target, { key, log, ...(jobUrl ? { jobUrl } : {}) })
    // Read before this job writes its own: the head the key's run worked on, for a steer.
    const before = options.steer ? note.recorded() : undefined
    const steering =
      before &&
      mergeRequestSteering({
        api: new GitLabApi(found.target),
        project: found.target.projectId,
        mergeRequest: found.target.mergeRequestIid,
        head: env.CI_COMMIT_SHA || undefined,
        pipeline: env.CI_PIPELINE_ID || undefined,
        recorded: () => before,
      })
    return new MergeRequestJob(note, env, steering, options.say)
  }

  /** The note says the job works on it. Not awaited: GitLab never holds the run's start. */
  started(): void {
    void this.#note.upsert(this.#working(), this.#job)
  }

  /** The run is known: the note records it, so a pass judges it by this job from now on. */
  runSeen(runId: string): void {
    void this.#note.upsert(this.#working(), { ...this.#job, run: runId })
  }

  /**
   * The note's last text: the summary, once the command's outputs are out. A run handed to a
   * newer job (superseded) leaves the note to that job. After a signal, the write has
   * SIGNALLED_NOTE_MS: the job's grace is short, and its outputs are already written.
   */
  async finish(
    summary: string,
    outputs: Readonly<Record<string, string>>,
    signalled: boolean,
  ): Promise<void> {
    if (outputs.outcome === 'superseded') return
    // A newer job of the key steered the run and keeps the note now: it writes the end.
    const now = signalled ? undefined : await this.#note.recorded()
    if (now?.job && this.#job.job && Number(now.job) > Number(this.#job.job)) {
      this.#say(
        `GitLab: the note now belongs to job ${now.job}, which steers the run; it writes the end.\n`,
      )
      return
    }
    const written = this.#note.upsert(
      `${summary.trim()}\n\n${this.#link()}`,
      {
        ...this.#job,
        ...(outputs.run_id ? { run: outputs.run_id } : {}),
        // A run its job left going (--no-wait) is not at its end: a reconcile pass writes that.
        ...(outputs.outcome && outputs.outcome !== 'started' ? { ended: true } : {}),
      },
      entryOf(outputs),
    )
    if (!signalled) {
      await written
      return
    }
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      written,
      new Promise((resolve) => (timer = setTimeout(resolve, SIGNALLED_NOTE_MS).unref())),
    ])
    clearTimeout(timer)
  }

  #working(): string {
    return `### ⏳ Cloud agent run: working\n\n${this.#link()}`
  }

  /** The CI job's page (`CI_JOB_URL`), as the note's last line. */
  #link(): string {
    const url = safeHttpUrl(this.#env.CI_JOB_URL)
    return url ? `[CI job](${url})` : ''
  }
}

/**
 * What the key's history keeps of the job's report, from its outputs: its run (its ID, state,
 * outcome and session), or its set (the `runs` output: how many of its tasks ended).
 */
function entryOf(outputs: Readonly<Record<string, string>>): NoteEntry | undefined {
  const outcome = (OUTCOMES as readonly string[]).includes(outputs.outcome ?? '')
    ? (outputs.outcome as Outcome)
    : undefined
  if (outputs.run_id) {
    const sessionLink = safeHttpUrl(outputs.session_link)
    const run = { runId: outputs.run_id, state: outputs.state || 'QUEUED', outcome }
    return { run: sessionLink ? { ...run, sessionLink } : run }
  }
  if (!outputs.runs) return undefined
  let tasks: unknown
  try {
    tasks = JSON.parse(outputs.runs)
  } catch {
    return undefined
  }
  if (!Array.isArray(tasks)) return undefined
  const ended = tasks.filter((task: unknown) => {
    const state = (task as { state?: unknown } | null)?.state
    return typeof state === 'string' && isTerminal(state)
  })
  return { set: { outcome, done: ended.length, total: tasks.length } }
}
