/** A commit between the head a run worked on and the new one. */
export interface Commit {
  sha: string
  /** Its message's first line. */
  title: string
}

/** What changed between the head a run worked on and the new one, as GitHub's compare says. */
export type HeadChange =
  /** The old head is an ancestor of the new one: these commits came after it, oldest first. */
  | { kind: 'ahead'; commits: readonly Commit[] }
  | { kind: 'identical' }
  /** The old head is not an ancestor of the new one: a force push. */
  | { kind: 'not-ancestor' }
  /** GitHub could not say (it failed, or a head is unknown): the follow-up says only the heads. */
  | { kind: 'unknown'; why: string }

/** What steering needs of GitHub: supplied by the door, so run/ never reads GitHub itself. */
export interface SteerSource {
  /** The commit this step works on: the pull request's head, else GITHUB_SHA. */
  readonly head: string | undefined
  /** The head a steered run works on now, as the thread's comment recorded it; else undefined. */
  recordedHead(runId: string): Promise<string | undefined>
  compare(base: string, head: string): Promise<HeadChange>
}

/**
 * `previous_run: steer` on a forge: what it reads (SteerSource), and what shows a newer step for
 * the thread when this one is cancelled (run/interruption.ts). The Action reads GitHub
 * (github/compare.ts); the command in a GitLab merge request pipeline reads GitLab (gitlab/steer.ts).
 */
export interface ForgeSteering {
  readonly source: SteerSource
  readonly newerStep: (deadline: number) => Promise<string | undefined>
}
